/* runtime.c — the exported ABI (onnxc_runtime.h) on top of the generated model description. */
#include "runtime_stub/stub_internal.h"

#define ONNXC_MAX_THREADS 1024

ONNXC_API uint32_t onnxc_abi_version(void) { return ONNXC_ABI_VERSION; }
ONNXC_API const char *onnxc_model_name(void) { return onnxc__model.model_name; }
ONNXC_API const char *onnxc_signature_json(void) { return onnxc__model.signature_json; }
ONNXC_API uint64_t onnxc_arena_size(void) { return onnxc__model.arena_size; }
ONNXC_API int32_t onnxc_num_symbols(void) { return (int32_t)onnxc__model.num_symbols; }

ONNXC_API uint64_t onnxc_arena_size_for(const int64_t *values) {
  if (onnxc__model.num_symbols > 0 && !values)
    return 0;
  for (uint32_t s = 0; s < onnxc__model.num_symbols; ++s)
    if (!onnxc__model.symbols[s].count &&
        (values[s] < onnxc__model.symbols[s].min || values[s] > onnxc__model.symbols[s].max))
      return 0;
  return onnxc__model.arena_size; // per-sample runs: one sample's arena whatever the batch
}

ONNXC_API onnxc_status onnxc_symbol(int32_t index, onnxc_symbol_info *info) {
  if (!info)
    return ONNXC_ERROR_INVALID_ARGUMENT;
  if (index < 0 || (uint32_t)index >= onnxc__model.num_symbols)
    return ONNXC_ERROR_INDEX_OUT_OF_RANGE;
  info->name = onnxc__model.symbols[index].name;
  info->min = onnxc__model.symbols[index].min;
  info->max = onnxc__model.symbols[index].max;
  info->count = (int32_t)onnxc__model.symbols[index].count;
  return ONNXC_OK;
}
ONNXC_API uint64_t onnxc_arena_alignment(void) { return onnxc__model.arena_alignment; }
ONNXC_API int32_t onnxc_num_inputs(void) { return (int32_t)onnxc__model.num_inputs; }
ONNXC_API int32_t onnxc_num_outputs(void) { return (int32_t)onnxc__model.num_outputs; }

static onnxc_status describe(const onnxc_tensor_desc *descs, uint32_t count, int32_t index,
                             onnxc_tensor_info *info) {
  if (!info)
    return ONNXC_ERROR_INVALID_ARGUMENT;
  if (index < 0 || (uint32_t)index >= count)
    return ONNXC_ERROR_INDEX_OUT_OF_RANGE;
  const onnxc_tensor_desc *d = &descs[index];
  info->name = d->name;
  info->dtype = d->dtype;
  info->rank = d->rank;
  info->shape = d->dims;
  info->size_bytes = d->size_bytes;
  info->dim_symbols = d->dim_symbols;
  return ONNXC_OK;
}

ONNXC_API onnxc_status onnxc_input_info(int32_t index, onnxc_tensor_info *info) {
  return describe(onnxc__model.inputs, onnxc__model.num_inputs, index, info);
}

ONNXC_API onnxc_status onnxc_output_info(int32_t index, onnxc_tensor_info *info) {
  return describe(onnxc__model.outputs, onnxc__model.num_outputs, index, info);
}

/* ---- contexts ---- */

static uint64_t arena_alignment(void) {
  uint64_t a = onnxc__model.arena_alignment;
  return a < 16 ? 16 : a;
}

int onnxc_is_held_output(const onnxc_tensor_desc *d) {
  for (int32_t k = 0; d->dim_symbols && k < d->rank; ++k)
    if (d->dim_symbols[k] == ONNXC_DIM_SET_BY_RUN ||
        (d->dim_symbols[k] >= 0 && onnxc__model.symbols[d->dim_symbols[k]].count))
      return 1;
  return 0;
}

uint64_t onnxc_max_bytes(const onnxc_tensor_desc *d) {
  uint64_t bytes = d->size_bytes;
  for (int32_t k = 0; d->dim_symbols && k < d->rank; ++k)
    if (d->dim_symbols[k] >= 0)
      bytes *= (uint64_t)onnxc__model.symbols[d->dim_symbols[k]].max;
  return bytes;
}

static uint64_t held_bytes(const onnxc_tensor_desc *d) {
  return onnxc_is_held_output(d) ? (onnxc_max_bytes(d) + 63) / 64 * 64 : 0;
}

/// Allocates the library-owned buffers of the outputs with a run-time count.
static int alloc_held_outputs(onnxc_context *ctx) {
  uint64_t total = 0;
  for (uint32_t i = 0; i < onnxc__model.num_outputs; ++i)
    total += held_bytes(&onnxc__model.outputs[i]);
  if (total == 0)
    return 0;
  void *block = 0;
  if (total > SIZE_MAX || posix_memalign(&block, 64, (size_t)total) != 0)
    return -1;
  ctx->held = (unsigned char *)block;
  uint64_t at = 0;
  for (uint32_t i = 0; i < onnxc__model.num_outputs; ++i) {
    uint64_t n = held_bytes(&onnxc__model.outputs[i]);
    ctx->held_outputs[i] = n ? ctx->held + at : 0;
    at += n;
  }
  return 0;
}

/// Allocates a context with its profile slots (profile builds only, zeroed) and I/O pointer
/// slots, in one block, and its held outputs; the arena is set by the caller.
static onnxc_status new_context(onnxc_context **out) {
  uint64_t shapes = (uint64_t)onnxc__model.num_outputs * (ONNXC_MAX_RANK + 1) * sizeof(int64_t);
  uint64_t slots = (uint64_t)onnxc__model.num_inputs + 3 * (uint64_t)onnxc__model.num_outputs;
  uint64_t profile = onnxc__model.profile_nodes
                         ? (uint64_t)onnxc__model.num_profile_nodes * sizeof(onnxc_profile_slot)
                         : 0;
  onnxc_context *ctx =
      (onnxc_context *)malloc(sizeof *ctx + profile + shapes + slots * sizeof(void *));
  if (!ctx)
    return onnxc_set_create_error(ONNXC_ERROR_OUT_OF_MEMORY,
                                  "onnxc_create: out of memory allocating the context");
  memset(ctx, 0, sizeof *ctx + profile);
  onnxc_pool_init(&ctx->rt.pool);
  onnxc_dyn_init(&ctx->rt);
  if (onnxc__model.profile_nodes)
    ctx->rt.profile = (onnxc_profile_slot *)(ctx + 1);
  ctx->held_shapes = (int64_t *)((unsigned char *)(ctx + 1) + profile);
  ctx->input_ptrs = (const void **)((unsigned char *)ctx->held_shapes + shapes);
  ctx->output_ptrs = (void **)(ctx->input_ptrs + onnxc__model.num_inputs);
  ctx->held_outputs = ctx->output_ptrs + onnxc__model.num_outputs;
  ctx->held_data = ctx->held_outputs + onnxc__model.num_outputs;
  for (uint32_t i = 0; i < onnxc__model.num_outputs; ++i)
    ctx->held_outputs[i] = ctx->held_data[i] = 0;
  if (alloc_held_outputs(ctx) != 0) {
    free(ctx);
    return onnxc_set_create_error(ONNXC_ERROR_OUT_OF_MEMORY,
                                  "onnxc_create: out of memory allocating the buffers of the "
                                  "outputs with a run-time count");
  }
  *out = ctx;
  return ONNXC_OK;
}

/// Arenas from this size up are mapped in huge pages (alloc_arena).
#define ONNXC_HUGE_PAGE ((uint64_t)2 << 20)

/// Allocates the arena onnxc_create owns. One of 2 MiB or more is an anonymous mapping on a
/// 2 MiB boundary, rounded up to whole 2 MiB pages and advised as transparent huge pages
/// (Linux grants them under its default "madvise" policy): the first run's page faults, one per
/// 4 KiB page of the arena otherwise, fall to one per 2 MiB (unet_style's 21 MiB arena: 6.5 ms
/// of faults in 4 KiB pages, 1.2 ms in huge pages on the Zen 5 VM of session 45), and later
/// runs miss the TLB less. A smaller arena, or a kernel that refuses the mapping, takes
/// posix_memalign. Returns 0, or -1 when there is no memory.
static int alloc_arena(onnxc_context *ctx) {
  uint64_t size = onnxc__model.arena_size;
  /* On 32-bit targets an arena beyond SIZE_MAX cannot exist: fail instead of truncating. */
  if (size > SIZE_MAX - 2 * ONNXC_HUGE_PAGE)
    return -1;
  if (size >= ONNXC_HUGE_PAGE && arena_alignment() <= ONNXC_HUGE_PAGE) {
    uint64_t rounded = (size + ONNXC_HUGE_PAGE - 1) / ONNXC_HUGE_PAGE * ONNXC_HUGE_PAGE;
    uint64_t span = rounded + ONNXC_HUGE_PAGE; /* room to slide to a 2 MiB boundary */
    unsigned char *map = (unsigned char *)mmap(0, (size_t)span,
                                               ONNXC_PROT_READ | ONNXC_PROT_WRITE,
                                               ONNXC_MAP_PRIVATE | ONNXC_MAP_ANONYMOUS, -1, 0);
    if (map != (unsigned char *)ONNXC_MAP_FAILED) {
      uint64_t lead = (ONNXC_HUGE_PAGE - (uintptr_t)map % ONNXC_HUGE_PAGE) % ONNXC_HUGE_PAGE;
      if (lead)
        munmap(map, (size_t)lead);
      if (span - lead > rounded)
        munmap(map + lead + rounded, (size_t)(span - lead - rounded));
      ctx->arena = map + lead;
      ctx->arena_map = ctx->arena;
      ctx->arena_map_size = rounded;
      ctx->owns_arena = 1;
      madvise(ctx->arena, (size_t)rounded, ONNXC_MADV_HUGEPAGE); /* advice: failure is harmless */
      return 0;
    }
  }
  void *arena = 0;
  if (posix_memalign(&arena, (size_t)arena_alignment(), (size_t)size) != 0)
    return -1;
  ctx->arena = (unsigned char *)arena;
  ctx->owns_arena = 1;
  return 0;
}

onnxc_status onnxc_create_owned(onnxc_context **out) {
  onnxc_context *ctx = 0;
  onnxc_status st = new_context(&ctx);
  if (st != ONNXC_OK)
    return st;
  if (onnxc__model.arena_size > 0 && alloc_arena(ctx) != 0) {
    free(ctx->held);
    free(ctx);
    return onnxc_set_create_error(ONNXC_ERROR_OUT_OF_MEMORY,
                                  "onnxc_create: out of memory allocating the arena");
  }
  if (onnxc__model.device && (st = onnxc_cuda_create(ctx)) != ONNXC_OK) {
    onnxc_destroy(ctx);
    return st; /* onnxc_cuda_create recorded the message */
  }
  *out = ctx;
  return onnxc_set_create_error(ONNXC_OK, 0);
}

/// The error of onnxc_create / onnxc_create_with_arena for a model compiled with --weights-file.
static onnxc_status needs_weights(const char *msg) {
  return onnxc_set_create_error(ONNXC_ERROR_BAD_WEIGHTS, msg);
}

ONNXC_API onnxc_status onnxc_create(onnxc_context **out) {
  if (!out)
    return onnxc_set_create_error(ONNXC_ERROR_INVALID_ARGUMENT, "onnxc_create: out is NULL");
  *out = 0;
  if (onnxc__model.weights_external)
    return needs_weights("onnxc_create: this model was compiled with --weights-file; create its "
                         "contexts with onnxc_create_with_weights or "
                         "onnxc_create_with_weights_buffer");
  return onnxc_create_owned(out);
}

ONNXC_API onnxc_status onnxc_create_with_arena(void *arena, uint64_t arena_bytes,
                                               onnxc_context **out) {
  if (!out)
    return onnxc_set_create_error(ONNXC_ERROR_INVALID_ARGUMENT,
                                  "onnxc_create_with_arena: out is NULL");
  *out = 0;
  if (onnxc__model.weights_external)
    return needs_weights("onnxc_create_with_arena: this model was compiled with --weights-file; "
                         "create its contexts with onnxc_create_with_weights or "
                         "onnxc_create_with_weights_buffer");
  if (!arena && onnxc__model.arena_size > 0)
    return onnxc_set_create_error(ONNXC_ERROR_INVALID_ARGUMENT,
                                  "onnxc_create_with_arena: arena is NULL");
  if (arena_bytes < onnxc__model.arena_size)
    return onnxc_set_create_error(ONNXC_ERROR_BUFFER_TOO_SMALL,
                                  "onnxc_create_with_arena: arena_bytes is less than "
                                  "onnxc_arena_size()");
  if ((uintptr_t)arena % arena_alignment() != 0)
    return onnxc_set_create_error(ONNXC_ERROR_INVALID_ARGUMENT,
                                  "onnxc_create_with_arena: arena is not aligned to "
                                  "onnxc_arena_alignment()");
  onnxc_context *ctx = 0;
  onnxc_status st = new_context(&ctx);
  if (st != ONNXC_OK)
    return st;
  ctx->arena = (unsigned char *)arena;
  if (onnxc__model.device && (st = onnxc_cuda_create(ctx)) != ONNXC_OK) {
    onnxc_destroy(ctx);
    return st; /* onnxc_cuda_create recorded the message */
  }
  *out = ctx;
  return onnxc_set_create_error(ONNXC_OK, 0);
}

ONNXC_API void onnxc_destroy(onnxc_context *ctx) {
  if (!ctx)
    return;
  if (ctx->device)
    onnxc_cuda_destroy(ctx);
  onnxc_pool_destroy(&ctx->rt.pool);
  onnxc_dyn_reset(&ctx->rt);
  if (ctx->arena_map)
    munmap(ctx->arena_map, (size_t)ctx->arena_map_size);
  else if (ctx->owns_arena)
    free(ctx->arena);
  free(ctx->held);
  if (ctx->weights_map)
    munmap(ctx->weights_map, (size_t)ctx->weights_map_size);
  free(ctx);
}

ONNXC_API onnxc_status onnxc_set_num_threads(onnxc_context *ctx, int32_t n) {
  if (!ctx)
    return ONNXC_ERROR_INVALID_ARGUMENT;
  onnxc_rt_clear_error(&ctx->rt);
  if (n < 1 || n > ONNXC_MAX_THREADS)
    return onnxc_rt_set_error(&ctx->rt, ONNXC_ERROR_INVALID_ARGUMENT,
                              "onnxc_set_num_threads: n must be between 1 and 1024");
  if (n == ctx->rt.pool.num_threads)
    return ONNXC_OK;
  if (onnxc_pool_resize(&ctx->rt.pool, n) != 0)
    return onnxc_rt_set_error(&ctx->rt, ONNXC_ERROR_RUNTIME,
                              "onnxc_set_num_threads: could not start the threads; the context "
                              "now runs on the caller's thread only");
  return ONNXC_OK;
}

ONNXC_API const char *onnxc_last_error(const onnxc_context *ctx) {
  return ctx ? ctx->rt.error : onnxc_create_error();
}
