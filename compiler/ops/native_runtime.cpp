#include "compiler/ops/native_runtime.h"

extern "C" void onnxc_parallel_for(onnxc_rt *, int64_t n, int64_t, onnxc_range_fn fn, void *ctx) {
  if (n > 0)
    fn(ctx, 0, n);
}

extern "C" void onnxc_parallel_for_params(onnxc_rt *, int64_t n, int64_t, onnxc_params_range_fn fn,
                                          const int64_t *params, void *ctx) {
  if (n > 0)
    fn(ctx, params, 0, n);
}

extern "C" int32_t onnxc_rt_fail(onnxc_rt *rt, int32_t status, const char *msg) {
  reinterpret_cast<onnxc::NativeRuntime *>(rt)->set_error(msg);
  return status;
}

extern "C" int32_t onnxc_rt_num_threads(onnxc_rt *) { return 1; }

extern "C" void *onnxc_rt_dyn_alloc(onnxc_rt *rt, uint64_t bytes) {
  return reinterpret_cast<onnxc::NativeRuntime *>(rt)->dyn_alloc(bytes);
}

// Run-time counts exist only in compiled models: the evaluator folds these ops from constants.
extern "C" void onnxc_rt_set_count(onnxc_rt *, int64_t, int64_t) {}
extern "C" void onnxc_rt_set_shape(onnxc_rt *, const void *, int32_t, const int64_t *) {}
extern "C" int32_t onnxc_rt_copy_shape(onnxc_rt *, const void *, const void *) { return 0; }
extern "C" int64_t onnxc_rt_shape_numel(onnxc_rt *, const void *) { return -1; }
extern "C" void *onnxc_rt_output_buffer(onnxc_rt *, void *tensor, uint64_t) { return tensor; }
extern "C" void onnxc_rt_forget(onnxc_rt *, const void *) {}
extern "C" void *onnxc_rt_grow_buffer(onnxc_rt *rt, void *, uint64_t, uint64_t) {
  reinterpret_cast<onnxc::NativeRuntime *>(rt)->set_error(
      "a Loop's scan output shaped by the run is not evaluated at compile time");
  return nullptr;
}
