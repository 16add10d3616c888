/* The stand-in for an If branch that could not be compiled for the library's static input
 * shapes (compiler/passes/control_flow.cpp): taking it at run time is an error. The call's node
 * description carries the reason. No tensors, no params. */
#include "templates/cpu/kernel_abi.h"

extern "C" int32_t onnxc_k_branch_not_compiled(onnxc_rt *rt, void *const *, const int64_t *) {
  return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                       "the inputs select a branch that cannot run with the input shapes this "
                       "library was compiled for");
}
