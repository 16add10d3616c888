// TensorProto -> Tensor: every encoding, validation, external data and test-data files.
#include "compiler/frontend/tensor_proto.h"
#include "compiler/ir/error.h"

#include <catch2/catch.hpp>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

using namespace onnxc;
namespace fs = std::filesystem;

namespace {

onnx::TensorProto make_proto(const std::string &name, int dtype, std::vector<int64_t> dims) {
  onnx::TensorProto p;
  p.set_name(name);
  p.set_data_type(dtype);
  for (int64_t d : dims)
    p.add_dims(d);
  return p;
}

template <typename T> void set_raw(onnx::TensorProto &p, const std::vector<T> &v) {
  p.set_raw_data(v.data(), v.size() * sizeof(T));
}

template <typename T> std::vector<T> values(const Tensor &t) {
  std::vector<T> v(t.nbytes() / sizeof(T));
  std::memcpy(v.data(), t.data(), v.size() * sizeof(T));
  return v;
}

Tensor convert(const onnx::TensorProto &p, const std::string &dir = "") {
  return tensor_from_proto(p, dir, "model.onnx");
}

/// A fresh directory under the system temp dir, removed at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "onnxc_fe_XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_file(const fs::path &p, const std::string &bytes) {
  std::ofstream(p, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void set_external(onnx::TensorProto &p, const std::string &loc, const std::string &offset = "",
                  const std::string &length = "") {
  p.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto add = [&](const char *k, const std::string &v) {
    auto *e = p.add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", loc);
  if (!offset.empty())
    add("offset", offset);
  if (!length.empty())
    add("length", length);
}

std::string error_of(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "<no error>";
}

} // namespace

TEST_CASE("float tensors: raw_data and float_data agree", "[frontend][tensor]") {
  auto raw = make_proto("w", 1, {2, 2});
  set_raw<float>(raw, {1.f, 2.f, 3.f, -4.f});
  auto typed = make_proto("w", 1, {2, 2});
  for (float f : {1.f, 2.f, 3.f, -4.f})
    typed.add_float_data(f);
  for (const auto &p : {raw, typed}) {
    Tensor t = convert(p);
    CHECK(t.dtype() == DType::Float);
    CHECK(t.shape() == std::vector<int64_t>{2, 2});
    CHECK(values<float>(t) == std::vector<float>{1.f, 2.f, 3.f, -4.f});
  }
}

TEST_CASE("integer tensors in raw and typed fields", "[frontend][tensor]") {
  auto i64 = make_proto("a", 7, {3});
  for (int64_t v : {int64_t(1) << 40, int64_t(-2), int64_t(3)})
    i64.add_int64_data(v);
  CHECK(values<int64_t>(convert(i64)) == std::vector<int64_t>{int64_t(1) << 40, -2, 3});
  auto i64raw = make_proto("a", 7, {3});
  set_raw<int64_t>(i64raw, {int64_t(1) << 40, -2, 3});
  CHECK(values<int64_t>(convert(i64raw)) == std::vector<int64_t>{int64_t(1) << 40, -2, 3});

  auto i32 = make_proto("b", 6, {2});
  i32.add_int32_data(-7);
  i32.add_int32_data(9);
  CHECK(values<int32_t>(convert(i32)) == std::vector<int32_t>{-7, 9});

  auto i8 = make_proto("c", 3, {3});
  for (int v : {-128, -1, 127})
    i8.add_int32_data(v);
  CHECK(values<int8_t>(convert(i8)) == std::vector<int8_t>{-128, -1, 127});
  auto i8raw = make_proto("c", 3, {3});
  set_raw<int8_t>(i8raw, {-128, -1, 127});
  CHECK(values<int8_t>(convert(i8raw)) == std::vector<int8_t>{-128, -1, 127});

  auto u8 = make_proto("d", 2, {2});
  u8.add_int32_data(255);
  u8.add_int32_data(0);
  CHECK(values<uint8_t>(convert(u8)) == std::vector<uint8_t>{255, 0});

  auto u32 = make_proto("e", 12, {1});
  u32.add_uint64_data(4000000000u);
  CHECK(values<uint32_t>(convert(u32)) == std::vector<uint32_t>{4000000000u});
  auto u64 = make_proto("f", 13, {1});
  u64.add_uint64_data(UINT64_MAX);
  CHECK(values<uint64_t>(convert(u64)) == std::vector<uint64_t>{UINT64_MAX});
}

TEST_CASE("bool, float16, double and complex tensors", "[frontend][tensor]") {
  auto b = make_proto("b", 9, {3});
  for (int v : {1, 0, 1})
    b.add_int32_data(v);
  CHECK(values<uint8_t>(convert(b)) == std::vector<uint8_t>{1, 0, 1});
  auto braw = make_proto("b", 9, {3});
  set_raw<uint8_t>(braw, {1, 0, 1});
  CHECK(values<uint8_t>(convert(braw)) == std::vector<uint8_t>{1, 0, 1});

  auto h = make_proto("h", 10, {2}); // float16 bit patterns: 1.0 and -2.0
  h.add_int32_data(0x3C00);
  h.add_int32_data(0xC000);
  CHECK(values<uint16_t>(convert(h)) == std::vector<uint16_t>{0x3C00, 0xC000});
  auto hraw = make_proto("h", 10, {2});
  set_raw<uint16_t>(hraw, {0x3C00, 0xC000});
  CHECK(values<uint16_t>(convert(hraw)) == std::vector<uint16_t>{0x3C00, 0xC000});

  auto bf = make_proto("bf", 16, {1});
  bf.add_int32_data(0x3F80);
  CHECK(values<uint16_t>(convert(bf)) == std::vector<uint16_t>{0x3F80});

  auto d = make_proto("d", 11, {2});
  d.add_double_data(0.5);
  d.add_double_data(-1e300);
  CHECK(values<double>(convert(d)) == std::vector<double>{0.5, -1e300});
  auto draw = make_proto("d", 11, {2});
  set_raw<double>(draw, {0.5, -1e300});
  CHECK(values<double>(convert(draw)) == std::vector<double>{0.5, -1e300});

  auto c = make_proto("c", 14, {1}); // complex64: (re, im) pairs in float_data
  c.add_float_data(1.f);
  c.add_float_data(2.f);
  Tensor ct = convert(c);
  CHECK(ct.nbytes() == 8);
  CHECK(values<float>(ct) == std::vector<float>{1.f, 2.f});

  auto f8 = make_proto("f8", 17, {2}); // float8e4m3fn bit patterns, one per int32
  f8.add_int32_data(0x38);
  f8.add_int32_data(0xB8);
  CHECK(values<uint8_t>(convert(f8)) == std::vector<uint8_t>{0x38, 0xB8});
}

TEST_CASE("sub-byte tensors stay packed as in raw_data", "[frontend][tensor]") {
  // int4 [1, -2, 3]: bytes 0xE1 (low nibble first), 0x03.
  auto typed = make_proto("q", 22, {3});
  typed.add_int32_data(0xE1);
  typed.add_int32_data(0x03);
  auto raw = make_proto("q", 22, {3});
  set_raw<uint8_t>(raw, {0xE1, 0x03});
  for (const auto &p : {typed, raw}) {
    Tensor t = convert(p);
    CHECK(t.dtype() == DType::Int4);
    CHECK(t.nbytes() == 2);
    CHECK(values<uint8_t>(t) == std::vector<uint8_t>{0xE1, 0x03});
  }
  auto u2 = make_proto("u2", 25, {5}); // uint2: four per byte
  set_raw<uint8_t>(u2, {0xE4, 0x01});
  CHECK(convert(u2).nbytes() == 2);
  auto bad = make_proto("q", 21, {3}); // uint4 x3 needs 2 packed bytes, not 3
  for (int v : {1, 2, 3})
    bad.add_int32_data(v);
  CHECK_THAT(error_of([&] { convert(bad); }), Catch::Contains("need 2"));
}

TEST_CASE("every data type 1..26 converts from raw_data", "[frontend][tensor]") {
  for (int dt = 1; dt <= kMaxDType; ++dt) {
    if (dt == 8)
      continue; // strings have no raw form
    auto p = make_proto("t", dt, {4});
    uint64_t n = *dtype_storage_bytes(static_cast<DType>(dt), 4);
    p.set_raw_data(std::string(n, '\x01'));
    INFO("data type " << dt);
    Tensor t = convert(p);
    CHECK(static_cast<int>(t.dtype()) == dt);
    CHECK(t.nbytes() == n);
  }
}

TEST_CASE("string tensors", "[frontend][tensor]") {
  auto s = make_proto("s", 8, {2});
  s.add_string_data("hello");
  s.add_string_data(std::string("a\0b", 3));
  Tensor t = convert(s);
  REQUIRE(t.strings().size() == 2);
  CHECK(t.strings()[1] == std::string("a\0b", 3));
  auto raw = make_proto("s", 8, {1});
  raw.set_raw_data("xx");
  CHECK_THAT(error_of([&] { convert(raw); }), Catch::Contains("string_data"));
}

TEST_CASE("empty and scalar tensors", "[frontend][tensor]") {
  Tensor e = convert(make_proto("e", 1, {0, 3}));
  CHECK(e.numel() == 0);
  CHECK(e.nbytes() == 0);
  auto s = make_proto("s", 7, {});
  s.add_int64_data(42);
  CHECK(convert(s).int_at(0) == 42);
}

TEST_CASE("malformed tensors are refused with the tensor's name", "[frontend][tensor]") {
  auto unknown = make_proto("weird", 99, {1});
  CHECK_THAT(error_of([&] { convert(unknown); }),
             Catch::Contains("model.onnx: tensor 'weird'") && Catch::Contains("data type 99"));
  CHECK_THAT(error_of([&] { convert(make_proto("u", 0, {1})); }), Catch::Contains("no data type"));
  auto neg = make_proto("neg", 1, {2, -1});
  CHECK_THAT(error_of([&] { convert(neg); }), Catch::Contains("negative dimension -1"));
  auto short_raw = make_proto("w", 1, {2, 3});
  set_raw<float>(short_raw, {1, 2, 3});
  CHECK_THAT(error_of([&] { convert(short_raw); }), Catch::Contains("tensor 'w'") &&
                                                        Catch::Contains("12 bytes of raw_data") &&
                                                        Catch::Contains("need 24 bytes"));
  auto short_typed = make_proto("w", 7, {4});
  short_typed.add_int64_data(1);
  CHECK_THAT(error_of([&] { convert(short_typed); }),
             Catch::Contains("1 values in int64_data") && Catch::Contains("need 4"));
  auto wrong_field = make_proto("w", 1, {1});
  wrong_field.add_int64_data(1);
  CHECK_THAT(error_of([&] { convert(wrong_field); }), Catch::Contains("has no data"));
  auto huge = make_proto("huge", 1, {int64_t(1) << 40, int64_t(1) << 30});
  CHECK_THAT(error_of([&] { convert(huge); }), Catch::Contains("too many elements"));
  auto big = make_proto("big", 1, {int64_t(1) << 45}); // no allocation before the size check
  CHECK_THAT(error_of([&] { convert(big); }), Catch::Contains("too large"));
  auto seg = make_proto("seg", 1, {0});
  seg.mutable_segment()->set_begin(0);
  CHECK_THAT(error_of([&] { convert(seg); }), Catch::Contains("segmented"));
}

TEST_CASE("external data: happy path with offset and length", "[frontend][tensor][external]") {
  TempDir dir;
  std::vector<float> v{1.f, 2.f, 3.f};
  std::string bytes(8, 'x');
  bytes.append(reinterpret_cast<const char *>(v.data()), 12);
  fs::create_directories(dir.path / "sub");
  write_file(dir.path / "sub" / "w.bin", bytes);
  auto p = make_proto("w", 1, {3});
  set_external(p, "sub/w.bin", "8", "12");
  CHECK(values<float>(convert(p, dir.path.string())) == v);
  auto whole = make_proto("w", 1, {5});
  set_external(whole, "sub/w.bin"); // no offset/length: the whole file
  CHECK(convert(whole, dir.path.string()).nbytes() == 20);
}

TEST_CASE("external data refusals", "[frontend][tensor][external]") {
  TempDir dir;
  fs::create_directories(dir.path / "model");
  write_file(dir.path / "model" / "w.bin", std::string(12, '\0'));
  write_file(dir.path / "secret.bin", std::string(12, '\0'));
  fs::create_symlink(dir.path / "secret.bin", dir.path / "model" / "link.bin");
  std::string base = (dir.path / "model").string();
  auto refuse = [&](const std::string &loc, const std::string &off, const std::string &len) {
    auto p = make_proto("w", 1, {3});
    set_external(p, loc, off, len);
    std::string msg = error_of([&] { convert(p, base); });
    CHECK_THAT(msg, Catch::StartsWith("model.onnx: tensor 'w': "));
    return msg;
  };
  CHECK_THAT(refuse((dir.path / "secret.bin").string(), "", ""), Catch::Contains("absolute"));
  CHECK_THAT(refuse("../secret.bin", "", ""), Catch::Contains("'..'"));
  CHECK_THAT(refuse("x/../../secret.bin", "", ""), Catch::Contains("'..'"));
  CHECK_THAT(refuse("link.bin", "", ""), Catch::Contains("outside the model's directory"));
  CHECK_THAT(refuse("missing.bin", "", ""), Catch::Contains("does not exist"));
  CHECK_THAT(refuse("w.bin", "13", ""), Catch::Contains("offset 13 is past the end"));
  CHECK_THAT(refuse("w.bin", "4", "12"), Catch::Contains("length 12 is past the end"));
  CHECK_THAT(refuse("w.bin", "-1", ""), Catch::Contains("not a non-negative integer"));
  CHECK_THAT(refuse("w.bin", "4", ""), Catch::Contains("8 bytes of external data"));
  CHECK_THAT(refuse("", "", ""), Catch::Contains("no 'location'"));
  auto p = make_proto("w", 1, {3});
  set_external(p, "w.bin");
  CHECK_THAT(error_of([&] { convert(p, ""); }), Catch::Contains("loaded from memory"));
}

TEST_CASE("tensor files round-trip", "[frontend][tensor]") {
  TempDir dir;
  std::string path = (dir.path / "t.pb").string();
  Tensor t(DType::Int64, {2});
  t.data_as<int64_t>()[0] = 5;
  t.data_as<int64_t>()[1] = -6;
  write_tensor_file(path, "x", t);
  NamedTensor back = read_tensor_file(path);
  CHECK(back.name == "x");
  CHECK(back.tensor.shape() == std::vector<int64_t>{2});
  CHECK(back.tensor.to_int64_vector() == std::vector<int64_t>{5, -6});

  write_file(dir.path / "junk.pb", "\xff\xff\xff\xff garbage");
  CHECK_THAT(error_of([&] { read_tensor_file((dir.path / "junk.pb").string()); }),
             Catch::Contains("junk.pb: not a valid serialized ONNX TensorProto"));
  CHECK_THAT(error_of([&] { read_tensor_file((dir.path / "nope.pb").string()); }),
             Catch::Contains("no such file"));
}

TEST_CASE("reads ONNX test data (mnist-8 input_0.pb)", "[frontend][tensor][testdata]") {
  fs::path p = fs::path(ONNXC_TESTDATA_DIR) / "models/mnist-8/test_data_set_0/input_0.pb";
  if (!fs::exists(p)) {
    WARN("test data not found: " << p.string());
    return;
  }
  NamedTensor nt = read_tensor_file(p.string());
  CHECK(nt.tensor.dtype() == DType::Float);
  CHECK(nt.tensor.shape() == std::vector<int64_t>{1, 1, 28, 28});
  CHECK(nt.tensor.nbytes() == 28 * 28 * 4);
}
