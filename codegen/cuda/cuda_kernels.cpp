// CUDA C++ kernels for regions, one per region, specialised on constant shapes.
#include "codegen/cuda/cuda_kernels.h"

#include "compiler/ir/error.h"
#include "compiler/ops/nn/nn_util.h"
#include "compiler/ops/op_util.h"
#include "compiler/passes/lower_regions.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace onnxc {
namespace {

using Dims = std::vector<int64_t>;

constexpr int64_t kBlock = 256;

/// A node the CUDA kernels do not cover: its region runs on the host (CudaKernels::lower).
class CudaUnsupported : public Error {
public:
  using Error::Error;
};

[[noreturn]] void unsupported(const Node &n, const std::string &what) {
  throw CudaUnsupported(fmt::format("{}: {} on the CUDA target yet", n.describe(), what));
}

/// The C type of a dtype in device code; throws for the ones the CUDA target lacks.
std::string ctype(const Node &n, DType t) {
  switch (t) {
  case DType::Float:
    return "float";
  case DType::Double:
    return "double";
  case DType::Int8:
    return "signed char";
  case DType::Uint8:
  case DType::Bool:
    return "unsigned char";
  case DType::Int16:
    return "short";
  case DType::Uint16:
    return "unsigned short";
  case DType::Int32:
    return "int";
  case DType::Uint32:
    return "unsigned int";
  case DType::Int64:
    return "long long";
  case DType::Uint64:
    return "unsigned long long";
  default:
    unsupported(n, fmt::format("element type {} is not supported", dtype_name(t)));
  }
}

bool is_float(DType t) { return t == DType::Float || t == DType::Double; }

/// A float literal of type T ("1.5f" / "1.5").
std::string lit(double v, const std::string &t) {
  std::ostringstream o;
  o.precision(17);
  o << v;
  std::string s = o.str();
  if (s == "inf" || s == "-inf" || s == "nan")
    return t == "float"
               ? (s == "nan" ? "__int_as_float(0x7fc00000)"
                             : std::string(s[0] == '-' ? "-" : "") + "__int_as_float(0x7f800000)")
               : (s == "nan" ? "__longlong_as_double(0x7ff8000000000000LL)"
                             : std::string(s[0] == '-' ? "-" : "") +
                                   "__longlong_as_double(0x7ff0000000000000LL)");
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return t == "float" ? s + "f" : t == "double" ? s : "(" + t + ")(" + s + ")";
}

std::string str(int64_t v) {
  return std::to_string(v) + (v > 2147483647 || v < -2147483647 ? "LL" : "");
}

/// Index type of a kernel over `n` elements.
/// Index type of a grid-stride loop over `n` elements: int unless n plus the grid's stride (at
/// most 2^28 threads) could pass 2^31.
std::string idx(int64_t n) {
  return n + (int64_t{1} << 28) < (int64_t{1} << 31) ? "int" : "long long";
}

int64_t blocks_for(int64_t n) {
  return std::max<int64_t>(1, std::min<int64_t>((n + kBlock - 1) / kBlock, 1 << 20));
}

/// Expression of the offset into a tensor of `in` dims broadcast to `out` for linear output
/// index `i`.
std::string bcast_offset(const Dims &in, const Dims &out, const std::string &i) {
  if (product(in) == product(out) &&
      (in == out || product(in) <= 1 || [&] { // same dims but leading ones
        Dims a, b;
        for (int64_t d : in)
          if (d != 1)
            a.push_back(d);
        for (int64_t d : out)
          if (d != 1)
            b.push_back(d);
        return a == b;
      }()))
    return product(in) <= 1 ? "0" : i;
  if (product(in) <= 1)
    return "0";
  const Dims s = broadcast_strides(in, out);
  std::string e;
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(out.size()) - 1; d >= 0; --d) {
    if (s[d] != 0 && out[d] != 1) {
      std::string c = stride == 1 ? i : "(" + i + " / " + str(stride) + ")";
      if (d > 0)
        c = "(" + c + " % " + str(out[d]) + ")";
      e += (e.empty() ? "" : " + ") + (s[d] == 1 ? c : c + " * " + str(s[d]));
    }
    stride *= out[d];
  }
  return e.empty() ? "0" : e;
}

/// Parameter list "const float *t0, ..., float *tN" for args (inputs const).
std::string params_list(const std::vector<std::pair<std::string, bool>> &ts) {
  std::string p;
  for (size_t k = 0; k < ts.size(); ++k)
    p += (k ? ", " : "") + std::string(ts[k].second ? "" : "const ") + ts[k].first + " *t" +
         std::to_string(k);
  return p;
}

std::string head(const std::string &name, const std::string &params, int64_t block = kBlock) {
  return "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(block) + ") " + name +
         "(" + params + ") {\n";
}

std::string grid_loop(const std::string &it, int64_t n) {
  return "  for (" + it + " i = blockIdx.x * (" + it + ")blockDim.x + threadIdx.x; i < " + str(n) +
         "; i += (" + it + ")gridDim.x * blockDim.x) {\n";
}

/// Unary element-wise ops for every numeric type / for float types only (templates: u_<Op>).
const std::set<std::string> kUnaryAny = {"Relu", "Abs", "Neg", "Sign", "Identity"};
const std::set<std::string> kUnaryFloat = {
    "Exp",         "Log",       "Sqrt",  "Tanh", "Erf",   "Sin",        "Cos",
    "Tan",         "Asin",      "Acos",  "Atan", "Sinh",  "Cosh",       "Asinh",
    "Acosh",       "Atanh",     "Floor", "Ceil", "Round", "Reciprocal", "Sigmoid",
    "Softplus",    "Softsign",  "Elu",   "Selu", "Celu",  "LeakyRelu",  "ThresholdedRelu",
    "HardSigmoid", "HardSwish", "Mish",  "Gelu", "Shrink"};
/// Binary ops (b_<Op>): arithmetic on every numeric type, comparisons give bool.
const std::set<std::string> kBinaryArith = {"Add", "Sub", "Mul", "Div", "Max", "Min", "Pow"};
const std::set<std::string> kBinaryCompare = {"Equal", "Less", "Greater", "LessOrEqual",
                                              "GreaterOrEqual"};
const std::set<std::string> kBinaryLogic = {"And", "Or", "Xor"};
const std::set<std::string> kBinaryBits = {"BitwiseAnd", "BitwiseOr", "BitwiseXor"};

/// The a, b attributes u_<Op> takes.
std::pair<double, double> unary_attrs(const Node &n) {
  const std::string &op = n.op_type;
  if (op == "Elu" || op == "Celu")
    return {attr_float(n, "alpha", 1.0f), 0};
  if (op == "Selu")
    return {attr_float(n, "alpha", 1.67326319217681884765625f),
            attr_float(n, "gamma", 1.05070102214813232421875f)};
  if (op == "LeakyRelu")
    return {attr_float(n, "alpha", 0.01f), 0};
  if (op == "ThresholdedRelu")
    return {attr_float(n, "alpha", 1.0f), 0};
  if (op == "HardSigmoid")
    return {attr_float(n, "alpha", 0.2f), attr_float(n, "beta", 0.5f)};
  if (op == "Shrink")
    return {attr_float(n, "lambd", 0.5f), attr_float(n, "bias", 0.0f)};
  return {0, 0};
}

/// The Act enum of templates/cuda for a fused activation name.
std::string act_enum(const FusedActivation &a) {
  if (a.op.empty())
    return "onnxc::kNone";
  static const std::map<std::string, std::string> m = {{"Relu", "kRelu"},
                                                       {"Clip", "kClip"},
                                                       {"LeakyRelu", "kLeakyRelu"},
                                                       {"Sigmoid", "kSigmoid"},
                                                       {"HardSigmoid", "kHardSigmoid"},
                                                       {"HardSwish", "kHardSwish"},
                                                       {"Silu", "kSilu"},
                                                       {"Gelu", "kGelu"},
                                                       {"GeluTanh", "kGeluTanh"}};
  auto it = m.find(a.op);
  if (it == m.end())
    fail("internal error: fused activation '{}' has no CUDA epilogue", a.op);
  return "onnxc::" + it->second;
}

Dims dims_of(const Value *v) { return v->type.static_dims(); }

/// Row-major strides.
Dims strides_of(const Dims &d) {
  Dims s(d.size(), 1);
  for (int64_t k = static_cast<int64_t>(d.size()) - 2; k >= 0; --k)
    s[k] = s[k + 1] * d[k + 1];
  return s;
}

/// "const T *" / "T *" parameter for an input / output value.
std::pair<std::string, bool> in_param(const Node &n, const Value *v) {
  return {ctype(n, v->type.dtype), false};
}
std::pair<std::string, bool> out_param(const Node &n, const Value *v) {
  return {ctype(n, v->type.dtype), true};
}

} // namespace

const char *cuda_templates_source() {
  static const char text[] =
#include "onnxc_cuda_cuh.inc"
      ;
  return text;
}

KernelCall CudaKernels::add(const std::string &base, const std::string &body,
                            std::vector<Value *> args, int64_t gx, int64_t gy, int64_t gz,
                            int64_t block) {
  const size_t index = names_.size();
  const std::string name = "onnxc_cuda_" + std::to_string(index) + "_" + base;
  std::string text = body;
  const std::string placeholder = "KERNEL_NAME";
  for (size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder))
    text.replace(at, placeholder.size(), name);
  names_.push_back(name);
  bodies_.push_back(std::move(text));
  KernelCall call;
  call.kernel = kCudaLaunchKernel;
  call.params = {static_cast<int64_t>(index),      gx, gy, gz, block, 1, 1, 0,
                 static_cast<int64_t>(args.size())};
  call.args = std::move(args);
  return call;
}

std::string CudaKernels::source() const {
  std::string s = "// generated by onnxc (codegen/cuda)\n";
  s += cuda_templates_source();
  for (const std::string &b : bodies_)
    s += "\n" + b;
  return s;
}

void CudaKernels::drop_noop_copies(ExecutionPlan &plan) const {
  for (PlannedCall &pc : plan.calls) {
    if (pc.call.kernel != kCudaLaunchKernel || pc.call.params.empty())
      continue;
    const int64_t k = pc.call.params[kLaunchKernel];
    if (k < 0 || !std::binary_search(copies_.begin(), copies_.end(), static_cast<size_t>(k)))
      continue;
    const Value *src = pc.call.args[0], *dst = pc.call.args[1];
    if (src->storage == dst->storage && src->storage == Storage::Arena &&
        src->offset == dst->offset)
      pc.call.params[kLaunchKernel] = -1;
  }
}

namespace {

/// One kernel for a node: its body (named KERNEL_NAME), tensors, grid and block.
struct Launch {
  std::string body;
  std::vector<Value *> args;
  int64_t gx = 1, gy = 1, gz = 1, block = kBlock;
  std::vector<std::pair<int, int>> inplace{};
  bool copy = false;   ///< a plain copy of args[0] into args[1]
  int64_t scratch = 0; ///< bytes of the scratch buffer, passed after args
};

/// The SMs of the large GPU the tile choices are sized for (an H100 / H200: 132); the kernels
/// are correct on any GPU, only their occupancy differs.
constexpr int64_t kAssumedSms = 132;

/// Split-K for a product of `tiles` 64x64 tiles over K (templates/cuda gemm_tile): slices so
/// that about two blocks per SM of a large GPU (132 SMs) run, each over at least 64 of K.
/// With more than one slice, the workspace is the kernel's last parameter (the call's scratch).
struct SplitK {
  int64_t s = 1;
  std::string decl;     ///< the tile counters, before the kernel
  std::string args;     ///< gemm_tile's trailing arguments
  int64_t ws_bytes = 0; ///< the partial tiles' workspace (0: no split)
};
/// `ps` gets the workspace parameter when K is split; `t` is the element type.
SplitK split_k(int64_t tiles, int64_t K, const std::string &t,
               std::vector<std::pair<std::string, bool>> &ps) {
  SplitK r;
  // (measured on an H200, 2026-11-27: 528 or 1056 blocks ran ResNet-50 and the BERT-style
  // encoder at batch 1 no faster)
  constexpr int64_t kTargetBlocks = 2 * kAssumedSms;
  if (tiles < kTargetBlocks / 2)
    r.s = std::clamp<int64_t>((kTargetBlocks + tiles - 1) / tiles, 1,
                              std::max<int64_t>(1, std::min<int64_t>(K / 64, 32)));
  if (r.s > 1) {
    r.decl = "__device__ unsigned KERNEL_NAME_counters[" + str(tiles) + "];\n";
    r.args = ", t" + std::to_string(ps.size()) + ", KERNEL_NAME_counters";
    r.ws_bytes = tiles * r.s * 4096 * (t == "double" ? 8 : 4);
    ps.push_back({t, true});
  }
  return r;
}

bool on_tensor_cores(const std::string &t, CudaPrecision prec) {
  return t == "float" && prec != CudaPrecision::kFp32;
}

/// The call of the tile template for a product on `t` tensors, up to its "(": gemm_tile on CUDA
/// cores, or gemm_tile_tc on tensor cores for float tensors under --precision tf32 / fp16 /
/// bf16 when K is not split (sk.s 1; `big`: its 128x128 tiles). A product split over K has too
/// few tiles to fill the GPU and is bound by its loads' latency, where the CUDA cores' tile
/// measured as fast or faster (H200, 2026-11-27: ResNet-50's split 3x3 convolutions at batch 1,
/// 27 against 34 us on tensor cores).
std::string gemm_call(const std::string &t, CudaPrecision prec, const SplitK &sk, int64_t M,
                      int64_t N, int64_t K, bool a_kc, bool b_kc, bool big = false) {
  const std::string dims = ", " + str(M) + ", " + str(N) + ", " + str(K) + ", " +
                           (a_kc ? "true" : "false") + ", " + (b_kc ? "true" : "false");
  if (!on_tensor_cores(t, prec) || sk.s > 1)
    return "onnxc::gemm_tile<" + t + dims + ", " + str(sk.s) + ">(";
  const char *p = prec == CudaPrecision::kTf32   ? "onnxc::kTf32"
                  : prec == CudaPrecision::kFp16 ? "onnxc::kFp16"
                                                 : "onnxc::kBf16";
  return std::string("onnxc::gemm_tile_tc<") + p + dims + (big ? ", 128, 128" : "") + ">(";
}

/// A kernel applying `expr` (over x0..xk, each input read at its broadcast offset) to every
/// output element.
Launch elementwise(const Node &n, const std::vector<Value *> &ins, Value *out,
                   const std::string &expr) {
  const Dims od = dims_of(out);
  const int64_t count = product(od);
  std::vector<std::pair<std::string, bool>> ps;
  for (const Value *v : ins)
    ps.push_back(in_param(n, v));
  ps.push_back(out_param(n, out));
  const std::string it = idx(count);
  // 16-byte loads and stores (memory-bound: more bytes in flight per thread) when every tensor
  // has 4-byte elements and each input is the output's size or a scalar.
  bool vec = count % 4 == 0 && count >= 16 && dtype_bits(out->type.dtype) == 32;
  for (const Value *v : ins)
    vec = vec && dtype_bits(v->type.dtype) == 32 &&
          (product(dims_of(v)) == 1 || bcast_offset(dims_of(v), od, "i") == "i");
  std::string b = head("KERNEL_NAME", params_list(ps));
  const std::string to = ctype(n, out->type.dtype), yn = "t" + std::to_string(ins.size());
  if (vec) {
    b += grid_loop(it, count / 4);
    for (size_t k = 0; k < ins.size(); ++k)
      if (product(dims_of(ins[k])) != 1 || count == 1)
        b += "    const onnxc::V4<" + ctype(n, ins[k]->type.dtype) + "> a" + std::to_string(k) +
             " = reinterpret_cast<const onnxc::V4<" + ctype(n, ins[k]->type.dtype) + "> *>(t" +
             std::to_string(k) + ")[i];\n";
    b += "    onnxc::V4<" + to + "> r;\n#pragma unroll\n    for (int l = 0; l < 4; ++l) {\n";
    for (size_t k = 0; k < ins.size(); ++k)
      b += "      const " + ctype(n, ins[k]->type.dtype) + " x" + std::to_string(k) + " = " +
           (product(dims_of(ins[k])) == 1 ? "t" + std::to_string(k) + "[0]"
                                          : "a" + std::to_string(k) + ".v[l]") +
           ";\n";
    b += "      r.v[l] = (" + to + ")(" + expr + ");\n    }\n    reinterpret_cast<onnxc::V4<" + to +
         "> *>(" + yn + ")[i] = r;\n  }\n}\n";
  } else {
    b += grid_loop(it, count);
    for (size_t k = 0; k < ins.size(); ++k)
      b += "    const " + ctype(n, ins[k]->type.dtype) + " x" + std::to_string(k) + " = t" +
           std::to_string(k) + "[" + bcast_offset(dims_of(ins[k]), od, "i") + "];\n";
    b += "    " + yn + "[i] = (" + to + ")(" + expr + ");\n  }\n}\n";
  }
  Launch l;
  l.body = b;
  l.args = ins;
  l.args.push_back(out);
  l.gx = blocks_for(vec ? count / 4 : count);
  for (size_t k = 0; k < ins.size(); ++k)
    if (dims_of(ins[k]) == od && dtype_bits(ins[k]->type.dtype) == dtype_bits(out->type.dtype))
      l.inplace.emplace_back(static_cast<int>(k), static_cast<int>(ins.size()));
  return l;
}

/// Copies src's bytes into dst (same size): Reshape and the other ops that only rename.
Launch copy_launch(Value *src, Value *dst) {
  const int64_t bytes = type_bytes(src->type);
  // every tensor starts 64-byte aligned (plan-memory): 16-byte words when the size allows
  const int64_t word = bytes % 16 == 0 ? 16 : bytes % 4 == 0 ? 4 : 1;
  const int64_t count = bytes / word;
  const std::string t = word == 16 ? "uint4" : word == 4 ? "unsigned int" : "unsigned char";
  Launch l;
  l.body = head("KERNEL_NAME", "const " + t + " *t0, " + t + " *t1") +
           grid_loop(idx(count), count) + "    t1[i] = t0[i];\n  }\n}\n";
  l.args = {src, dst};
  l.gx = blocks_for(count);
  l.inplace = {{0, 1}};
  l.copy = true;
  return l;
}

std::optional<Launch> lower_elementwise(const Node &n) {
  const std::string &op = n.op_type;
  Value *x = n.input(0);
  Value *y = n.outputs.empty() ? nullptr : n.outputs[0];
  if (!x || !y)
    return std::nullopt;
  const std::string t = ctype(n, x->type.dtype);
  const bool flt = is_float(x->type.dtype);
  if (kUnaryAny.count(op) || (flt && kUnaryFloat.count(op))) {
    auto [a, b] = unary_attrs(n);
    std::string name = op;
    if (op == "Gelu" && attr_string(n, "approximate", "none") == "tanh")
      name = "GeluTanh";
    return elementwise(
        n, {x}, y, "onnxc::u_" + name + "<" + t + ">(x0, " + lit(a, t) + ", " + lit(b, t) + ")");
  }
  if (op == "Not")
    return elementwise(n, {x}, y, "!x0");
  if (op == "BitwiseNot")
    return elementwise(n, {x}, y, "~x0");
  if (op == "IsNaN" && flt)
    return elementwise(n, {x}, y, "x0 != x0");
  if (op == "IsInf" && flt) {
    const bool neg = attr_int(n, "detect_negative", 1), pos = attr_int(n, "detect_positive", 1);
    std::string e = "false";
    if (pos)
      e += " || x0 == " + lit(1.0 / 0.0, t);
    if (neg)
      e += " || x0 == " + lit(-1.0 / 0.0, t);
    return elementwise(n, {x}, y, e);
  }
  if (op == "Cast") {
    if (y->type.dtype == DType::Bool)
      return elementwise(n, {x}, y, "x0 != 0");
    ctype(n, y->type.dtype);
    return elementwise(n, {x}, y, "x0");
  }
  if (op == "Expand")
    return elementwise(n, {x}, y, "x0");
  if (op == "Clip") {
    std::vector<Value *> ins = {x};
    std::string lo, hi;
    if (n.opset < 11) {
      lo = lit(attr_float(n, "min", -3.4028234663852886e38f), t);
      hi = lit(attr_float(n, "max", 3.4028234663852886e38f), t);
    } else {
      if (n.input(1)) {
        ins.push_back(n.input(1));
        lo = "x" + std::to_string(ins.size() - 1);
      }
      if (n.input(2)) {
        ins.push_back(n.input(2));
        hi = "x" + std::to_string(ins.size() - 1);
      }
    }
    std::string e = "x0";
    if (!lo.empty())
      e = "(" + e + " < " + lo + " ? " + lo + " : " + e + ")";
    if (!hi.empty())
      e = "(" + e + " > " + hi + " ? " + hi + " : " + e + ")";
    return elementwise(n, ins, y, e);
  }
  if (op == "Where")
    return elementwise(n, {n.input(0), n.input(1), n.input(2)}, y, "x0 ? x1 : x2");
  if (op == "PRelu")
    return elementwise(n, {x, n.input(1)}, y, "onnxc::b_PRelu(x0, x1)");
  if ((kBinaryArith.count(op) || kBinaryCompare.count(op) || kBinaryLogic.count(op) ||
       kBinaryBits.count(op) || op == "Mod" || op == "BitShift") &&
      n.inputs.size() == 2 && n.input(1)) {
    std::string fn = op;
    if (op == "Mod")
      fn = attr_int(n, "fmod", 0) ? (flt ? "FMod" : "IntMod") : (flt ? "FloatMod" : "Mod");
    if (op == "BitShift")
      fn = attr_string(n, "direction", "") == "LEFT" ? "BitShiftLeft" : "BitShiftRight";
    if (kBinaryBits.count(op) && flt)
      return std::nullopt;
    if (op == "Pow" && n.input(1)->type.dtype != x->type.dtype) // exponent of another type
      return elementwise(n, {x, n.input(1)}, y,
                         "(" + t + ")onnxc::b_Pow" + (flt ? "" : "ToInt") +
                             "((double)x0, (double)x1)");
    return elementwise(n, {x, n.input(1)}, y, "onnxc::b_" + fn + "(x0, x1)");
  }
  if (op == "Sum" || op == "Max" || op == "Min" || op == "Mean") {
    std::vector<Value *> ins;
    for (Value *v : n.inputs)
      if (v)
        ins.push_back(v);
    std::string e = "x0";
    const std::string f = op == "Max" ? "Max" : op == "Min" ? "Min" : "Add";
    for (size_t k = 1; k < ins.size(); ++k)
      e = "onnxc::b_" + f + "(" + e + ", x" + std::to_string(k) + ")";
    if (op == "Mean")
      e = "(" + e + ") / (" + t + ")" + std::to_string(ins.size());
    return elementwise(n, ins, y, e);
  }
  return std::nullopt;
}

std::string act_args(const FusedActivation &a, const std::string &t) {
  return lit(a.a, t) + ", " + lit(a.b, t);
}

/// Pads (begin, end) of one spatial dim from the node's pads / auto_pad.
std::pair<int64_t, int64_t> spatial_pads(const Node &n, size_t d, size_t rank, int64_t in,
                                         int64_t out, int64_t k, int64_t s, int64_t dil) {
  const std::string ap = attr_string(n, "auto_pad", "NOTSET");
  if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
    const int64_t total = std::max<int64_t>(0, (out - 1) * s + (k - 1) * dil + 1 - in);
    return ap == "SAME_UPPER" ? std::pair{total / 2, total - total / 2}
                              : std::pair{total - total / 2, total / 2};
  }
  if (ap == "VALID")
    return {0, 0};
  const Dims pads = attr_ints(n, "pads", Dims(2 * rank, 0));
  return {pads.at(d), pads.at(d + rank)};
}

struct ConvGeom {
  int64_t N, C, H, W, M, OH, OW, KH, KW, SH = 1, SW = 1, PH = 0, PW = 0, PHe = 0, PWe = 0, DH = 1,
                                         DW = 1, G = 1;
};

/// Geometry of a 1-D or 2-D Conv / pool (a 1-D one has H = KH = 1).
ConvGeom conv_geom(const Node &n, const Dims &x, const Dims &y, const Dims &kernel) {
  if (x.size() != 3 && x.size() != 4)
    unsupported(n, fmt::format("{}-D {} is not supported", x.size() - 2, n.op_type));
  const size_t sr = x.size() - 2;
  ConvGeom g;
  g.N = x[0];
  g.C = x[1];
  g.M = y[1];
  g.H = sr == 2 ? x[2] : 1;
  g.W = x.back();
  g.OH = sr == 2 ? y[2] : 1;
  g.OW = y.back();
  g.KH = sr == 2 ? kernel[0] : 1;
  g.KW = kernel.back();
  const Dims st = attr_ints(n, "strides", Dims(sr, 1)), di = attr_ints(n, "dilations", Dims(sr, 1));
  g.SW = st.back();
  g.DW = di.back();
  auto pw = spatial_pads(n, sr - 1, sr, g.W, g.OW, g.KW, g.SW, g.DW);
  g.PW = pw.first, g.PWe = pw.second;
  if (sr == 2) {
    g.SH = st[0];
    g.DH = di[0];
    auto ph = spatial_pads(n, 0, sr, g.H, g.OH, g.KH, g.SH, g.DH);
    g.PH = ph.first, g.PHe = ph.second;
  }
  g.G = attr_int(n, "group", 1);
  return g;
}

Launch lower_conv(const Node &n, const Region &r, CudaPrecision prec) {
  Value *x = n.input(0), *w = n.input(1), *bias = n.input(2);
  Value *res = attr_int(n, kResidualAttr, 0) ? n.input(3) : nullptr;
  Value *y = n.outputs.at(0);
  if (attr_int(n, kInScaleAttr, 0)) // run_pipeline skips fuse-channel-scale for this backend
    node_fail(n, "internal error: the CUDA Conv has no input scale (fuse-channel-scale)");
  const std::string t = ctype(n, x->type.dtype);
  if (!is_float(x->type.dtype))
    unsupported(n, "integer Conv is not supported");
  const Dims wd = dims_of(w);
  const ConvGeom g = conv_geom(n, dims_of(x), dims_of(y), Dims(wd.begin() + 2, wd.end()));
  const int64_t Mg = g.M / g.G, CG = g.C / g.G, K = CG * g.KH * g.KW, P = g.OH * g.OW;
  std::vector<Value *> args = {x, w};
  std::vector<std::pair<std::string, bool>> ps = {{t, false}, {t, false}};
  std::string bias_name, res_name;
  if (bias) {
    bias_name = "t" + std::to_string(args.size());
    args.push_back(bias);
    ps.push_back({t, false});
  }
  if (res) {
    res_name = "t" + std::to_string(args.size());
    args.push_back(res);
    ps.push_back({t, false});
  }
  const std::string yn = "t" + std::to_string(args.size());
  args.push_back(y);
  ps.push_back({t, true});
  std::string ep = "    " + std::string(bias ? "v += " + bias_name + "[co];\n    " : "") +
                   (res ? "v += " + res_name + "[o];\n    " : "") + yn + "[o] = onnxc::activate<" +
                   act_enum(r.activation) + ">(v, " + act_args(r.activation, t) + ");\n";
  Launch l;
  l.args = args;
  // Y may take R's buffer (each output element is written after its residual is read, by the
  // same thread) unless R is also X, which the whole kernel reads
  if (res && res != x)
    l.inplace = {{static_cast<int>(args.size() - 2), static_cast<int>(args.size() - 1)}};
  const std::string geo = t + ", " + str(CG) + ", " + str(g.H) + ", " + str(g.W) + ", " +
                          str(g.KH) + ", " + str(g.KW) + ", " + str(g.SH) + ", " + str(g.SW) +
                          ", " + str(g.PH) + ", " + str(g.PW) + ", " + str(g.DH) + ", " +
                          str(g.DW) + ", " + str(g.OH) + ", " + str(g.OW) + ", " + str(g.C);
  if (Mg >= 16 && K >= 8) { // implicit GEMM: M = output channels of a group, N = pixels
    const int64_t cols = g.N * P;
    l.gx = (cols + 63) / 64;
    l.gy = (Mg + 63) / 64;
    const SplitK sk = split_k(l.gx * l.gy * g.G, K, t, ps);
    l.scratch = sk.ws_bytes;
    l.body = sk.decl + head("KERNEL_NAME", params_list(ps)) + "  const int g = blockIdx.z / " +
             str(sk.s) + ";\n  " + gemm_call(t, prec, sk, Mg, cols, K, true, false) + "\n" +
             "      [&](int m, int k) { return t1[(long long)(g * " + str(Mg) + " + m) * " +
             str(K) + " + k]; },\n" + "      [&](int k, int n) { return onnxc::conv_input<" + geo +
             ">(t0, g, k, n); },\n" + "      [&](int m, int n, " + t + " v) {\n" +
             "    const int co = g * " + str(Mg) + " + m;\n" +
             "    const long long o = ((long long)(n / " + str(P) + ") * " + str(g.M) +
             " + co) * " + str(P) + " + n % " + str(P) + ";\n" + ep + "      }" + sk.args +
             ");\n}\n";
    l.gz = g.G * sk.s;
    return l;
  }
  // direct: one thread per output element (depthwise and other thin groups)
  const int64_t count = g.N * g.M * P;
  const std::string it = idx(count);
  l.body = head("KERNEL_NAME", params_list(ps)) + grid_loop(it, count) + "    const int ow = i % " +
           str(g.OW) + ", oh = (i / " + str(g.OW) + ") % " + str(g.OH) +
           ";\n    const int co = (i / " + str(P) + ") % " + str(g.M) + ";\n    const " + it +
           " b = i / " + str(P * g.M) + ";\n    const int grp = co / " + str(Mg) + ";\n    " + t +
           " v = 0;\n    for (int ci = 0; ci < " + str(CG) + "; ++ci) {\n" + "      const " + t +
           " *xp = t0 + ((long long)b * " + str(g.C) + " + grp * " + str(CG) + " + ci) * " +
           str(g.H * g.W) + ";\n      const " + t + " *wp = t1 + ((long long)co * " + str(CG) +
           " + ci) * " + str(g.KH * g.KW) + ";\n" + "#pragma unroll\n      for (int kh = 0; kh < " +
           str(g.KH) + "; ++kh) {\n" + "        const int ih = oh * " + str(g.SH) + " - " +
           str(g.PH) + " + kh * " + str(g.DH) + ";\n        if (ih < 0 || ih >= " + str(g.H) +
           ") continue;\n" + "#pragma unroll\n        for (int kw = 0; kw < " + str(g.KW) +
           "; ++kw) {\n" + "          const int iw = ow * " + str(g.SW) + " - " + str(g.PW) +
           " + kw * " + str(g.DW) + ";\n          if (iw >= 0 && iw < " + str(g.W) +
           ") v += xp[ih * " + str(g.W) + " + iw] * wp[kh * " + str(g.KW) + " + kw];\n" +
           "        }\n      }\n    }\n    const " + it + " o = i;\n" + ep + "  }\n}\n";
  l.gx = blocks_for(count);
  return l;
}

/// C = alpha * op(A) op(B) (+ the epilogue's terms) for Gemm and MatMul, batched over grid z.
Launch lower_gemm_like(const Node &n, const Region &r, CudaPrecision prec) {
  const bool matmul = n.op_type == "MatMul";
  Value *a = n.input(0), *b = n.input(1), *y = n.outputs.at(0);
  const std::string t = ctype(n, a->type.dtype);
  if (!is_float(a->type.dtype))
    unsupported(n, "integer " + n.op_type + " is not supported");
  const Dims ad = dims_of(a), bd = dims_of(b), yd = dims_of(y);
  int64_t M, N, K;
  bool ta = false, tb = false;
  Dims abatch, bbatch, obatch;
  double alpha = 1, beta = 1;
  Value *c = nullptr;
  if (matmul) {
    M = ad.size() == 1 ? 1 : ad[ad.size() - 2];
    K = ad.back();
    N = bd.size() == 1 ? 1 : bd.back();
    if (ad.size() > 2)
      abatch.assign(ad.begin(), ad.end() - 2);
    if (bd.size() > 2)
      bbatch.assign(bd.begin(), bd.end() - 2);
    obatch = broadcast_shapes(n, {abatch, bbatch});
    if (attr_int(n, kBiasAttr, 0))
      c = n.input(2);
    if (const Attribute *s = n.attr(kScaleAttr); s && s->floats.size() == 2)
      alpha = s->floats[1] != 0 ? 1.0 / s->floats[0] : s->floats[0];
  } else {
    ta = attr_int(n, "transA", 0);
    tb = attr_int(n, "transB", 0);
    M = ta ? ad[1] : ad[0];
    K = ta ? ad[0] : ad[1];
    N = tb ? bd[0] : bd[1];
    alpha = attr_float(n, "alpha", 1.0f);
    beta = attr_float(n, "beta", 1.0f);
    c = n.input(2);
  }
  const int64_t batch = product(obatch);
  std::vector<Value *> args = {a, b};
  std::vector<std::pair<std::string, bool>> ps = {{t, false}, {t, false}};
  std::string c_term;
  if (c) {
    const std::string cn = "t" + std::to_string(args.size());
    args.push_back(c);
    ps.push_back({t, false});
    if (matmul) // a per-column bias (fuse-bias)
      c_term = "v += " + cn + "[n];\n";
    else
      c_term = "v += " + lit(beta, t) + " * " + cn + "[" +
               bcast_offset(dims_of(c), Dims{M, N}, "((long long)m * " + str(N) + " + n)") + "];\n";
  }
  const std::string yn = "t" + std::to_string(args.size());
  args.push_back(y);
  ps.push_back({t, true});
  const std::string a_off =
      batch > 1 ? "(long long)(" + bcast_offset(abatch, obatch, "z") + ") * " + str(M * K) : "0";
  const std::string b_off =
      batch > 1 ? "(long long)(" + bcast_offset(bbatch, obatch, "z") + ") * " + str(K * N) : "0";
  Launch l;
  l.args = args;
  l.gx = (N + 63) / 64;
  l.gy = (M + 63) / 64;
  const int64_t zs = std::max<int64_t>(batch, 1);
  // On tensor cores, a product of many 64x64 tiles (4 per SM of a large GPU and more) runs
  // 128x128 tiles: twice the arithmetic per operand loaded.
  const bool big =
      on_tensor_cores(t, prec) && M >= 128 && N >= 128 && l.gx * l.gy * zs >= 4 * kAssumedSms;
  if (big) {
    l.gx = (N + 127) / 128;
    l.gy = (M + 127) / 128;
  }
  const SplitK sk = big ? SplitK{} : split_k(l.gx * l.gy * zs, K, t, ps);
  l.scratch = sk.ws_bytes;
  l.body =
      sk.decl + head("KERNEL_NAME", params_list(ps)) + "  const int z = blockIdx.z / " + str(sk.s) +
      ";\n" + "  const " + t + " *A = t0 + " + a_off + ";\n  const " + t + " *B = t1 + " + b_off +
      ";\n  " + t + " *Y = " + yn + " + (long long)z * " + str(M * N) + ";\n  " +
      gemm_call(t, prec, sk, M, N, K, !ta, tb, big) + "\n" + "      [&](int m, int k) { return A[" +
      (ta ? "(long long)k * " + str(M) + " + m" : "(long long)m * " + str(K) + " + k") + "]; },\n" +
      "      [&](int k, int n) { return B[" +
      (tb ? "(long long)n * " + str(K) + " + k" : "(long long)k * " + str(N) + " + n") + "]; },\n" +
      "      [&](int m, int n, " + t + " v) {\n    v *= " + lit(alpha, t) + ";\n    " + c_term +
      "    Y[(long long)m * " + str(N) + " + n] = onnxc::activate<" + act_enum(r.activation) +
      ">(v, " + act_args(r.activation, t) + ");\n      }" + sk.args + ");\n}\n";
  l.gz = zs * sk.s;
  return l;
}

Launch lower_pool(const Node &n) {
  Value *x = n.input(0), *y = n.outputs.at(0);
  if (n.outputs.size() > 1 && n.outputs[1])
    unsupported(n, "MaxPool's Indices output is not supported");
  const std::string t = ctype(n, x->type.dtype);
  if (!is_float(x->type.dtype))
    unsupported(n, "integer pooling is not supported");
  const Dims k = attr_ints(n, "kernel_shape", {});
  const ConvGeom g = conv_geom(n, dims_of(x), dims_of(y), k);
  const bool max = n.op_type == "MaxPool";
  const bool include = attr_int(n, "count_include_pad", 0);
  const int64_t count = g.N * g.C * g.OH * g.OW;
  const std::string it = idx(count);
  std::string b = head("KERNEL_NAME", "const " + t + " *t0, " + t + " *t1") + grid_loop(it, count) +
                  "    const int ow = i % " + str(g.OW) + ", oh = (i / " + str(g.OW) + ") % " +
                  str(g.OH) + ";\n    const " + t + " *xp = t0 + (long long)(i / " +
                  str(g.OH * g.OW) + ") * " + str(g.H * g.W) + ";\n    " + t +
                  " v = " + (max ? "onnxc::lowest<" + t + ">()" : lit(0, t)) +
                  ";\n    int taps = 0, valid = 0;\n" + "    for (int kh = 0; kh < " + str(g.KH) +
                  "; ++kh) {\n      const int ih = oh * " + str(g.SH) + " - " + str(g.PH) +
                  " + kh * " + str(g.DH) + ";\n      if (ih >= " + str(g.H + g.PHe) +
                  ") break;\n      for (int kw = 0; kw < " + str(g.KW) +
                  "; ++kw) {\n        const int iw = ow * " + str(g.SW) + " - " + str(g.PW) +
                  " + kw * " + str(g.DW) + ";\n        if (iw >= " + str(g.W + g.PWe) +
                  ") break;\n        ++taps;\n        if (ih < 0 || iw < 0 || ih >= " + str(g.H) +
                  " || iw >= " + str(g.W) + ") continue;\n        ++valid;\n        const " + t +
                  " e = xp[ih * " + str(g.W) + " + iw];\n        " +
                  (max ? "v = onnxc::m_max(v, e);" : "v += e;") + "\n      }\n    }\n" +
                  (max       ? ""
                   : include ? "    v /= (" + t + ")taps;\n"
                             : "    v = valid ? v / (" + t + ")valid : (" + t + ")0;\n") +
                  "    t1[i] = v;\n  }\n}\n";
  Launch l;
  l.body = b;
  l.args = {x, y};
  l.gx = blocks_for(count);
  return l;
}

/// Block-per-row kernels: `rows` blocks of `threads`.
int64_t row_threads(int64_t d) {
  int64_t t = 32;
  while (t < d && t < 256)
    t *= 2;
  return t;
}

Launch lower_global_pool(const Node &n) {
  Value *x = n.input(0), *y = n.outputs.at(0);
  const std::string t = ctype(n, x->type.dtype);
  if (!is_float(x->type.dtype))
    unsupported(n, "integer pooling is not supported");
  const Dims xd = dims_of(x);
  const int64_t rows = xd[0] * xd[1], d = product(xd) / std::max<int64_t>(rows, 1);
  const bool max = n.op_type == "GlobalMaxPool";
  const int64_t th = row_threads(d);
  Launch l;
  l.body = head("KERNEL_NAME", "const " + t + " *t0, " + t + " *t1", th) + "  const " + t +
           " *x = t0 + (long long)blockIdx.x * " + str(d) + ";\n  " + t +
           " v = " + (max ? "onnxc::lowest<" + t + ">()" : lit(0, t)) +
           ";\n  for (int j = threadIdx.x; j < " + str(d) +
           "; j += blockDim.x) v = " + (max ? "onnxc::m_max(v, x[j])" : "v + x[j]") +
           ";\n  v = onnxc::block_" + (max ? "max" : "sum") +
           "(v);\n  if (threadIdx.x == 0) t1[blockIdx.x] = " +
           (max ? "v" : "v / " + lit(static_cast<double>(d), t)) + ";\n}\n";
  l.args = {x, y};
  l.gx = rows;
  l.block = th;
  return l;
}

Launch lower_softmax(const Node &n) {
  Value *x = n.input(0), *y = n.outputs.at(0);
  const std::string t = ctype(n, x->type.dtype);
  if (!is_float(x->type.dtype))
    unsupported(n, "integer Softmax is not supported");
  const Dims xd = dims_of(x);
  const int64_t rank = static_cast<int64_t>(xd.size());
  int64_t axis =
      normalize_axis(n, attr_int(n, "axis", n.opset >= 13 ? -1 : 1), std::max<int64_t>(rank, 1));
  int64_t d, inner = 1;
  if (n.opset >= 13) {
    d = rank ? xd[axis] : 1;
    for (int64_t k = axis + 1; k < rank; ++k)
      inner *= xd[k];
  } else {
    d = 1;
    for (int64_t k = axis; k < rank; ++k)
      d *= xd[k];
  }
  const int64_t rows = product(xd) / std::max<int64_t>(d, 1);
  const bool log = n.op_type == "LogSoftmax";
  const int64_t th = row_threads(d);
  Launch l;
  l.body = head("KERNEL_NAME", "const " + t + " *t0, " + t + " *t1", th) +
           "  const long long row = blockIdx.x, o = row / " + str(inner) + ", in = row % " +
           str(inner) + ";\n  const " + t + " *x = t0 + o * " + str(d * inner) + " + in;\n  " + t +
           " *y = t1 + o * " + str(d * inner) + " + in;\n  " + t + " mx = onnxc::lowest<" + t +
           ">();\n" + "  for (int j = threadIdx.x; j < " + str(d) +
           "; j += blockDim.x) mx = onnxc::m_max(mx, x[(long long)j * " + str(inner) +
           "]);\n  mx = onnxc::block_max(mx);\n  " + t + " s = 0;\n" +
           "  for (int j = threadIdx.x; j < " + str(d) +
           "; j += blockDim.x) s += onnxc::m_exp(x[(long long)j * " + str(inner) +
           "] - mx);\n  s = onnxc::block_sum(s);\n" +
           (log ? "  const " + t + " ls = onnxc::m_log(s);\n"
                : "  const " + t + " r = " + lit(1, t) + " / s;\n") +
           "  for (int j = threadIdx.x; j < " + str(d) + "; j += blockDim.x) {\n    const " + t +
           " e = x[(long long)j * " + str(inner) + "] - mx;\n    y[(long long)j * " + str(inner) +
           "] = " + (log ? "e - ls" : "onnxc::m_exp(e) * r") + ";\n  }\n}\n";
  l.args = {x, y};
  l.gx = rows;
  l.block = th;
  l.inplace = {{0, 1}};
  return l;
}

Launch lower_layernorm(const Node &n) {
  Value *x = n.input(0), *scale = n.input(1), *bias = n.input(2);
  const std::string t = ctype(n, x->type.dtype);
  if (!is_float(x->type.dtype))
    unsupported(n, "integer LayerNormalization is not supported");
  const Dims xd = dims_of(x);
  const int64_t rank = static_cast<int64_t>(xd.size());
  const int64_t axis = normalize_axis(n, attr_int(n, "axis", -1), rank);
  int64_t d = 1;
  for (int64_t k = axis; k < rank; ++k)
    d *= xd[k];
  const int64_t rows = product(xd) / std::max<int64_t>(d, 1);
  if (product(dims_of(scale)) != d || (bias && product(dims_of(bias)) != d))
    unsupported(n, "LayerNormalization with broadcast scale/bias is not supported");
  const double eps = attr_float(n, "epsilon", 1e-5f);
  std::vector<Value *> args = {x, scale};
  std::vector<std::pair<std::string, bool>> ps = {{t, false}, {t, false}};
  if (bias) {
    args.push_back(bias);
    ps.push_back({t, false});
  }
  std::vector<std::string> outs;
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    outs.push_back(n.outputs[k] ? "t" + std::to_string(args.size()) : "");
    if (n.outputs[k]) {
      args.push_back(n.outputs[k]);
      ps.push_back({ctype(n, n.outputs[k]->type.dtype), true});
    }
  }
  const int64_t th = row_threads(d);
  std::string b =
      head("KERNEL_NAME", params_list(ps), th) + "  const " + t +
      " *x = t0 + (long long)blockIdx.x * " + str(d) + ";\n  " + t + " s = 0;\n" +
      "  for (int j = threadIdx.x; j < " + str(d) + "; j += blockDim.x) s += x[j];\n" + "  const " +
      t + " mean = onnxc::block_sum(s) / " + lit(double(d), t) + ";\n  " + t +
      " q = 0;\n  for (int j = threadIdx.x; j < " + str(d) + "; j += blockDim.x) { const " + t +
      " e = x[j] - mean; q += e * e; }\n" + "  const " + t + " inv = " + lit(1, t) +
      " / onnxc::m_sqrt(onnxc::block_sum(q) / " + lit(double(d), t) + " + " + lit(eps, t) +
      ");\n  " + t + " *y = " + outs[0] + " + (long long)blockIdx.x * " + str(d) + ";\n" +
      "  for (int j = threadIdx.x; j < " + str(d) +
      "; j += blockDim.x) y[j] = (x[j] - mean) * inv * t1[j]" + (bias ? " + t2[j]" : "") + ";\n";
  if (outs.size() > 1 && !outs[1].empty())
    b += "  if (threadIdx.x == 0) " + outs[1] + "[blockIdx.x] = mean;\n";
  if (outs.size() > 2 && !outs[2].empty())
    b += "  if (threadIdx.x == 0) " + outs[2] + "[blockIdx.x] = inv;\n";
  b += "}\n";
  Launch l;
  l.body = b;
  l.args = args;
  l.gx = rows;
  l.block = th;
  return l;
}

/// Offset expression of the element at linear index `i` of a tensor with dims `od`, whose dim
/// d steps `st[d]` elements in the source.
std::string strided_offset(const Dims &od, const Dims &st, const std::string &i,
                           const Dims &base = {}) {
  std::string e;
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(od.size()) - 1; d >= 0; --d) {
    const int64_t b0 = base.empty() ? 0 : base[d];
    if (od[d] != 1 && st[d] != 0) {
      std::string c = stride == 1 ? i : "(" + i + " / " + str(stride) + ")";
      if (d > 0)
        c = "(" + c + " % " + str(od[d]) + ")";
      e += (e.empty() ? "" : " + ") + (st[d] == 1 ? c : "(long long)" + c + " * " + str(st[d]));
    }
    if (b0 != 0)
      e += (e.empty() ? "" : " + ") + std::string("(long long)") + str(b0);
    stride *= od[d];
  }
  return e.empty() ? "0" : e;
}

Launch gather_copy(const Node &n, Value *x, Value *y, const std::string &offset) {
  const std::string t = ctype(n, x->type.dtype);
  const int64_t count = product(dims_of(y));
  Launch l;
  l.body = head("KERNEL_NAME", "const " + t + " *t0, " + t + " *t1") +
           grid_loop(idx(count), count) + "    t1[i] = t0[" + offset + "];\n  }\n}\n";
  l.args = {x, y};
  l.gx = blocks_for(count);
  return l;
}

Launch lower_transpose(const Node &n) {
  Value *x = n.input(0), *y = n.outputs.at(0);
  const Dims xd = dims_of(x), yd = dims_of(y), xs = strides_of(xd);
  Dims perm = attr_ints(n, "perm", {});
  if (perm.empty())
    for (int64_t k = static_cast<int64_t>(xd.size()) - 1; k >= 0; --k)
      perm.push_back(k);
  Dims st(yd.size());
  for (size_t d = 0; d < yd.size(); ++d)
    st[d] = xs[perm[d]];
  return gather_copy(n, x, y, strided_offset(yd, st, "i"));
}

Launch lower_slice(const Node &n) {
  Value *x = n.input(0), *y = n.outputs.at(0);
  const Dims xd = dims_of(x), yd = dims_of(y), xs = strides_of(xd);
  const int64_t rank = static_cast<int64_t>(xd.size());
  Dims starts, ends, axes, steps;
  auto ints = [&](size_t i, const char *what) {
    const Tensor &c = require_constant(n, i, what);
    return c.to_int64_vector();
  };
  if (n.opset < 10) {
    starts = attr_ints(n, "starts", {});
    ends = attr_ints(n, "ends", {});
    axes = attr_ints(n, "axes", {});
  } else {
    starts = ints(1, "starts");
    ends = ints(2, "ends");
    if (n.input(3))
      axes = ints(3, "axes");
    if (n.input(4))
      steps = ints(4, "steps");
  }
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k)
      axes.push_back(static_cast<int64_t>(k));
  if (steps.empty())
    steps.assign(starts.size(), 1);
  Dims begin(rank, 0), step(rank, 1);
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t a = normalize_axis(n, axes[k], rank), dim = xd[a];
    int64_t s = starts[k];
    if (s < 0)
      s += dim;
    s = steps[k] > 0 ? std::clamp<int64_t>(s, 0, dim)
                     : std::clamp<int64_t>(s, 0, std::max<int64_t>(dim - 1, 0));
    begin[a] = s;
    step[a] = steps[k];
  }
  Dims st(rank), base(rank);
  for (int64_t d = 0; d < rank; ++d) {
    st[d] = xs[d] * step[d];
    base[d] = begin[d] * xs[d];
  }
  int64_t b0 = 0;
  for (int64_t d = 0; d < rank; ++d)
    b0 += base[d];
  std::string off = strided_offset(yd, st, "i");
  if (b0)
    off = "(long long)" + str(b0) + " + " + off;
  return gather_copy(n, x, y, off);
}

Launch lower_concat(const Node &n) {
  Value *y = n.outputs.at(0);
  const Dims yd = dims_of(y);
  const int64_t rank = static_cast<int64_t>(yd.size());
  const int64_t axis = normalize_axis(n, attr_int(n, "axis", 0), rank);
  int64_t inner = 1;
  for (int64_t k = axis + 1; k < rank; ++k)
    inner *= yd[k];
  const int64_t A = yd[axis], count = product(yd);
  const std::string t = ctype(n, y->type.dtype), it = idx(count);
  std::vector<Value *> args;
  std::vector<std::pair<std::string, bool>> ps;
  std::string chain;
  int64_t start = 0;
  for (Value *v : n.inputs) {
    const int64_t e = dims_of(v)[axis];
    if (product(dims_of(v)) == 0)
      continue;
    const std::string name = "t" + std::to_string(args.size());
    args.push_back(v);
    ps.push_back({t, false});
    chain += std::string(chain.empty() ? "    " : "    else ") + "if (a < " + str(start + e) +
             ") v = " + name + "[(o * " + str(e) + " + (a - " + str(start) + ")) * " + str(inner) +
             " + in];\n";
    start += e;
  }
  const std::string yn = "t" + std::to_string(args.size());
  args.push_back(y);
  ps.push_back({t, true});
  Launch l;
  l.body = head("KERNEL_NAME", params_list(ps)) + grid_loop(it, count) + "    const " + it +
           " in = i % " + str(inner) + ", a = (i / " + str(inner) + ") % " + str(A) + ", o = i / " +
           str(inner * A) + ";\n    " + t + " v = 0;\n" + chain + "    " + yn +
           "[i] = v;\n  }\n}\n";
  l.args = args;
  l.gx = blocks_for(count);
  return l;
}

Launch lower_split(const Node &n) {
  Value *x = n.input(0);
  const Dims xd = dims_of(x);
  const int64_t rank = static_cast<int64_t>(xd.size());
  const int64_t axis = normalize_axis(n, attr_int(n, "axis", 0), rank);
  int64_t inner = 1;
  for (int64_t k = axis + 1; k < rank; ++k)
    inner *= xd[k];
  const int64_t A = xd[axis], count = product(xd);
  const std::string t = ctype(n, x->type.dtype), it = idx(count);
  std::vector<Value *> args = {x};
  std::vector<std::pair<std::string, bool>> ps = {{t, false}};
  std::string chain;
  int64_t start = 0;
  for (Value *v : n.outputs) {
    if (!v)
      continue;
    const int64_t e = dims_of(v)[axis];
    if (product(dims_of(v)) > 0) {
      const std::string name = "t" + std::to_string(args.size());
      args.push_back(v);
      ps.push_back({t, true});
      chain += std::string(chain.empty() ? "    " : "    else ") + "if (a < " + str(start + e) +
               ") " + name + "[(o * " + str(e) + " + (a - " + str(start) + ")) * " + str(inner) +
               " + in] = v;\n";
    }
    start += e;
  }
  Launch l;
  l.body = head("KERNEL_NAME", params_list(ps)) + grid_loop(it, count) + "    const " + it +
           " in = i % " + str(inner) + ", a = (i / " + str(inner) + ") % " + str(A) + ", o = i / " +
           str(inner * A) + ";\n    const " + t + " v = t0[i];\n" + chain + "  }\n}\n";
  l.args = args;
  l.gx = blocks_for(count);
  return l;
}

Launch lower_gather(const Node &n) {
  Value *x = n.input(0), *ind = n.input(1), *y = n.outputs.at(0);
  const Dims xd = dims_of(x);
  const int64_t rank = static_cast<int64_t>(xd.size());
  const int64_t axis = normalize_axis(n, attr_int(n, "axis", 0), rank);
  int64_t inner = 1;
  for (int64_t k = axis + 1; k < rank; ++k)
    inner *= xd[k];
  const int64_t D = xd[axis], I = product(dims_of(ind)), count = product(dims_of(y));
  const std::string t = ctype(n, x->type.dtype), ti = ctype(n, ind->type.dtype), it = idx(count);
  Launch l;
  l.body = head("KERNEL_NAME", "const " + t + " *t0, const " + ti + " *t1, " + t + " *t2") +
           grid_loop(it, count) + "    const " + it + " in = i % " + str(inner) + ", j = (i / " +
           str(inner) + ") % " + str(I) + ", o = i / " + str(inner * I) +
           ";\n    long long k = (long long)t1[j];\n    if (k < 0) k += " + str(D) +
           ";\n    k = k < 0 ? 0 : (k >= " + str(D) + " ? " + str(D - 1) +
           " : k); // out of range: clamped (the CPU target reports it)\n    t2[i] = t0[(o * " +
           str(D) + " + k) * " + str(inner) + " + in];\n  }\n}\n";
  l.args = {x, ind, y};
  l.gx = blocks_for(count);
  return l;
}

Launch lower_batchnorm(const Node &n) {
  if (n.outputs.size() > 1 &&
      std::any_of(n.outputs.begin() + 1, n.outputs.end(), [](Value *v) { return v; }))
    unsupported(n, "BatchNormalization in training mode is not supported");
  Value *x = n.input(0), *y = n.outputs.at(0);
  const std::string t = ctype(n, x->type.dtype);
  if (!is_float(x->type.dtype))
    unsupported(n, "integer BatchNormalization is not supported");
  const Dims xd = dims_of(x);
  const int64_t C = xd.size() > 1 ? xd[1] : 1,
                inner = product(xd) / std::max<int64_t>(xd[0] * C, 1);
  const double eps = attr_float(n, "epsilon", 1e-5f);
  const int64_t count = product(xd);
  const std::string it = idx(count);
  Launch l;
  l.body =
      head("KERNEL_NAME",
           params_list({{t, false}, {t, false}, {t, false}, {t, false}, {t, false}, {t, true}})) +
      grid_loop(it, count) + "    const int c = (i / " + str(inner) + ") % " + str(C) +
      ";\n    t5[i] = (t0[i] - t3[c]) / onnxc::m_sqrt(t4[c] + " + lit(eps, t) +
      ") * t1[c] + t2[c];\n  }\n}\n";
  l.args = {x, n.input(1), n.input(2), n.input(3), n.input(4), y};
  l.gx = blocks_for(count);
  l.inplace = {{0, 5}};
  return l;
}

Launch lower_reduce(const Node &n) {
  Value *x = n.input(0), *y = n.outputs.at(0);
  const std::string &op = n.op_type;
  const bool arg = op == "ArgMax" || op == "ArgMin";
  const Dims xd = dims_of(x), xs = strides_of(xd);
  const int64_t rank = static_cast<int64_t>(xd.size());
  const std::string t = ctype(n, x->type.dtype), to = ctype(n, y->type.dtype);
  Dims axes;
  if (arg) {
    axes = {normalize_axis(n, attr_int(n, "axis", 0), std::max<int64_t>(rank, 1))};
  } else {
    if (n.input(1))
      axes = require_constant(n, 1, "axes").to_int64_vector();
    else
      axes = attr_ints(n, "axes", {});
    if (axes.empty() && attr_int(n, "noop_with_empty_axes", 0))
      return copy_launch(x, y);
    if (axes.empty())
      for (int64_t k = 0; k < rank; ++k)
        axes.push_back(k);
    for (int64_t &a : axes)
      a = normalize_axis(n, a, std::max<int64_t>(rank, 1));
  }
  std::vector<bool> red(rank, false);
  for (int64_t a : axes)
    if (a < rank)
      red[a] = true;
  Dims kd, ks, rd, rs; // kept / reduced dims and their strides in x
  for (int64_t d = 0; d < rank; ++d)
    (red[d] ? rd : kd).push_back(xd[d]), (red[d] ? rs : ks).push_back(xs[d]);
  const int64_t R = product(rd), count = product(kd);
  if (R == 0)
    unsupported(n, "a reduction over an empty axis is not supported");
  if (!is_float(x->type.dtype) && op != "ReduceSum" && op != "ReduceMax" && op != "ReduceMin" &&
      op != "ReduceProd" && !arg)
    unsupported(n, "integer " + op + " is not supported");
  const std::string it = idx(count);
  const std::string base = strided_offset(kd, ks, "i"), roff = strided_offset(rd, rs, "r");
  std::string init = "    " + t + " acc = t0[base];\n", step, fin = "acc";
  std::string from = "1";
  if (op == "ReduceSum" || op == "ReduceMean")
    step = "acc += e;";
  else if (op == "ReduceProd")
    step = "acc *= e;";
  else if (op == "ReduceMax")
    step = "acc = onnxc::m_max(acc, e);";
  else if (op == "ReduceMin")
    step = "acc = onnxc::m_min(acc, e);";
  else if (op == "ReduceSumSquare" || op == "ReduceL2")
    init = "    " + t + " acc = 0;\n", from = "0", step = "acc += e * e;";
  else if (op == "ReduceL1")
    init = "    " + t + " acc = 0;\n", from = "0", step = "acc += onnxc::m_fabs(e);";
  else if (op == "ReduceLogSum")
    step = "acc += e;", fin = "onnxc::m_log(acc)";
  else if (op == "ReduceLogSumExp")
    init = "    " + t + " mx = onnxc::lowest<" + t + ">();\n    for (long long r = 0; r < " +
           str(R) + "; ++r) { const " + t + " e = t0[base + " + roff +
           "]; mx = onnxc::m_max(mx, e); }\n    " + t + " acc = 0;\n",
    from = "0", step = "acc += onnxc::m_exp(e - mx);", fin = "mx + onnxc::m_log(acc)";
  else if (arg) {
    const bool last = attr_int(n, "select_last_index", 0);
    const std::string cmp = op == "ArgMax" ? (last ? ">=" : ">") : (last ? "<=" : "<");
    init = "    " + t + " acc = t0[base];\n    long long at = 0;\n";
    step = "if (e " + cmp + " acc) { acc = e; at = r; }";
    fin = "at";
  } else
    unsupported(n, op + " is not supported");
  if (op == "ReduceMean")
    fin = "acc / (" + t + ")" + str(R);
  if (op == "ReduceL2")
    fin = "onnxc::m_sqrt(acc)";
  Launch l;
  l.body = head("KERNEL_NAME", "const " + t + " *t0, " + to + " *t1") + grid_loop(it, count) +
           "    const long long base = " + base + ";\n" + init + "    for (long long r = " + from +
           "; r < " + str(R) + "; ++r) {\n      const " + t + " e = t0[base + " + roff +
           "];\n      " + step + "\n    }\n    t1[i] = (" + to + ")(" + fin + ");\n  }\n}\n";
  l.args = {x, y};
  l.gx = blocks_for(count);
  return l;
}

const std::set<std::string> kCopyOps = {"Identity", "Reshape",   "Flatten",
                                        "Squeeze",  "Unsqueeze", "Dropout"};

Launch lower_node(const Node &n, const Region &r, CudaPrecision prec) {
  if (!n.domain.empty() && n.domain != "ai.onnx")
    unsupported(n, "the domain '" + n.domain + "' is not supported");
  for (const Value *v : n.outputs)
    if (v && !v->run_time_shape_from.empty())
      fail("{}: input '{}' must be a compile-time constant on the CUDA target (its outputs' "
           "shapes depend on its values); {}",
           n.describe(), v->run_time_shape_from, v->run_time_shape_trace);
  const std::string &op = n.op_type;
  if (kCopyOps.count(op)) {
    if (op == "Dropout" && n.outputs.size() > 1 && n.outputs[1])
      unsupported(n, "Dropout's mask output is not supported");
    ctype(n, n.outputs.at(0)->type.dtype);
    return copy_launch(n.input(0), n.outputs.at(0));
  }
  if (op == "Conv")
    return lower_conv(n, r, prec);
  if (op == "Gemm" || op == "MatMul")
    return lower_gemm_like(n, r, prec);
  if (op == "MaxPool" || op == "AveragePool")
    return lower_pool(n);
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool")
    return lower_global_pool(n);
  if (op == "Softmax" || op == "LogSoftmax")
    return lower_softmax(n);
  if (op == "LayerNormalization")
    return lower_layernorm(n);
  if (op == "Transpose")
    return lower_transpose(n);
  if (op == "Slice")
    return lower_slice(n);
  if (op == "Concat")
    return lower_concat(n);
  if (op == "Split")
    return lower_split(n);
  if (op == "Gather")
    return lower_gather(n);
  if (op == "BatchNormalization")
    return lower_batchnorm(n);
  if (op.rfind("Reduce", 0) == 0 || op == "ArgMax" || op == "ArgMin")
    return lower_reduce(n);
  if (!r.activation.op.empty())
    fail("internal error: {} has a fused activation the CUDA target cannot apply", n.describe());
  if (auto l = lower_elementwise(n))
    return *l;
  unsupported(n, "the op " + op + " has no kernel");
}

} // namespace

CudaPrecision parse_cuda_precision(const std::string &name) {
  if (name == "fp32")
    return CudaPrecision::kFp32;
  if (name == "tf32")
    return CudaPrecision::kTf32;
  if (name == "fp16")
    return CudaPrecision::kFp16;
  if (name == "bf16")
    return CudaPrecision::kBf16;
  fail("--precision: '{}' is not one of fp32, tf32, fp16, bf16", name);
}

KernelCall CudaKernels::lower(const Region &r) {
  if (r.kind == Region::Kind::OutputCopy) {
    const Launch l = copy_launch(r.src, r.dst);
    copies_.push_back(names_.size());
    return add("copy", l.body, l.args, l.gx, l.gy, l.gz, l.block);
  }
  if (r.kind == Region::Kind::ShapeCopy) // its producer was refused first (lower_node)
    fail("{}: shapes decided at run time are not supported on the CUDA target", r.desc);
  const Node &n = *r.root;
  Launch l;
  try {
    l = lower_node(n, r, precision_);
    // the driver's limits (runtime_stub/cuda.c passes at most ONNXC_CUDA_MAX_ARGS tensors)
    if (l.args.size() + (l.scratch > 0 ? 1 : 0) > 64)
      unsupported(n, "a kernel on more than 64 tensors is not supported");
    if (l.gx > 2147483647 || l.gy > 65535 || l.gz > 65535)
      unsupported(n, "a launch grid beyond the GPU's limits is not supported");
  } catch (const CudaUnsupported &e) {
    // The CPU kernel runs on the host between copies of its tensors (runtime_stub/cuda.c).
    if (!host_regions_)
      fail("{}; compile for the CPU (--target cpu) or let such nodes run on the host", e.what());
    host_ops_.insert(n.op_type);
    return lower_region_cpu(r);
  }
  if (l.copy)
    copies_.push_back(names_.size());
  KernelCall c = add(n.op_type, l.body, l.args, l.gx, l.gy, l.gz, l.block);
  c.inplace = l.inplace;
  if (l.gx <= 0 || l.gy <= 0 || l.gz <= 0) // nothing to compute (an empty tensor)
    c.params[kLaunchKernel] = -1;
  if (l.scratch > 0) { // passed after the args (KernelCall::scratch_bytes)
    c.scratch_bytes = l.scratch;
    c.params[kLaunchNumTensors] += 1;
  }
  return c;
}

} // namespace onnxc
