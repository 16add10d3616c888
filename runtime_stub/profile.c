/* profile.c — per-node timings of models compiled with `onnxc compile --profile`.
 *
 * Generated code of a profile build calls onnxc_rt_profile_begin at the start of each run and
 * onnxc_rt_profile_node after every kernel call; each reads CLOCK_MONOTONIC once, so the calls'
 * intervals tile the run. Slots live in the context (allocated by onnxc_create), so a run never
 * allocates. Libraries compiled without --profile contain no calls to these helpers, and the
 * exported onnxc_profile_* functions report ONNXC_ERROR_UNSUPPORTED.
 */
#include "runtime_stub/stub_internal.h"

static uint64_t now_ns(void) {
  struct onnxc_timespec ts;
  if (clock_gettime(ONNXC_CLOCK_MONOTONIC, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

ONNXC_HIDDEN uint64_t onnxc_rt_profile_begin(onnxc_rt *rt) {
  uint64_t t = now_ns();
  rt->profile_run_start = t;
  return t;
}

ONNXC_HIDDEN uint64_t onnxc_rt_profile_node(onnxc_rt *rt, int32_t node, uint64_t start) {
  uint64_t t = now_ns();
  if (rt->profile && node >= 0 && (uint32_t)node < onnxc__model.num_profile_nodes) {
    onnxc_profile_slot *s = &rt->profile[node];
    s->start_ns = start - rt->profile_run_start;
    s->duration_ns = t >= start ? t - start : 0;
    s->total_ns += s->duration_ns;
    s->count += 1;
  }
  return t;
}

ONNXC_API int32_t onnxc_profile_num_nodes(void) {
  return onnxc__model.profile_nodes ? (int32_t)onnxc__model.num_profile_nodes : -1;
}

ONNXC_API onnxc_status onnxc_profile_node(const onnxc_context *ctx, int32_t index,
                                          onnxc_profile_node_info *info) {
  if (!onnxc__model.profile_nodes)
    return ONNXC_ERROR_UNSUPPORTED;
  if (!ctx || !info)
    return ONNXC_ERROR_INVALID_ARGUMENT;
  if (index < 0 || (uint32_t)index >= onnxc__model.num_profile_nodes)
    return ONNXC_ERROR_INDEX_OUT_OF_RANGE;
  const onnxc_profile_node_desc *d = &onnxc__model.profile_nodes[index];
  const onnxc_profile_slot *s = &ctx->rt.profile[index];
  info->name = d->name;
  info->op_type = d->op_type;
  info->input_shapes = d->input_shapes;
  info->output_shapes = d->output_shapes;
  info->flops = d->flops;
  info->start_ns = s->start_ns;
  info->duration_ns = s->duration_ns;
  info->total_ns = s->total_ns;
  info->count = s->count;
  return ONNXC_OK;
}

ONNXC_API onnxc_status onnxc_profile_reset(onnxc_context *ctx) {
  if (!onnxc__model.profile_nodes)
    return ONNXC_ERROR_UNSUPPORTED;
  if (!ctx)
    return ONNXC_ERROR_INVALID_ARGUMENT;
  memset(ctx->rt.profile, 0, (size_t)onnxc__model.num_profile_nodes * sizeof(onnxc_profile_slot));
  return ONNXC_OK;
}
