#include "compiler/ops/evaluate.h"
#include "compiler/ops/native_runtime.h"
#include "compiler/ops/op_util.h"

#include <dlfcn.h>
#include <memory>

namespace onnxc {
namespace {

using KernelFn = int32_t (*)(onnxc_rt *, void *const *, const int64_t *);

KernelFn find_native_kernel(const Node &n, const std::string &name) {
  void *sym = dlsym(RTLD_DEFAULT, name.c_str());
  if (!sym)
    node_fail(n, "kernel '{}' is missing from this onnxc build", name);
  return reinterpret_cast<KernelFn>(sym);
}

/// The tensor behind a kernel argument: one of the node's outputs (`out` set to its index), its
/// constant inputs, or a constant the lowering refers to.
const Tensor *argument_tensor(const Node &n, const Value *arg,
                              const std::vector<const Tensor *> &inputs, std::vector<Tensor> &outs,
                              int &out) {
  out = -1;
  for (size_t i = 0; i < n.outputs.size(); ++i)
    if (arg == n.outputs[i]) {
      out = static_cast<int>(i);
      return &outs[i];
    }
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (arg == n.inputs[i] && i < inputs.size() && inputs[i])
      return inputs[i];
  if (arg->constant)
    return arg->constant.get();
  node_fail(n, "cannot evaluate: value '{}' is not constant", arg->name);
}

/// Kernel buffers of one native evaluation. String tensors are passed as arrays of
/// `const char *` (the compiled models' layout): pointers into the input tensors' strings, and
/// for outputs slots the kernel fills, read back by finish().
struct Buffers {
  std::vector<void *> ptrs;
  std::vector<std::unique_ptr<std::vector<const char *>>> slots;
  std::vector<std::pair<int, std::vector<const char *> *>> string_outs;

  void add(const Tensor *t, int out) {
    if (t->dtype() != DType::String) {
      ptrs.push_back(const_cast<uint8_t *>(t->data()));
      return;
    }
    auto &v = *slots.emplace_back(std::make_unique<std::vector<const char *>>());
    for (const std::string &s : t->strings())
      v.push_back(s.c_str());
    if (out >= 0)
      string_outs.emplace_back(out, &v);
    ptrs.push_back(v.data());
  }
  /// Copies the strings the kernel's string outputs point to into the output tensors.
  void finish(std::vector<Tensor> &outs) const {
    for (const auto &[i, v] : string_outs)
      for (size_t k = 0; k < v->size(); ++k)
        outs[static_cast<size_t>(i)].strings()[k] = (*v)[k] ? (*v)[k] : "";
  }
};

/// Runs the node's lowered kernel natively on the constant inputs.
std::vector<Tensor> run_kernel(const Node &n, const std::vector<const Tensor *> &inputs) {
  KernelCall call = n.def->lower(n);
  std::vector<Tensor> outs;
  for (Value *o : n.outputs)
    outs.emplace_back(o->type.dtype, o->type.static_dims());
  Buffers b;
  for (Value *arg : call.args) {
    if (!arg) {
      b.ptrs.push_back(nullptr);
      continue;
    }
    int out = -1;
    const Tensor *t = argument_tensor(n, arg, inputs, outs, out);
    b.add(t, out);
  }
  for (const KernelCall::Derived &d : call.derived) // constants the lowering made (packed W)
    b.ptrs.at(d.slot) = const_cast<uint8_t *>(d.tensor->data());
  std::vector<uint8_t> scratch(static_cast<size_t>(call.scratch_bytes));
  if (call.scratch_bytes > 0)
    b.ptrs.push_back(scratch.data());
  NativeRuntime rt;
  int32_t status =
      find_native_kernel(n, call.kernel)(rt.handle(), b.ptrs.data(), call.params.data());
  if (status != 0)
    node_fail(n, "{}", rt.error());
  b.finish(outs);
  return outs;
}

} // namespace

bool native_kernel_exists(const std::string &name) {
  return dlsym(RTLD_DEFAULT, name.c_str()) != nullptr;
}

std::vector<Tensor> evaluate_node(const Node &n, const std::vector<const Tensor *> &inputs) {
  if (!n.def)
    node_fail(n, "operator is not supported");
  if (n.def->eval)
    return n.def->eval(n, inputs);
  return run_kernel(n, inputs);
}

} // namespace onnxc
