#include "compiler/driver/test_data.h"
#include "compiler/ir/error.h"
#include "compiler/ir/ir.h"

#include <cmath>
#include <cstring>
#include <filesystem>

namespace onnxc {

std::vector<NamedTensor> read_data_set(const std::string &dir, const std::string &prefix) {
  if (!std::filesystem::is_directory(dir))
    fail("{}: not a directory of test data (input_0.pb, ...)", dir);
  std::vector<NamedTensor> out;
  for (int i = 0;; ++i) {
    std::string path = fmt::format("{}/{}_{}.pb", dir, prefix, i);
    if (!std::filesystem::exists(path))
      break;
    out.push_back(read_tensor_file(path));
  }
  return out;
}

std::vector<const Tensor *> match_inputs(const std::vector<TensorSignature> &sig,
                                         const std::vector<NamedTensor> &tensors,
                                         const std::string &dir) {
  if (tensors.size() != sig.size())
    fail("{}: has {} input files but the model takes {} inputs", dir, tensors.size(), sig.size());
  std::vector<const Tensor *> out(sig.size(), nullptr);
  bool by_name = true;
  for (size_t i = 0; i < sig.size() && by_name; ++i) {
    for (const NamedTensor &t : tensors)
      if (!t.name.empty() && t.name == sig[i].name)
        out[i] = &t.tensor;
    by_name = out[i] != nullptr;
  }
  if (!by_name)
    for (size_t i = 0; i < sig.size(); ++i)
      out[i] = &tensors[i].tensor;
  return out;
}

Comparison compare_tensors(const Tensor &got, const Tensor &want, double rtol, double atol) {
  Comparison c;
  if (got.dtype() != want.dtype()) {
    c.ok = false;
    c.problem = fmt::format("dtype {} but expected {}", dtype_name(got.dtype()),
                            dtype_name(want.dtype()));
    return c;
  }
  if (got.shape() != want.shape()) {
    c.ok = false;
    c.problem = fmt::format("shape {} but expected {}", dims_to_string(got.shape()),
                            dims_to_string(want.shape()));
    return c;
  }
  if (got.dtype() == DType::String) { // exact; the message names the first difference
    for (size_t i = 0; i < got.strings().size(); ++i)
      if (got.strings()[i] != want.strings()[i] && c.mismatches++ == 0)
        c.problem = fmt::format("element {} is \"{}\", expected \"{}\"", i, got.strings()[i],
                                want.strings()[i]);
    if (c.mismatches > 1)
      c.problem += fmt::format(" ({} of {} strings differ)", c.mismatches, got.strings().size());
    c.ok = c.mismatches == 0;
    return c;
  }
  bool is_float = dtype_is_float(got.dtype());
  for (int64_t i = 0; i < got.numel(); ++i) {
    double g = got.float_at(i), w = want.float_at(i);
    if (std::isnan(g) && std::isnan(w))
      continue;
    double err = std::fabs(g - w);
    if (std::isinf(g) && std::isinf(w) && (g > 0) == (w > 0))
      err = 0;
    bool bad = is_float ? !(err <= atol + rtol * std::fabs(w)) : g != w;
    c.max_abs_error = std::max(c.max_abs_error, std::isnan(err) ? INFINITY : err);
    if (w != 0)
      c.max_rel_error = std::max(c.max_rel_error, err / std::fabs(w));
    c.mismatches += bad;
  }
  c.ok = c.mismatches == 0;
  return c;
}

std::vector<uint8_t> synthetic_input(const TensorSignature &s) {
  std::vector<uint8_t> buf(s.size_bytes, 0);
  if (s.dtype == DType::String) { // every element the empty string (a valid pointer)
    static const char *const kEmpty = "";
    for (size_t i = 0; i + sizeof kEmpty <= buf.size(); i += sizeof kEmpty)
      std::memcpy(buf.data() + i, &kEmpty, sizeof kEmpty);
  }
  if (s.dtype == DType::Float) {
    auto *f = reinterpret_cast<float *>(buf.data());
    for (size_t i = 0; i < buf.size() / sizeof(float); ++i)
      f[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f - 0.5f;
  }
  return buf;
}

} // namespace onnxc
