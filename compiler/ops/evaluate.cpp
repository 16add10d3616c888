#include "compiler/ops/evaluate.h"
#include "compiler/ops/native_runtime.h"
#include "compiler/ops/op_util.h"

#include <dlfcn.h>

namespace onnxc {
namespace {

using KernelFn = int32_t (*)(onnxc_rt *, void *const *, const int64_t *);

KernelFn find_native_kernel(const Node &n, const std::string &name) {
  void *sym = dlsym(RTLD_DEFAULT, name.c_str());
  if (!sym)
    node_fail(n, "kernel '{}' is missing from this onnxc build", name);
  return reinterpret_cast<KernelFn>(sym);
}

/// The buffer of a kernel argument: one of the node's outputs, its constant inputs, or a
/// constant the lowering refers to. Zero-size tensors may have a null buffer.
void *argument_data(const Node &n, const Value *arg, const std::vector<const Tensor *> &inputs,
                    std::vector<Tensor> &outs) {
  for (size_t i = 0; i < n.outputs.size(); ++i)
    if (arg == n.outputs[i])
      return outs[i].data();
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (arg == n.inputs[i] && i < inputs.size() && inputs[i])
      return const_cast<uint8_t *>(inputs[i]->data());
  if (arg->constant)
    return const_cast<uint8_t *>(arg->constant->data());
  node_fail(n, "cannot evaluate: value '{}' is not constant", arg->name);
}

/// Runs the node's lowered kernel natively on the constant inputs.
std::vector<Tensor> run_kernel(const Node &n, const std::vector<const Tensor *> &inputs) {
  KernelCall call = n.def->lower(n);
  std::vector<Tensor> outs;
  for (Value *o : n.outputs)
    outs.emplace_back(o->type.dtype, o->type.static_dims());
  std::vector<void *> ptrs;
  for (Value *arg : call.args)
    ptrs.push_back(arg ? argument_data(n, arg, inputs, outs) : nullptr);
  for (const KernelCall::Derived &d : call.derived) // constants the lowering made (packed W)
    ptrs.at(d.slot) = const_cast<uint8_t *>(d.tensor->data());
  std::vector<uint8_t> scratch(static_cast<size_t>(call.scratch_bytes));
  if (call.scratch_bytes > 0)
    ptrs.push_back(scratch.data());
  NativeRuntime rt;
  int32_t status = find_native_kernel(n, call.kernel)(rt.handle(), ptrs.data(), call.params.data());
  if (status != 0)
    node_fail(n, "{}", rt.error());
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
