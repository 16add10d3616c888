// CPU backend: a hand-built ExecutionPlan compiled to .so (dlopen'ed and run through the generic
// ABI), to aarch64, and to .o / .s / .ll; failures leave no output behind.
#include "codegen/cpu/cpu_backend.h"
#include "codegen/cpu/target_machine.h"
#include "compiler/ir/error.h"
#include "runtime_stub/onnxc_runtime.h"
#include "templates/cpu/conv_params.h"
#include "templates/cpu/gemm_params.h"

#include <catch2/catch.hpp>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

using namespace onnxc;
namespace fs = std::filesystem;

namespace {

/// y = exp(x + w) for x, w, y of shape 2x3 (float): x a graph input, w a weight, x + w in the
/// arena at offset 64 (offset 0 holds nothing, to check that offsets are honoured).
struct TinyModel {
  Graph graph;
  ExecutionPlan plan;

  TinyModel() {
    auto w = std::make_shared<Tensor>(DType::Float, std::vector<int64_t>{2, 3});
    for (int i = 0; i < 6; ++i)
      w->data_as<float>()[i] = 0.25f * static_cast<float>(i);
    Value *x = graph.add_value("x", Type::of(DType::Float, {2, 3}));
    x->storage = Storage::GraphInput;
    x->io_index = 0;
    Value *wv = graph.add_constant("w", w);
    wv->storage = Storage::Weight;
    wv->offset = 64;
    Value *t = graph.add_value("t", Type::of(DType::Float, {2, 3}));
    t->storage = Storage::Arena;
    t->offset = 64;
    Value *y = graph.add_value("y", Type::of(DType::Float, {2, 3}));
    y->storage = Storage::GraphOutput;
    y->io_index = 0;
    plan.model_name = "tiny";
    plan.inputs = {x};
    plan.outputs = {y};
    plan.weights = {wv};
    plan.weights_size = 128;
    plan.arena_size = 128;
    plan.calls.push_back({KernelCall{"onnxc_k_add_f32", {x, wv, t}, {0, 6}, 0},
                          "node 'add' (Add, #0)",
                          0,
                          {"add", "Add", "2x3, 2x3", "2x3", 6}});
    plan.calls.push_back({KernelCall{"onnxc_k_exp_f32", {t, y}, {6, 0, 0}, 0},
                          "node 'exp' (Exp, #1)",
                          0,
                          {"exp", "Exp", "2x3", "2x3", 6}});
  }
};

struct TempDirectory {
  fs::path path;
  TempDirectory() {
    std::string tmpl = (fs::temp_directory_path() / "onnxc-test-cg-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDirectory() { fs::remove_all(path); }
};

std::string read_file(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// e_type and e_machine of an ELF file (little-endian).
std::pair<int, int> elf_type_machine(const std::string &bytes) {
  REQUIRE(bytes.size() > 20);
  REQUIRE(bytes.compare(0, 4,
                        "\x7f"
                        "ELF") == 0);
  auto u16 = [&](size_t o) { return (unsigned char)bytes[o] | ((unsigned char)bytes[o + 1] << 8); };
  return {u16(16), u16(18)};
}
constexpr int kEtRel = 1, kEtDyn = 3, kEmX86_64 = 62, kEmAArch64 = 183, kEmArm = 40;

CpuCodegenOptions options(EmitKind emit, std::string triple = "x86_64-unknown-linux-gnu") {
  CpuCodegenOptions o;
  o.emit = emit;
  o.target.triple = std::move(triple);
  return o;
}

template <typename F> F sym(void *lib, const char *name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

} // namespace

TEST_CASE("supported triples include x86_64 and aarch64 Linux", "[codegen_cpu]") {
  auto triples = supported_cpu_triples();
  CHECK(std::find(triples.begin(), triples.end(), "x86_64-unknown-linux-gnu") != triples.end());
  CHECK(std::find(triples.begin(), triples.end(), "aarch64-unknown-linux-gnu") != triples.end());
}

TEST_CASE("GEMM micro-tile rows follow the target's vector registers", "[codegen_cpu]") {
  using onnxc_k::gemm::gemm_tile_rows;
  auto regs = [](const char *triple, const char *cpu) {
    return vector_registers(resolve_cpu_target({triple, cpu, ""}));
  };
  const VectorRegisters sse = regs("x86_64-unknown-linux-gnu", "x86-64");
  CHECK(sse.count == 16);
  CHECK(sse.bytes == 16);
  const VectorRegisters avx2 = regs("x86_64-unknown-linux-gnu", "x86-64-v3");
  CHECK(avx2.count == 16);
  CHECK(avx2.bytes == 32);
  const VectorRegisters avx512 = regs("x86_64-unknown-linux-gnu", "x86-64-v4");
  CHECK(avx512.count == 32);
  const VectorRegisters neon = regs("aarch64-unknown-linux-gnu", "generic");
  CHECK(neon.count == 32);
  CHECK(neon.bytes == 16);
  // mr x tile_vectors(mr) accumulator vectors of 64 bytes, B's vectors and A's broadcast fit.
  CHECK(gemm_tile_rows(sse.count, sse.bytes) == 2);
  CHECK(gemm_tile_rows(avx2.count, avx2.bytes) == 6);
  CHECK(gemm_tile_rows(32, 64) == 8);
  CHECK(gemm_tile_rows(32, 32) == 6);
  CHECK(gemm_tile_rows(neon.count, neon.bytes) == 6);
  CHECK(gemm_tile_rows(0, 0) == 1);
}

TEST_CASE("AVX-512 targets get 64-byte vectors despite LLVM's 256-bit tuning", "[codegen_cpu]") {
  // LLVM tunes these CPUs with prefer-256-bit; a KVM guest of a recent Xeon reports
  // rocketlake. Under that tuning the code generator reported 32-byte registers (AVX2's 6-row
  // GEMM tile) and split the kernels' 64-byte vectors into ymm halves.
  using onnxc_k::gemm::gemm_tile_rows;
  for (const char *cpu : {"x86-64-v4", "skylake-avx512", "icelake-server", "sapphirerapids",
                          "rocketlake", "znver4"}) {
    CAPTURE(cpu);
    const ResolvedCpuTarget t = resolve_cpu_target({"x86_64-unknown-linux-gnu", cpu, ""});
    const VectorRegisters r = vector_registers(t);
    CHECK(r.count == 32);
    CHECK(r.bytes == 64);
    CHECK(gemm_tile_rows(r.count, r.bytes) == 8);
  }
  // The user's own choice stands.
  const VectorRegisters narrow = vector_registers(
      resolve_cpu_target({"x86_64-unknown-linux-gnu", "skylake-avx512", "+prefer-256-bit"}));
  CHECK(narrow.bytes == 32);
  // CPUs without AVX-512 keep their features as given.
  CHECK(resolve_cpu_target({"x86_64-unknown-linux-gnu", "x86-64-v3", ""}).features.empty());
}

TEST_CASE("Winograd's input-channel floor follows the GEMM tile height", "[codegen_cpu]") {
  // A 3x3 stride-1 conv on a 55x55 plane: with 6-row tiles (AVX2, NEON) Winograd needs 32 input
  // channels (below, its transforms cost more than im2col saves), with 8-row tiles 8.
  onnxc_k::ConvParams p{};
  p.N = 1, p.G = 1, p.M = 64;
  p.w.in[0] = 1, p.w.k[0] = 1, p.w.k[1] = 3, p.w.k[2] = 3;
  p.w.s[1] = 1, p.w.s[2] = 1, p.w.d[1] = 1, p.w.d[2] = 1;
  for (int64_t mr : {0, 8, 6, 4}) {
    p.gemm_mr = mr;
    const bool few_regs = mr == 6 || mr == 4;
    p.C = 16;
    CHECK(onnxc_k::conv_wino_supported(p) == !few_regs);
    p.C = 31;
    CHECK(onnxc_k::conv_wino_supported(p) == !few_regs);
    p.C = 32;
    CHECK(onnxc_k::conv_wino_supported(p));
    p.C = 7;
    CHECK_FALSE(onnxc_k::conv_wino_supported(p));
  }
}

/// A batch-1, one-group 2-D 3x3 stride-1 Conv from C to M channels on an H x H plane (same size
/// out).
static onnxc_k::ConvParams conv3x3_params(int64_t C, int64_t M, int64_t H) {
  onnxc_k::ConvParams p{};
  p.N = 1, p.G = 1, p.C = C, p.M = M;
  p.w.in[0] = 1, p.w.in[1] = H, p.w.in[2] = H;
  p.w.k[0] = 1, p.w.k[1] = 3, p.w.k[2] = 3;
  p.w.s[0] = 1, p.w.s[1] = 1, p.w.s[2] = 1, p.w.d[0] = 1, p.w.d[1] = 1, p.w.d[2] = 1;
  p.w.out[0] = 1, p.w.out[1] = H, p.w.out[2] = H;
  return p;
}

TEST_CASE("the few-channel direct path takes up to 16 input channels for any window",
          "[codegen_cpu]") {
  // 8 -> 32 channels, 3x3 stride 1 on 128x128 (the lowering checks it before Winograd, which
  // it beats there); SqueezeNet's expand3x3, 16 -> 64 at 55x55, is Winograd's (session 45).
  onnxc_k::ConvParams p = conv3x3_params(8, 32, 128);
  CHECK(onnxc_k::conv_few_supported(p, 4));
  CHECK(onnxc_k::conv_few_preferred(p));
  CHECK_FALSE(onnxc_k::conv_few_supported(p, 8)); // float only
  p = conv3x3_params(16, 16, 128); // 16 output channels: direct
  CHECK(onnxc_k::conv_few_preferred(p));
  p = conv3x3_params(16, 64, 55);
  REQUIRE(onnxc_k::conv_few_supported(p, 4));
  REQUIRE(onnxc_k::conv_wino_supported(p));
  CHECK_FALSE(onnxc_k::conv_few_preferred(p));
  CHECK(onnxc_k::conv_few_preferred(p, false)); // Winograd off (or W not constant): direct
  p.gemm_mr = 6; // AVX2 / NEON tiles: Winograd needs 32 input channels there, direct it is
  CHECK(onnxc_k::conv_few_preferred(p));
  p.gemm_mr = 0, p.w.s[1] = 2, p.w.s[2] = 2, p.w.out[1] = 28, p.w.out[2] = 28; // strided
  CHECK(onnxc_k::conv_few_preferred(p));
  p = conv3x3_params(17, 64, 55);
  CHECK(onnxc_k::conv_few_supported(p, 4));
  CHECK_FALSE(onnxc_k::conv_few_preferred(p));
  p = conv3x3_params(16, 64, 55);
  p.C = 12, p.w.k[1] = 4, p.w.k[2] = 5; // 240 taps
  CHECK(onnxc_k::conv_few_supported(p, 4));
  p.C = 16, p.w.k[1] = 5, p.w.k[2] = 5; // 400 taps: W pre-packed (kFewGatherTaps: lowering)
  CHECK(onnxc_k::conv_few_supported(p, 4));
  CHECK(onnxc_k::conv_few_preferred(p));
  p.C = 48; // 1200 taps
  CHECK_FALSE(onnxc_k::conv_few_supported(p, 4));
  p.C = 16;
  p.w.k[1] = 3, p.w.k[2] = 3, p.G = 2; // grouped
  CHECK_FALSE(onnxc_k::conv_few_supported(p, 4));
}

TEST_CASE("Direct phase rows take more channels for few outputs or strided windows",
          "[codegen_cpu]") {
  // 32 -> 16 3x3 at 64x64 (Winograd's products would have one vector of columns): direct;
  // U-Net's 32 -> 32 at 128x128 and 64 -> 64 go to Winograd (session 45).
  onnxc_k::ConvParams p = conv3x3_params(32, 16, 64);
  REQUIRE(onnxc_k::conv_few_supported(p, 4));
  CHECK(onnxc_k::conv_few_preferred(p));
  p.w.k[1] = 5, p.w.k[2] = 5, p.w.out[1] = 60, p.w.out[2] = 60, p.M = 32; // 5x5: no Winograd
  REQUIRE(onnxc_k::conv_few_supported(p, 4));
  CHECK(onnxc_k::conv_few_preferred(p));
  p = conv3x3_params(32, 32, 128);
  CHECK_FALSE(onnxc_k::conv_few_preferred(p));
  p.M = 64;
  CHECK_FALSE(onnxc_k::conv_few_preferred(p));
  p.C = 128, p.M = 128, p.w.s[1] = 2, p.w.s[2] = 2, p.w.out[1] = 64, p.w.out[2] = 64;
  REQUIRE(onnxc_k::conv_few_supported(p, 4)); // 1152 taps: the most
  CHECK(onnxc_k::conv_few_preferred(p));      // stride 2: direct instead of im2col
  p.gemm_mr = 6;                              // AVX2 / NEON tiles: only up to 16 channels
  CHECK_FALSE(onnxc_k::conv_few_preferred(p));
  p.gemm_mr = 0, p.C = 129;
  CHECK_FALSE(onnxc_k::conv_few_supported(p, 4));
  p.C = 64, p.w.k[1] = 1, p.w.k[2] = 1, p.w.s[1] = 1, p.w.s[2] = 1, p.M = 16; // 1x1: the GEMM
  CHECK_FALSE(onnxc_k::conv_few_preferred(p));
  p.C = 16;
  CHECK(onnxc_k::conv_few_preferred(p));
}

TEST_CASE("Strided convs from 17-512 channels run on output-channel vectors", "[codegen_cpu]") {
  // ResNet-50's layer2.0 conv2: 128 -> 128 3x3 stride 2, 56x56 -> 28x28 (3 tiles of 10 pixels).
  onnxc_k::ConvParams p = conv3x3_params(128, 128, 56);
  p.w.s[1] = 2, p.w.s[2] = 2, p.w.p[1] = 1, p.w.p[2] = 1, p.w.out[1] = 28, p.w.out[2] = 28;
  REQUIRE(onnxc_k::conv_cv_supported(p, 4));
  CHECK(onnxc_k::conv_cv_preferred(p));
  CHECK(onnxc_k::cv_tile_px(p) == 10);
  CHECK(onnxc_k::cv_segments(p) == 3);
  CHECK(onnxc_k::cv_rows(p) == 57);
  CHECK(onnxc_k::cv_cols(p) == 61); // 30 pixels' windows: the last tile reads past the row
  CHECK_FALSE(onnxc_k::conv_cv_supported(p, 8)); // float only
  p.w.out[2] = 14;
  CHECK(onnxc_k::cv_tile_px(p) == 7);
  p.w.out[2] = 7;
  CHECK(onnxc_k::cv_tile_px(p) == 7);
  p.w.out[2] = 56;
  CHECK(onnxc_k::cv_tile_px(p) == 12);
  p.w.out[2] = 15;
  CHECK(onnxc_k::cv_tile_px(p) == 8);
  CHECK(onnxc_k::cv_item_halves(p) == 1);
  CHECK(onnxc_k::cv_item_blocks(p) == 4);
  p.gemm_mr = 6; // AVX2 / NEON tiles: half blocks of 16 channels per item
  CHECK(onnxc_k::conv_cv_preferred(p));
  CHECK(onnxc_k::cv_item_halves(p) == 2);
  CHECK(onnxc_k::cv_item_blocks(p) == 8);
  p.M = 40; // two blocks, three halves (the last of 8 channels)
  CHECK(onnxc_k::cv_item_blocks(p) == 3);
  p.M = 128;
  p.gemm_mr = 2; // SSE / ARMv7 tiles: not measured, the phase rows or im2col
  CHECK_FALSE(onnxc_k::conv_cv_preferred(p));
  p.gemm_mr = 0, p.w.s[1] = 1, p.w.s[2] = 1; // stride 1: Winograd or the phase rows
  CHECK_FALSE(onnxc_k::conv_cv_preferred(p));
  p.gemm_mr = 6;
  CHECK_FALSE(onnxc_k::conv_cv_preferred(p));
  p.gemm_mr = 0;
  {
    // stride 1 where Winograd leaves the conv to im2col (ResNet's 512 -> 512 at 7x7: 16 tiles,
    // a 16 MB U): output-channel vectors with 32 vector registers, also with a fused residual
    onnxc_k::ConvParams q = conv3x3_params(512, 512, 7);
    q.has_residual = 1;
    REQUIRE_FALSE(onnxc_k::conv_wino_preferred(q, 4));
    CHECK(onnxc_k::conv_cv_supported(q, 4));
    CHECK(onnxc_k::conv_cv_preferred(q));
    q.gemm_mr = 6; // 16 registers (AVX2): flat tiles in chunks of channels (cv_flat_chunk)
    CHECK(onnxc_k::conv_cv_preferred(q));
    CHECK(onnxc_k::cv_flat_chunk(q) == 57); // 288 KiB a half block: 9 chunks of 32 KiB
    q.gemm_mr = 2; // 4-float vectors: im2col
    CHECK_FALSE(onnxc_k::conv_cv_preferred(q));
    q.gemm_mr = 0, q.N = 4; // 64 tiles: Winograd
    CHECK_FALSE(onnxc_k::conv_cv_preferred(q));
  }
  p.w.s[1] = 2, p.w.s[2] = 2;
  p.C = 16; // the phase-row path's
  CHECK_FALSE(onnxc_k::conv_cv_supported(p, 4));
  p.C = 128;
  // more padded input (128 x 57 x 33) than W (128 x 9 x 128): one band of rows per thread
  CHECK(onnxc_k::cv_bands(p, 1) == 1);
  CHECK(onnxc_k::cv_bands(p, 2) == 2);
  CHECK(onnxc_k::cv_band_rows(p, 2) == 14);
  CHECK(onnxc_k::cv_bands(p, 64) == 28); // at most one band per output row
  p.w.out[1] = 13;
  CHECK(onnxc_k::cv_band_rows(p, 6) == 3); // 3, 3, 3, 3, 1, 0
  p.w.out[1] = 28;
  p.M = 1024; // more W than input: the threads split W's blocks
  CHECK(onnxc_k::cv_bands(p, 2) == 1);
  p.M = 128;
  p.C = 512; // ResNet-50's layer4.0 conv2 (576 KiB of W per block)
  CHECK(onnxc_k::conv_cv_supported(p, 4));
  p.C = 513; // W's block no longer in L2: im2col
  CHECK_FALSE(onnxc_k::conv_cv_supported(p, 4));
  p.C = 128, p.M = 24; // less than one block
  CHECK_FALSE(onnxc_k::conv_cv_supported(p, 4));
  p.M = 128, p.has_residual = 1; // added as the tiles are stored
  CHECK(onnxc_k::conv_cv_supported(p, 4));
  p.has_residual = 0, p.has_in_scale = 1; // only the GEMM algos scale W
  CHECK_FALSE(onnxc_k::conv_cv_supported(p, 4));
}

TEST_CASE("Winograd leaves few tiles with large transformed weights to im2col", "[codegen_cpu]") {
  // ResNet-50's layer4: 512 -> 512 channels on a 7x7 plane, 16 tiles per image; U is 16 MB.
  onnxc_k::ConvParams p{};
  p.N = 1, p.G = 1, p.C = 512, p.M = 512;
  p.w.in[0] = 1, p.w.k[0] = 1, p.w.k[1] = 3, p.w.k[2] = 3;
  p.w.s[1] = 1, p.w.s[2] = 1, p.w.d[1] = 1, p.w.d[2] = 1;
  p.w.out[0] = 1, p.w.out[1] = 7, p.w.out[2] = 7;
  p.gemm_mr = 8;
  REQUIRE(onnxc_k::conv_wino_supported(p));
  CHECK_FALSE(onnxc_k::conv_wino_preferred(p, 4));
  p.N = 2; // 32 tiles
  CHECK(onnxc_k::conv_wino_preferred(p, 4));
  p.N = 1, p.w.out[1] = 14, p.w.out[2] = 14; // 49 tiles
  CHECK(onnxc_k::conv_wino_preferred(p, 4));
  p.w.out[1] = 7, p.w.out[2] = 7, p.C = 128, p.M = 128; // U 1 MB
  CHECK(onnxc_k::conv_wino_preferred(p, 4));
  p.C = 512, p.M = 512, p.gemm_mr = 6; // AVX2 / NEON tiles alike
  CHECK_FALSE(onnxc_k::conv_wino_preferred(p, 4));
}

TEST_CASE("Winograd makes U at run time from W's taps when U is large", "[codegen_cpu]") {
  // ResNet-50's layer4 at batch 4: U 16 MiB (16/9 of W) is not stored; W's taps are.
  onnxc_k::ConvParams p{};
  p.N = 4, p.G = 1, p.C = 512, p.M = 512, p.algo = onnxc_k::kConvWinograd, p.w_packed = 1;
  p.w.in[0] = 1, p.w.k[0] = 1, p.w.k[1] = 3, p.w.k[2] = 3;
  p.w.s[1] = 1, p.w.s[2] = 1, p.w.d[1] = 1, p.w.d[2] = 1;
  p.w.out[0] = 1, p.w.out[1] = 7, p.w.out[2] = 7;
  p.gemm_mr = 8;
  REQUIRE(onnxc_k::conv_wino_preferred(p, 4));
  CHECK(onnxc_k::wino_run_time_u(p, 4));
  const int64_t base = onnxc_k::conv_scratch_bytes(p, 4);
  p.C = 256, p.M = 256; // layer3: U 4 MiB, made at run time too
  CHECK(onnxc_k::wino_run_time_u(p, 4));
  p.M = 240; // U under 4 MiB: stored
  CHECK_FALSE(onnxc_k::wino_run_time_u(p, 4));
  CHECK(onnxc_k::wino_run_time_u(p, 8)); // double: 7.5 MiB
  p.C = 512, p.M = 512, p.w_packed = 0; // W not a constant: nothing to store either way
  CHECK_FALSE(onnxc_k::wino_run_time_u(p, 4));
  p.w_packed = 1, p.N = 1, p.w.out[1] = 56, p.w.out[2] = 56; // blocked: U read per block, kept
  REQUIRE(onnxc_k::wino_blocked(p, 4));
  CHECK_FALSE(onnxc_k::wino_run_time_u(p, 4));
  // the scratch holds one panel of U (C x NR) per lane besides V and P
  p.N = 4, p.w.out[1] = 7, p.w.out[2] = 7;
  const int64_t vp = 16 * (onnxc_k::wino_v_stride(p, 4) + onnxc_k::wino_p_stride(p, 4)) * 4;
  CHECK(base == vp + onnxc_k::kWinoLanes * 512 * onnxc_k::gemm::panel_width(4) * 4);
}

TEST_CASE("Winograd F(4x4, 3x3) takes enough tiles with U made at run time or small",
          "[codegen_cpu]") {
  // ResNet's 64-channel 56x56 convs: 196 4x4 tiles, U 576 KiB (stored, blocked).
  onnxc_k::ConvParams p{};
  p.N = 1, p.G = 1, p.C = 64, p.M = 64;
  p.w.in[0] = 1, p.w.k[0] = 1, p.w.k[1] = 3, p.w.k[2] = 3;
  p.w.s[1] = 1, p.w.s[2] = 1, p.w.d[1] = 1, p.w.d[2] = 1, p.w.p[1] = 1, p.w.p[2] = 1;
  p.w.out[0] = 1, p.w.out[1] = 56, p.w.out[2] = 56;
  p.gemm_mr = 8;
  REQUIRE(onnxc_k::conv_wino_preferred(p, 4));
  CHECK(onnxc_k::conv_wino4_preferred(p, 4));
  onnxc_k::ConvParams q = p;
  q.algo = onnxc_k::kConvWinograd4, q.w_packed = 1;
  CHECK(onnxc_k::wino_m(q) == 4);
  CHECK(onnxc_k::wino_nx(q) == 36);
  CHECK(onnxc_k::wino_tiles(q) == 196);
  CHECK(onnxc_k::wino_u_bytes(q, 4) == 36 * 64 * 64 * 4);
  CHECK(onnxc_k::wino_blocked(q, 4));
  CHECK_FALSE(onnxc_k::wino_run_time_u(q, 4)); // blocked: every block reads the stored U
  CHECK(onnxc_k::wino_blocks(q, 4).lane_elems ==
        36 * (onnxc_k::wino_blocks(q, 4).v_stride + onnxc_k::wino_blocks(q, 4).p_stride));
  p.gemm_mr = 6; // AVX2 / NEON tiles alike
  CHECK(onnxc_k::conv_wino4_preferred(p, 4));
  p.gemm_mr = 2; // SSE / ARMv7 tiles: not measured, F(2x2, 3x3)
  CHECK_FALSE(onnxc_k::conv_wino4_preferred(p, 4));
  p.gemm_mr = 8, p.C = 128, p.M = 128, p.w.out[1] = 28, p.w.out[2] = 28; // 49 tiles, U 2.25 MiB
  CHECK_FALSE(onnxc_k::conv_wino4_preferred(p, 4));
  p.N = 4; // 196 tiles, unblocked: U made at run time from W's taps
  REQUIRE(onnxc_k::conv_wino4_preferred(p, 4));
  q = p, q.algo = onnxc_k::kConvWinograd4, q.w_packed = 1;
  CHECK_FALSE(onnxc_k::wino_blocked(q, 4));
  CHECK(onnxc_k::wino_run_time_u(q, 4));
  CHECK(onnxc_k::wino_rt_items(q, 4) == 36 * onnxc_k::gemm::ceil_div(128, onnxc_k::gemm::panel_width(4)));
  p.N = 1, p.C = 32, p.M = 48, p.w.out[1] = 27, p.w.out[2] = 25; // 49 tiles, U 216 KiB stored
  CHECK(onnxc_k::conv_wino4_preferred(p, 4));
  p.w.out[1] = 20, p.w.out[2] = 28; // 35 tiles
  CHECK(onnxc_k::conv_wino4_preferred(p, 4));
  p.w.out[1] = 20, p.w.out[2] = 24; // 30 tiles: too few
  CHECK_FALSE(onnxc_k::conv_wino4_preferred(p, 4));
}

TEST_CASE("Winograd's tap weights share U's packed layout", "[codegen_cpu]") {
  // The kernel combines W's taps element by element into U_xi (templates/cpu/conv_winograd.h
  // wino_u_panel): each element of the taps must hold the (c, m) that U has there.
  onnxc_k::ConvParams p{};
  p.N = 1, p.G = 1, p.C = 5, p.M = 50, p.gemm_mr = 6; // a partial last panel, AVX2 sub-panels
  const int64_t ue = onnxc_k::wino_u_elems(p, 4);
  std::vector<float> w(size_t(p.M * p.C * 9)), taps(size_t(9 * ue)), u(size_t(16 * ue));
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = float(int(i * 37 % 101) - 50) / 32.0f;
  onnxc_k::conv_wino_tap_weights(p, w.data(), taps.data());
  onnxc_k::conv_wino_weights(p, w.data(), u.data());
  const double G[4][3] = {{1, 0, 0}, {.5, .5, .5}, {.5, -.5, .5}, {0, 0, 1}};
  int64_t nonzero = 0;
  for (int64_t e = 0; e < ue; ++e)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        double want = 0;
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            want += G[a][i] * G[b][j] * taps[size_t((i * 3 + j) * ue + e)];
        REQUIRE(u[size_t((a * 4 + b) * ue + e)] == Approx(want).margin(1e-6));
        nonzero += want != 0;
      }
  CHECK(nonzero > 16 * p.M * p.C / 2); // every (c, m) is somewhere
}

TEST_CASE("Winograd runs blocked for large scratch, or medium scratch with a small U",
          "[codegen_cpu]") {
  onnxc_k::ConvParams p{};
  p.N = 1, p.G = 1;
  p.w.in[0] = 1, p.w.k[0] = 1, p.w.k[1] = 3, p.w.k[2] = 3;
  p.w.s[1] = 1, p.w.s[2] = 1, p.w.d[1] = 1, p.w.d[2] = 1;
  p.w.out[0] = 1, p.w.out[1] = 56, p.w.out[2] = 56; // 784 tiles
  p.C = 64, p.M = 64; // 6.4 MB of V and P, U 256 KB
  CHECK(onnxc_k::wino_blocked(p, 4));
  p.C = 128, p.M = 128; // 12.8 MB
  CHECK(onnxc_k::wino_blocked(p, 4));
  p.w.out[1] = 28, p.w.out[2] = 28; // 196 tiles: 3.2 MB, U 1 MB
  CHECK_FALSE(onnxc_k::wino_blocked(p, 4));
  p.C = 64, p.M = 64; // 1.6 MB
  CHECK_FALSE(onnxc_k::wino_blocked(p, 4));
}

TEST_CASE("pointwise convs read B in place: aligned rows, or few output channels",
          "[codegen_cpu]") {
  onnxc_k::ConvParams p{};
  p.N = 1, p.G = 1, p.C = 128, p.algo = onnxc_k::kConvPointwise;
  p.w.in[0] = 1, p.w.k[0] = 1, p.w.k[1] = 1, p.w.k[2] = 1;
  p.w.out[0] = 1, p.w.out[1] = 55, p.w.out[2] = 55; // rows of 12,100 bytes
  p.M = 16;
  p.gemm_mr = 0;
  CHECK(onnxc_k::conv_b_in_place(p, 4));
  p.gemm_mr = 8;
  CHECK(onnxc_k::conv_b_in_place(p, 4));
  p.M = 64;
  CHECK(onnxc_k::conv_b_in_place(p, 4));
  p.M = 65;
  CHECK_FALSE(onnxc_k::conv_b_in_place(p, 4));
  p.M = 16, p.gemm_mr = 6; // AVX2 / NEON tiles: few output channels too
  CHECK(onnxc_k::conv_b_in_place(p, 4));
  p.M = 65;
  CHECK_FALSE(onnxc_k::conv_b_in_place(p, 4));
  p.M = 256, p.w.out[1] = 56, p.w.out[2] = 56; // 12,544 bytes: 64-byte multiple
  CHECK(onnxc_k::conv_b_in_place(p, 4));
  p.M = 16, p.gemm_mr = 8, p.w.out[1] = 32, p.w.out[2] = 32; // 4,096 bytes: same L1 sets
  CHECK_FALSE(onnxc_k::conv_b_in_place(p, 4));
  p.algo = onnxc_k::kConvIm2col, p.w.out[1] = 55, p.w.out[2] = 55;
  CHECK_FALSE(onnxc_k::conv_b_in_place(p, 4));
}

TEST_CASE("a compiled .so runs through the generic ABI", "[codegen_cpu]") {
  TinyModel m;
  TempDirectory dir;
  fs::path so = dir.path / "libtiny.so";
  compile_cpu(m.plan, options(EmitKind::SharedLibrary, ""), so.string()); // host target
  REQUIRE(fs::exists(so));
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);

  void *lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  INFO((lib ? "" : dlerror()));
  REQUIRE(lib);
  std::unique_ptr<void, int (*)(void *)> closer(lib, dlclose);
  CHECK(sym<uint32_t (*)()>(lib, "onnxc_abi_version")() == ONNXC_ABI_VERSION);
  CHECK(std::string(sym<const char *(*)()>(lib, "onnxc_model_name")()) == "tiny");
  CHECK(sym<int32_t (*)()>(lib, "onnxc_num_inputs")() == 1);
  CHECK(sym<int32_t (*)()>(lib, "onnxc_num_outputs")() == 1);
  CHECK(sym<uint64_t (*)()>(lib, "onnxc_arena_size")() == 128);
  onnxc_tensor_info info{};
  REQUIRE(sym<onnxc_status (*)(int32_t, onnxc_tensor_info *)>(lib, "onnxc_input_info")(0, &info) ==
          ONNXC_OK);
  CHECK(std::string(info.name) == "x");
  CHECK(info.rank == 2);
  CHECK(info.shape[1] == 3);
  CHECK(info.size_bytes == 24);
  // Model-specific aliases are exported; internals are not.
  CHECK(dlsym(lib, "tiny_create") == dlsym(lib, "onnxc_create"));
  CHECK(dlsym(lib, "tiny_run_buffers") != nullptr);
  CHECK(dlsym(lib, "onnxc__model_run") == nullptr);
  CHECK(dlsym(lib, "onnxc_k_add_f32") == nullptr);
  CHECK(dlsym(lib, "onnxc_parallel_for") == nullptr);

  onnxc_context *ctx = nullptr;
  REQUIRE(sym<onnxc_status (*)(onnxc_context **)>(lib, "onnxc_create")(&ctx) == ONNXC_OK);
  float x[6] = {0, 1, -1, 0.5f, -0.5f, 2}, y[6] = {};
  const void *ins[] = {x};
  void *outs[] = {y};
  auto run = sym<onnxc_status (*)(onnxc_context *, const void *const *, void *const *)>(
      lib, "onnxc_run_buffers");
  CHECK(run(ctx, ins, outs) == ONNXC_OK);
  for (int i = 0; i < 6; ++i)
    CHECK(y[i] == Approx(std::exp(x[i] + 0.25f * i)));
  sym<void (*)(onnxc_context *)>(lib, "onnxc_destroy")(ctx);
}

TEST_CASE("aarch64 shared library and object are produced on any host", "[codegen_cpu]") {
  TinyModel m;
  TempDirectory dir;
  fs::path so = dir.path / "libtiny.so", obj = dir.path / "tiny.o";
  compile_cpu(m.plan, options(EmitKind::SharedLibrary, "aarch64-unknown-linux-gnu"), so.string());
  CHECK(elf_type_machine(read_file(so)) == std::pair(kEtDyn, kEmAArch64));
  compile_cpu(m.plan, options(EmitKind::Object, "aarch64-linux-gnu"), obj.string());
  CHECK(elf_type_machine(read_file(obj)) == std::pair(kEtRel, kEmAArch64));
}

TEST_CASE("armv7 hard-float shared library is produced on any host", "[codegen_cpu]") {
  auto triples = supported_cpu_triples();
  if (std::find(triples.begin(), triples.end(), "armv7-unknown-linux-gnueabihf") == triples.end()) {
    WARN("not tested: onnxc was built without armv7-unknown-linux-gnueabihf");
    return;
  }
  TinyModel m;
  TempDirectory dir;
  fs::path so = dir.path / "libtiny.so";
  compile_cpu(m.plan, options(EmitKind::SharedLibrary, "armv7-unknown-linux-gnueabihf"),
              so.string());
  std::string bytes = read_file(so);
  CHECK(elf_type_machine(bytes) == std::pair(kEtDyn, kEmArm));
  CHECK(bytes[4] == 1); // ELFCLASS32
  uint32_t flags = 0;   // e_flags of a 32-bit ELF header: EF_ARM_ABI_FLOAT_HARD (0x400)
  std::memcpy(&flags, bytes.data() + 36, sizeof flags);
  CHECK((flags & 0x400u) != 0);
}

TEST_CASE("object, assembly and LLVM IR emission", "[codegen_cpu]") {
  TinyModel m;
  TempDirectory dir;
  compile_cpu(m.plan, options(EmitKind::Object), (dir.path / "t.o").string());
  CHECK(elf_type_machine(read_file(dir.path / "t.o")) == std::pair(kEtRel, kEmX86_64));
  CpuCodegenOptions asm_opts = options(EmitKind::Assembly);
  asm_opts.opt_level = 0;
  compile_cpu(m.plan, asm_opts, (dir.path / "t.s").string());
  CHECK(read_file(dir.path / "t.s").find("onnxc_run_buffers:") != std::string::npos);
  compile_cpu(m.plan, options(EmitKind::LlvmIr), (dir.path / "t.ll").string());
  std::string ir = read_file(dir.path / "t.ll");
  CHECK(ir.find("@tiny_create = alias") != std::string::npos);
  CHECK(ir.find("define internal") != std::string::npos);
}

TEST_CASE("profile builds emit per-node clock reads and metadata - plain builds neither",
          "[codegen_cpu]") {
  TinyModel m;
  TempDirectory dir;
  CpuCodegenOptions opts = options(EmitKind::LlvmIr);
  opts.opt_level = 0;
  compile_cpu(m.plan, opts, (dir.path / "plain.ll").string());
  std::string plain = read_file(dir.path / "plain.ll");
  CHECK(plain.find("call i64 @onnxc_rt_profile_node") == std::string::npos);
  CHECK(plain.find("onnxc.profile_nodes") == std::string::npos);
  opts.profile = true;
  compile_cpu(m.plan, opts, (dir.path / "prof.ll").string());
  std::string prof = read_file(dir.path / "prof.ll");
  CHECK(prof.find("call i64 @onnxc_rt_profile_node") != std::string::npos);
  CHECK(prof.find("onnxc.profile_nodes") != std::string::npos);
  CHECK(prof.find("c\"Exp\\00\"") != std::string::npos);
  CHECK(prof.find("c\"2x3, 2x3\\00\"") != std::string::npos);
}

TEST_CASE("weights file: the library runs with the file and refuses to run without it",
          "[codegen_cpu]") {
  TinyModel m;
  TempDirectory dir;
  fs::path so = dir.path / "libtiny.so", weights = dir.path / "tiny.weights";
  CpuCodegenOptions o = options(EmitKind::SharedLibrary, "");
  o.weights_file = weights.string();
  CpuArtifactInfo info = compile_cpu(m.plan, o, so.string());
  CHECK(info.measured);
  CHECK(info.code_bytes > 0);
  CHECK(info.stack_bytes > 0);
  std::string image = read_file(weights);
  REQUIRE(image.size() == 64 + 128);
  CHECK(image.compare(0, 8, std::string("ONNXCWT\0", 8)) == 0);
  CHECK(image.compare(32, 5, std::string("tiny\0", 5)) == 0);
  float w5;
  std::memcpy(&w5, image.data() + 64 + 64 + 5 * 4, 4); // weight 'w' at offset 64, element 5
  CHECK(w5 == 1.25f);
  std::unique_ptr<void, int (*)(void *)> lib(dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL), dlclose);
  REQUIRE(lib);
  onnxc_context *ctx = nullptr;
  CHECK(sym<onnxc_status (*)(onnxc_context **)>(lib.get(), "onnxc_create")(&ctx) ==
        ONNXC_ERROR_BAD_WEIGHTS);
  auto create =
      sym<onnxc_status (*)(const char *, onnxc_context **)>(lib.get(), "tiny_create_with_weights");
  REQUIRE(create(weights.c_str(), &ctx) == ONNXC_OK);
  float x[6] = {0, 1, 2, 3, 4, 5}, y[6] = {};
  const void *ins[] = {x};
  void *outs[] = {y};
  auto run = sym<onnxc_status (*)(onnxc_context *, const void *const *, void *const *)>(
      lib.get(), "onnxc_run_buffers");
  CHECK(run(ctx, ins, outs) == ONNXC_OK);
  for (int i = 0; i < 6; ++i)
    CHECK(y[i] == Approx(std::exp(x[i] + 0.25f * i)));
  sym<void (*)(onnxc_context *)>(lib.get(), "onnxc_destroy")(ctx);
}

TEST_CASE("static archive: GNU ar format whose symbol table lists only NAME_*", "[codegen_cpu]") {
  TinyModel m;
  TempDirectory dir;
  fs::path a = dir.path / "libtiny.a";
  CpuArtifactInfo info = compile_cpu(m.plan, options(EmitKind::StaticLibrary), a.string());
  CHECK(info.code_bytes > 0);
  std::string bytes = read_file(a);
  REQUIRE(bytes.compare(0, 8, "!<arch>\n") == 0);
  CHECK(bytes.find(std::string("tiny_run_buffers\0", 17)) != std::string::npos);
  CHECK(bytes.find(std::string("\0onnxc_run_buffers\0", 19)) == std::string::npos);
  CHECK(bytes.find("tiny.o/") != std::string::npos);
}

TEST_CASE("codegen errors leave no output file", "[codegen_cpu]") {
  TinyModel m;
  TempDirectory dir;
  fs::path out = dir.path / "libtiny.so";
  SECTION("unsupported target") {
    CHECK_THROWS_WITH(compile_cpu(m.plan,
                                  options(EmitKind::SharedLibrary, "riscv64-unknown-linux-gnu"),
                                  out.string()),
                      Catch::Contains("x86_64-unknown-linux-gnu") && Catch::Contains("riscv64"));
  }
  SECTION("unknown CPU") {
    CpuCodegenOptions o = options(EmitKind::SharedLibrary);
    o.target.cpu = "no-such-cpu";
    CHECK_THROWS_WITH(compile_cpu(m.plan, o, out.string()), Catch::Contains("no-such-cpu"));
  }
  SECTION("missing kernel") {
    m.plan.calls[1].call.kernel = "onnxc_k_no_such_kernel";
    CHECK_THROWS_WITH(compile_cpu(m.plan, options(EmitKind::SharedLibrary), out.string()),
                      Catch::Contains("onnxc_k_no_such_kernel"));
  }
  SECTION("weights file with LLVM IR") {
    CpuCodegenOptions o = options(EmitKind::LlvmIr);
    o.weights_file = (dir.path / "tiny.weights").string();
    CHECK_THROWS_WITH(compile_cpu(m.plan, o, (dir.path / "tiny.ll").string()),
                      Catch::Contains("--weights-file needs --emit so, obj or static"));
  }
  SECTION("tensor without storage") {
    m.plan.calls[0].call.args[2]->storage = Storage::Unassigned;
    CHECK_THROWS_WITH(compile_cpu(m.plan, options(EmitKind::Object), out.string()),
                      Catch::Contains("'t'"));
  }
  CHECK(fs::is_empty(dir.path));
}
