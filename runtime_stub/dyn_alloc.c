/* dyn_alloc.c — the run-scoped, bounded dynamic allocator of a context.
 *
 * Kernels whose output size depends on the data (string tensors today; data-dependent output
 * shapes later) take memory here with onnxc_rt_dyn_alloc. Blocks come from libc malloc and are
 * carved by a bump pointer; all of them are freed at the start of the next run and at destroy,
 * so what a run hands out (e.g. the strings its string outputs point to) stays valid until then.
 * The bytes handed out in one run are capped by the context's limit (onnxc_set_dynamic_limit).
 */
#include "runtime_stub/stub_internal.h"

/// Header of one malloc'ed block; the usable bytes follow it.
typedef struct onnxc_dyn_block {
  struct onnxc_dyn_block *next;
  uint64_t capacity; ///< usable bytes after the header
  uint64_t used;     ///< bytes handed out from this block
  uint64_t pad;      ///< keeps the payload 32-byte aligned
} onnxc_dyn_block;

/// Smallest block malloc'ed: small allocations share one block.
#define ONNXC_DYN_BLOCK_BYTES ((uint64_t)64 * 1024)
/// Alignment of every pointer onnxc_rt_dyn_alloc returns.
#define ONNXC_DYN_ALIGN 16u

void onnxc_dyn_init(onnxc_rt *rt) {
  rt->dyn_blocks = 0;
  rt->dyn_used = 0;
  rt->dyn_limit = ONNXC_DEFAULT_DYNAMIC_LIMIT;
}

void onnxc_dyn_reset(onnxc_rt *rt) {
  onnxc_dyn_block *b = (onnxc_dyn_block *)rt->dyn_blocks;
  while (b) {
    onnxc_dyn_block *next = b->next;
    free(b);
    b = next;
  }
  rt->dyn_blocks = 0;
  rt->dyn_used = 0;
}

/// Records the failure of a request of `bytes` and returns NULL.
static void *dyn_fail(onnxc_rt *rt, uint64_t bytes, int over_limit) {
  char buf[200];
  onnxc_msg m = onnxc_msg_begin(buf, sizeof buf);
  onnxc_msg_str(&m, "needs ");
  onnxc_msg_u64(&m, bytes);
  onnxc_msg_str(&m, " bytes of dynamic memory");
  if (over_limit) {
    onnxc_msg_str(&m, " beyond the ");
    onnxc_msg_u64(&m, rt->dyn_used);
    onnxc_msg_str(&m, " this run already uses; the limit is ");
    onnxc_msg_u64(&m, rt->dyn_limit);
    onnxc_msg_str(&m, " bytes per run (onnxc_set_dynamic_limit)");
  } else {
    onnxc_msg_str(&m, ": malloc failed");
  }
  onnxc_rt_fail(rt, ONNXC_STATUS_OUT_OF_MEMORY, buf);
  return 0;
}

void *onnxc_rt_dyn_alloc(onnxc_rt *rt, uint64_t bytes) {
  uint64_t need = (bytes + (ONNXC_DYN_ALIGN - 1)) & ~(uint64_t)(ONNXC_DYN_ALIGN - 1);
  if (need < bytes || need > rt->dyn_limit || rt->dyn_used > rt->dyn_limit - need)
    return dyn_fail(rt, bytes, 1);
  onnxc_dyn_block *b = (onnxc_dyn_block *)rt->dyn_blocks;
  if (!b || b->capacity - b->used < need) {
    uint64_t cap = need > ONNXC_DYN_BLOCK_BYTES ? need : ONNXC_DYN_BLOCK_BYTES;
    if (cap > SIZE_MAX - sizeof(onnxc_dyn_block))
      return dyn_fail(rt, bytes, 0);
    onnxc_dyn_block *nb = (onnxc_dyn_block *)malloc((size_t)(sizeof *nb + cap));
    if (!nb)
      return dyn_fail(rt, bytes, 0);
    nb->capacity = cap;
    nb->used = 0;
    nb->next = b;
    rt->dyn_blocks = nb;
    b = nb;
  }
  void *p = (unsigned char *)(b + 1) + b->used;
  b->used += need;
  rt->dyn_used += need;
  return p;
}

ONNXC_API onnxc_status onnxc_set_dynamic_limit(onnxc_context *ctx, uint64_t bytes) {
  if (!ctx)
    return ONNXC_ERROR_INVALID_ARGUMENT;
  onnxc_rt_clear_error(&ctx->rt);
  ctx->rt.dyn_limit = bytes;
  return ONNXC_OK;
}
