/* run.c — onnxc_run / onnxc_run_buffers: argument validation, then the generated model. */
#include "runtime_stub/stub_internal.h"

/// Starts "<what> <index> ('<name>'): " in the context's error buffer.
static onnxc_msg tensor_error(onnxc_rt *rt, const char *what, int32_t index,
                              const onnxc_tensor_desc *d) {
  onnxc_msg m = onnxc_msg_begin(rt->error, sizeof rt->error);
  onnxc_msg_str(&m, what);
  onnxc_msg_str(&m, " ");
  onnxc_msg_i64(&m, index);
  onnxc_msg_str(&m, " ('");
  onnxc_msg_str(&m, d->name);
  onnxc_msg_str(&m, "'): ");
  __atomic_store_n(&rt->error_claimed, 1, __ATOMIC_RELAXED);
  return m;
}

static onnxc_status dtype_error(onnxc_rt *rt, const char *what, int32_t index,
                                const onnxc_tensor_desc *d, int32_t got) {
  onnxc_msg m = tensor_error(rt, what, index, d);
  onnxc_msg_str(&m, "dtype is ");
  onnxc_msg_str(&m, onnxc_dtype_name(got));
  onnxc_msg_str(&m, ", the model expects ");
  onnxc_msg_str(&m, onnxc_dtype_name(d->dtype));
  return ONNXC_ERROR_DTYPE_MISMATCH;
}

static onnxc_status size_error(onnxc_rt *rt, const char *what, int32_t index,
                               const onnxc_tensor_desc *d, uint64_t got, uint64_t needed) {
  onnxc_msg m = tensor_error(rt, what, index, d);
  onnxc_msg_str(&m, "size_bytes is ");
  onnxc_msg_u64(&m, got);
  onnxc_msg_str(&m, ", the model needs ");
  onnxc_msg_u64(&m, needed);
  return ONNXC_ERROR_BUFFER_TOO_SMALL;
}

/// The values of the model's symbols in one onnxc_run, and which input bound each.
typedef struct symbol_values {
  int64_t value[ONNXC_MAX_SYMBOLS];
  int32_t bound_by[ONNXC_MAX_SYMBOLS]; ///< input index, -1 while unbound
} symbol_values;

/// Binds the symbols of input i's run-time dims from its shape, or checks them against the
/// values earlier inputs gave and against their ranges.
static onnxc_status bind_symbols(onnxc_rt *rt, int32_t i, const onnxc_tensor *t,
                                 const onnxc_tensor_desc *d, symbol_values *sv) {
  for (int32_t k = 0; d->dim_symbols && k < d->rank; ++k) {
    int32_t s = d->dim_symbols[k];
    if (s < 0)
      continue;
    const onnxc_symbol_desc *sym = &onnxc__model.symbols[s];
    int64_t v = t->shape[k];
    int out_of_range = v < sym->min || v > sym->max;
    if (!out_of_range && (sv->bound_by[s] < 0 || sv->value[s] == v)) {
      if (sv->bound_by[s] < 0) {
        sv->value[s] = v;
        sv->bound_by[s] = i;
      }
      continue;
    }
    onnxc_msg m = tensor_error(rt, "input", i, d);
    onnxc_msg_str(&m, "dim ");
    onnxc_msg_i64(&m, k);
    onnxc_msg_str(&m, " ('");
    onnxc_msg_str(&m, sym->name);
    onnxc_msg_str(&m, "') is ");
    onnxc_msg_i64(&m, v);
    if (out_of_range) {
      onnxc_msg_str(&m, ", outside the range ");
      onnxc_msg_i64(&m, sym->min);
      onnxc_msg_str(&m, "..");
      onnxc_msg_i64(&m, sym->max);
      onnxc_msg_str(&m, " the model was compiled for (onnxc compile --dim NAME=MIN..MAX)");
    } else {
      onnxc_msg_str(&m, ", but input ");
      onnxc_msg_i64(&m, sv->bound_by[s]);
      onnxc_msg_str(&m, " ('");
      onnxc_msg_str(&m, onnxc__model.inputs[sv->bound_by[s]].name);
      onnxc_msg_str(&m, "') gave it ");
      onnxc_msg_i64(&m, sv->value[s]);
    }
    return ONNXC_ERROR_SHAPE_MISMATCH;
  }
  return ONNXC_OK;
}

/// Bytes of a tensor of desc d with the symbols at their bound values.
static uint64_t bytes_at(const onnxc_tensor_desc *d, const symbol_values *sv) {
  uint64_t bytes = d->size_bytes;
  for (int32_t k = 0; d->dim_symbols && k < d->rank; ++k)
    if (d->dim_symbols[k] >= 0)
      bytes *= (uint64_t)sv->value[d->dim_symbols[k]];
  return bytes;
}

/// Checks that no element of string input `i` (an array of `const char *`) is NULL.
static onnxc_status check_strings(onnxc_rt *rt, int32_t i, const void *data,
                                  const onnxc_tensor_desc *d, uint64_t bytes) {
  if (d->dtype != ONNXC_DTYPE_STRING || !data)
    return ONNXC_OK;
  const char *const *s = (const char *const *)data;
  uint64_t n = bytes / sizeof(const char *);
  for (uint64_t k = 0; k < n; ++k)
    if (!s[k]) {
      onnxc_msg m = tensor_error(rt, "input", i, d);
      onnxc_msg_str(&m, "string element ");
      onnxc_msg_u64(&m, k);
      onnxc_msg_str(&m, " is NULL");
      return ONNXC_ERROR_INVALID_ARGUMENT;
    }
  return ONNXC_OK;
}

static onnxc_status check_input(onnxc_rt *rt, int32_t i, const onnxc_tensor *t,
                                const onnxc_tensor_desc *d, symbol_values *sv) {
  if (t->dtype != d->dtype)
    return dtype_error(rt, "input", i, d, t->dtype);
  int same = t->rank == d->rank;
  for (int32_t k = 0; same && k < d->rank; ++k)
    same = d->dims[k] < 0 || t->shape[k] == d->dims[k];
  if (!same) {
    onnxc_msg m = tensor_error(rt, "input", i, d);
    onnxc_msg_str(&m, "shape is ");
    if (t->rank < 0 || t->rank > ONNXC_MAX_RANK) {
      onnxc_msg_str(&m, "of rank ");
      onnxc_msg_i64(&m, t->rank);
    } else {
      onnxc_msg_dims(&m, t->shape, t->rank);
    }
    onnxc_msg_str(&m, ", the model expects ");
    onnxc_msg_dims(&m, d->dims, d->rank);
    return ONNXC_ERROR_SHAPE_MISMATCH;
  }
  onnxc_status st = bind_symbols(rt, i, t, d, sv);
  if (st != ONNXC_OK)
    return st;
  uint64_t needed = bytes_at(d, sv);
  if (t->size_bytes < needed)
    return size_error(rt, "input", i, d, t->size_bytes, needed);
  if (!t->data && needed > 0) {
    onnxc_msg m = tensor_error(rt, "input", i, d);
    onnxc_msg_str(&m, "data is NULL");
    return ONNXC_ERROR_INVALID_ARGUMENT;
  }
  return check_strings(rt, i, t->data, d, needed);
}

static onnxc_status check_output(onnxc_rt *rt, int32_t i, const onnxc_tensor *t,
                                 const onnxc_tensor_desc *d, const symbol_values *sv) {
  if (t->dtype != d->dtype)
    return dtype_error(rt, "output", i, d, t->dtype);
  if (onnxc_is_held_output(d))
    return ONNXC_OK; /* its size is known after the run (copy_held_output) */
  uint64_t needed = bytes_at(d, sv);
  if (t->size_bytes < needed)
    return size_error(rt, "output", i, d, t->size_bytes, needed);
  if (!t->data && needed > 0) {
    onnxc_msg m = tensor_error(rt, "output", i, d);
    onnxc_msg_str(&m, "data is NULL");
    return ONNXC_ERROR_INVALID_ARGUMENT;
  }
  return ONNXC_OK;
}

/// Checks each declared tensor's rank fits an onnxc_tensor (else onnxc_run cannot describe it).
static onnxc_status check_rank_fits(onnxc_rt *rt, const char *what, int32_t i,
                                    const onnxc_tensor_desc *d) {
  if (d->rank <= ONNXC_MAX_RANK)
    return ONNXC_OK;
  onnxc_msg m = tensor_error(rt, what, i, d);
  onnxc_msg_str(&m, "its rank exceeds ONNXC_MAX_RANK; use onnxc_run_buffers");
  return ONNXC_ERROR_INVALID_ARGUMENT;
}

static onnxc_status run_model(onnxc_context *ctx, int tile) {
  ctx->rt.num_shapes = 0; /* onnxc_rt_copy_shape reads only this run's shapes */
  int32_t st = onnxc__model.device ? onnxc_cuda_run(ctx)
                                   : (tile ? onnxc__model.run_tile : onnxc__model_run)(
                                         &ctx->rt, ctx->arena, ctx->weights, ctx->input_ptrs,
                                         (void *const *)ctx->output_ptrs);
  if (st == ONNXC_OK)
    return ONNXC_OK;
  if (ctx->rt.error[0] == '\0')
    onnxc_rt_set_error(&ctx->rt, (onnxc_status)st, "the model failed without a message");
  if (st < 0 || st > ONNXC_ERROR_RUNTIME)
    st = ONNXC_ERROR_RUNTIME;
  return (onnxc_status)st;
}

/// Bytes of one sample of a tensor whose dim 0 is the batch (symbol 0), else 0.
static uint64_t sample_stride(const onnxc_tensor_desc *d, const symbol_values *sv) {
  if (!d->dim_symbols || d->rank == 0 || d->dim_symbols[0] != 0)
    return 0;
  return bytes_at(d, sv) / (uint64_t)sv->value[0];
}

/// ONNXC_EXEC_PER_SAMPLE: runs the code on slices of the batched tensors (dim 0 is the batch;
/// the others are shared): chunks of up to chunk_batch samples (the code's extent), or whole
/// tiles and then one sample at a time.

static onnxc_status run_per_sample(onnxc_context *ctx, const onnxc_tensor *inputs,
                                   const onnxc_tensor *outputs, const symbol_values *sv) {
  const int64_t tile = onnxc__model.run_tile ? (int64_t)onnxc__model.tile_batch : 0;
  const int64_t batch = sv->value[0];
  const int64_t chunk = (int64_t)onnxc__model.chunk_batch;
  for (int64_t b = 0; b < batch;) {
    /* chunks of up to `chunk` samples; else whole tiles, then one sample at a time */
    const int64_t n = chunk > 0                       ? (batch - b < chunk ? batch - b : chunk)
                      : tile > 1 && b + tile <= batch ? tile
                                                      : 1;
    const int whole_tile = chunk == 0 && tile > 1 && n == tile;
    ctx->rt.symbols[0] = n; /* the count chunked code reads; others ignore it */
    for (uint32_t i = 0; i < onnxc__model.num_inputs; ++i) {
      uint64_t stride = sample_stride(&onnxc__model.inputs[i], sv);
      ctx->input_ptrs[i] = (const unsigned char *)inputs[i].data + (uint64_t)b * stride;
    }
    for (uint32_t i = 0; i < onnxc__model.num_outputs; ++i) {
      uint64_t stride = sample_stride(&onnxc__model.outputs[i], sv);
      ctx->output_ptrs[i] = (unsigned char *)outputs[i].data + (uint64_t)b * stride;
    }
    onnxc_status st = run_model(ctx, whole_tile);
    if (st != ONNXC_OK)
      return st;
    b += n;
  }
  return ONNXC_OK;
}

/// Bits of one element of dtype (0 for unknown types).
static uint64_t dtype_bits(int32_t dtype) {
  switch (dtype) {
  case ONNXC_DTYPE_UINT8:
  case ONNXC_DTYPE_INT8:
  case ONNXC_DTYPE_BOOL:
  case 17: /* the float8 types */
  case 18:
  case 19:
  case 20:
  case 24:
    return 8;
  case ONNXC_DTYPE_UINT16:
  case ONNXC_DTYPE_INT16:
  case ONNXC_DTYPE_FLOAT16:
  case ONNXC_DTYPE_BFLOAT16:
    return 16;
  case ONNXC_DTYPE_FLOAT:
  case ONNXC_DTYPE_INT32:
  case ONNXC_DTYPE_UINT32:
    return 32;
  case ONNXC_DTYPE_INT64:
  case ONNXC_DTYPE_UINT64:
  case ONNXC_DTYPE_DOUBLE:
  case ONNXC_DTYPE_COMPLEX64:
    return 64;
  case ONNXC_DTYPE_COMPLEX128:
    return 128;
  case ONNXC_DTYPE_STRING:
    return 8 * sizeof(const char *);
  case 21: /* uint4, int4, float4e2m1 */
  case 22:
  case 23:
    return 4;
  case 25: /* uint2, int2 */
  case 26:
    return 2;
  default:
    return 0;
  }
}

/// The shape and bytes of held output i's result in this run: run-time counts from the
/// symbols, dims set by the run from its shape slot. -1 if the run reported no shape.
static int64_t held_result(const onnxc_context *ctx, int32_t i, const symbol_values *sv,
                           int32_t *rank, int64_t *shape) {
  const onnxc_tensor_desc *d = &onnxc__model.outputs[i];
  const int64_t *slot = ctx->held_shapes + (size_t)i * (ONNXC_MAX_RANK + 1);
  int by_run = 0;
  for (int32_t k = 0; k < d->rank; ++k)
    by_run |= d->dim_symbols[k] == ONNXC_DIM_SET_BY_RUN;
  if (!by_run) {
    *rank = d->rank;
    for (int32_t k = 0; k < d->rank; ++k)
      shape[k] = d->dim_symbols[k] >= 0 ? sv->value[d->dim_symbols[k]] : d->dims[k];
    return (int64_t)bytes_at(d, sv);
  }
  if (slot[0] < 0 || slot[0] > ONNXC_MAX_RANK)
    return -1;
  *rank = (int32_t)slot[0];
  uint64_t numel = 1;
  for (int32_t k = 0; k < *rank; ++k) {
    shape[k] = slot[1 + k];
    if (shape[k] < 0)
      return -1;
    numel *= (uint64_t)shape[k];
  }
  const uint64_t bits = dtype_bits(d->dtype), bytes = (numel * bits + 7) / 8;
  return bits == 0 || (bytes > onnxc_max_bytes(d) && !ctx->held_data[i]) ? -1 : (int64_t)bytes;
}

/// An output with a run-time count or a shape set by the run: its shape from the run, and its
/// result copied from the library-owned buffer into the caller's, if that is large enough.
static onnxc_status copy_held_output(onnxc_context *ctx, int32_t i, onnxc_tensor *t,
                                     const onnxc_tensor_desc *d, const symbol_values *sv) {
  const int64_t got = held_result(ctx, i, sv, &t->rank, t->shape);
  if (got < 0) {
    onnxc_msg m = tensor_error(&ctx->rt, "output", i, d);
    onnxc_msg_str(&m, "the run reported no valid shape for it (internal error)");
    return ONNXC_ERROR_RUNTIME;
  }
  uint64_t needed = (uint64_t)got;
  if (t->size_bytes < needed || (!t->data && needed > 0)) {
    onnxc_msg m = tensor_error(&ctx->rt, "output", i, d);
    onnxc_msg_str(&m, "the result is ");
    onnxc_msg_dims(&m, t->shape, t->rank);
    onnxc_msg_str(&m, " (");
    onnxc_msg_u64(&m, needed);
    onnxc_msg_str(&m, " bytes), but size_bytes is ");
    onnxc_msg_u64(&m, t->size_bytes);
    onnxc_msg_str(&m, !t->data && needed > 0 ? " and data is NULL" : "");
    onnxc_msg_str(&m, "; its shape is in the output's shape, and onnxc_output_result reads the "
                      "result until the next run");
    return ONNXC_ERROR_BUFFER_TOO_SMALL;
  }
  if (needed > 0)
    memcpy(t->data, ctx->held_data[i] ? ctx->held_data[i] : ctx->held_outputs[i], (size_t)needed);
  return ONNXC_OK;
}

static onnxc_status check_counts(onnxc_rt *rt, int32_t num_inputs, int32_t num_outputs) {
  if (num_inputs != (int32_t)onnxc__model.num_inputs ||
      num_outputs != (int32_t)onnxc__model.num_outputs) {
    onnxc_msg m = onnxc_msg_begin(rt->error, sizeof rt->error);
    onnxc_msg_str(&m, "onnxc_run: got ");
    onnxc_msg_i64(&m, num_inputs);
    onnxc_msg_str(&m, " inputs and ");
    onnxc_msg_i64(&m, num_outputs);
    onnxc_msg_str(&m, " outputs, the model has ");
    onnxc_msg_u64(&m, onnxc__model.num_inputs);
    onnxc_msg_str(&m, " and ");
    onnxc_msg_u64(&m, onnxc__model.num_outputs);
    __atomic_store_n(&rt->error_claimed, 1, __ATOMIC_RELAXED);
    return ONNXC_ERROR_INVALID_ARGUMENT;
  }
  return ONNXC_OK;
}

ONNXC_API onnxc_status onnxc_run(onnxc_context *ctx, const onnxc_tensor *inputs, int32_t num_inputs,
                                 onnxc_tensor *outputs, int32_t num_outputs) {
  if (!ctx)
    return ONNXC_ERROR_INVALID_ARGUMENT;
  onnxc_rt *rt = &ctx->rt;
  onnxc_rt_clear_error(rt);
  onnxc_status st = check_counts(rt, num_inputs, num_outputs);
  if (st != ONNXC_OK)
    return st;
  if ((num_inputs > 0 && !inputs) || (num_outputs > 0 && !outputs))
    return onnxc_rt_set_error(rt, ONNXC_ERROR_INVALID_ARGUMENT,
                              "onnxc_run: inputs or outputs is NULL");
  symbol_values sv;
  for (int32_t s = 0; s < ONNXC_MAX_SYMBOLS; ++s) {
    sv.value[s] = 1;
    sv.bound_by[s] = -1;
  }
  for (int32_t i = 0; i < num_inputs; ++i) {
    const onnxc_tensor_desc *d = &onnxc__model.inputs[i];
    if ((st = check_rank_fits(rt, "input", i, d)) != ONNXC_OK ||
        (st = check_input(rt, i, &inputs[i], d, &sv)) != ONNXC_OK)
      return st;
    ctx->input_ptrs[i] = inputs[i].data;
  }
  for (int32_t i = 0; i < num_outputs; ++i) {
    const onnxc_tensor_desc *d = &onnxc__model.outputs[i];
    if ((st = check_rank_fits(rt, "output", i, d)) != ONNXC_OK ||
        (st = check_output(rt, i, &outputs[i], d, &sv)) != ONNXC_OK)
      return st;
    ctx->output_ptrs[i] = ctx->held_outputs[i] ? ctx->held_outputs[i] : outputs[i].data;
  }
  ctx->held_valid = 0;
  for (uint32_t i = 0; i < onnxc__model.num_outputs; ++i) {
    ctx->held_shapes[(size_t)i * (ONNXC_MAX_RANK + 1)] = -1;
    ctx->held_data[i] = 0; /* freed by onnxc_dyn_reset below */
  }
  onnxc_dyn_reset(rt); /* what the previous run allocated (its string outputs) */
  for (int32_t s = 0; s < ONNXC_MAX_SYMBOLS; ++s)
    rt->symbols[s] = sv.value[s];
  if (onnxc__model.exec_mode == ONNXC_EXEC_PER_SAMPLE)
    st = run_per_sample(ctx, inputs, outputs, &sv);
  else
    st = run_model(ctx, 0);
  if (st != ONNXC_OK)
    return st;
  for (uint32_t s = 0; s < onnxc__model.num_symbols; ++s)
    if (onnxc__model.symbols[s].count) /* set by the kernel that counts */
      sv.value[s] = rt->symbols[s];
  ctx->held_valid = 1;
  for (int32_t i = 0; i < num_outputs; ++i) {
    const onnxc_tensor_desc *d = &onnxc__model.outputs[i];
    if (ctx->held_outputs[i]) {
      if ((st = copy_held_output(ctx, i, &outputs[i], d, &sv)) != ONNXC_OK)
        return st;
      continue;
    }
    outputs[i].rank = d->rank;
    for (int32_t k = 0; k < d->rank; ++k)
      outputs[i].shape[k] =
          d->dim_symbols && d->dim_symbols[k] >= 0 ? sv.value[d->dim_symbols[k]] : d->dims[k];
  }
  return ONNXC_OK;
}

ONNXC_API onnxc_status onnxc_run_buffers(onnxc_context *ctx, const void *const *inputs,
                                         void *const *outputs) {
  if (!ctx)
    return ONNXC_ERROR_INVALID_ARGUMENT;
  onnxc_rt *rt = &ctx->rt;
  onnxc_rt_clear_error(rt);
  if ((onnxc__model.num_inputs > 0 && !inputs) || (onnxc__model.num_outputs > 0 && !outputs))
    return onnxc_rt_set_error(rt, ONNXC_ERROR_INVALID_ARGUMENT,
                              "onnxc_run_buffers: inputs or outputs is NULL");
  int held = 0;
  for (uint32_t i = 0; i < onnxc__model.num_outputs; ++i)
    held |= ctx->held_outputs[i] != 0;
  if (onnxc__model.num_symbols > 0 || held)
    return onnxc_rt_set_error(rt, ONNXC_ERROR_INVALID_ARGUMENT,
                              "onnxc_run_buffers: the model has run-time dims (or outputs shaped "
                              "by a run-time count or by values), which only tensors with shapes "
                              "can give or take: use "
                              "onnxc_run (or the typed NAME_infer)");
  for (uint32_t i = 0; i < onnxc__model.num_inputs; ++i) {
    const onnxc_tensor_desc *d = &onnxc__model.inputs[i];
    if (!inputs[i] && d->size_bytes > 0) {
      onnxc_msg m = tensor_error(rt, "input", (int32_t)i, d);
      onnxc_msg_str(&m, "buffer is NULL");
      return ONNXC_ERROR_INVALID_ARGUMENT;
    }
    onnxc_status st = check_strings(rt, (int32_t)i, inputs[i], d, d->size_bytes);
    if (st != ONNXC_OK)
      return st;
    ctx->input_ptrs[i] = inputs[i];
  }
  for (uint32_t i = 0; i < onnxc__model.num_outputs; ++i) {
    const onnxc_tensor_desc *d = &onnxc__model.outputs[i];
    if (!outputs[i] && d->size_bytes > 0) {
      onnxc_msg m = tensor_error(rt, "output", (int32_t)i, d);
      onnxc_msg_str(&m, "buffer is NULL");
      return ONNXC_ERROR_INVALID_ARGUMENT;
    }
    ctx->output_ptrs[i] = outputs[i];
  }
  onnxc_dyn_reset(rt); /* what the previous run allocated (its string outputs) */
  return run_model(ctx, 0);
}

ONNXC_API onnxc_status onnxc_output_result(const onnxc_context *ctx, int32_t i, onnxc_tensor *out) {
  if (!ctx || !out)
    return ONNXC_ERROR_INVALID_ARGUMENT;
  if (i < 0 || (uint32_t)i >= onnxc__model.num_outputs)
    return ONNXC_ERROR_INDEX_OUT_OF_RANGE;
  const onnxc_tensor_desc *d = &onnxc__model.outputs[i];
  if (!ctx->held_outputs[i] || !ctx->held_valid || d->rank > ONNXC_MAX_RANK)
    return ONNXC_ERROR_INVALID_ARGUMENT;
  symbol_values sv;
  for (int32_t s = 0; s < ONNXC_MAX_SYMBOLS; ++s)
    sv.value[s] = ctx->rt.symbols[s];
  const int64_t bytes = held_result(ctx, i, &sv, &out->rank, out->shape);
  if (bytes < 0)
    return ONNXC_ERROR_RUNTIME;
  out->data = ctx->held_data[i] ? ctx->held_data[i] : ctx->held_outputs[i];
  out->size_bytes = (uint64_t)bytes;
  out->dtype = d->dtype;
  return ONNXC_OK;
}

/// The table entry of `tensor` in this run, created (with no shape and no data) if `create`;
/// once all are used a new one takes the oldest's place.
static struct onnxc_rt_shape *shape_entry(onnxc_rt *rt, const void *tensor, int create) {
  const uint32_t n =
      rt->num_shapes < ONNXC_MAX_RUN_TIME_SHAPES ? rt->num_shapes : ONNXC_MAX_RUN_TIME_SHAPES;
  for (uint32_t e = 0; e < n; ++e)
    if (rt->shapes[e].tensor == tensor)
      return &rt->shapes[e];
  if (!create)
    return 0;
  struct onnxc_rt_shape *s = &rt->shapes[rt->num_shapes++ % ONNXC_MAX_RUN_TIME_SHAPES];
  s->tensor = tensor;
  s->data = 0;
  s->dynamic = 0;
  s->capacity = 0;
  s->rank = -1;
  return s;
}

void onnxc_rt_set_shape(onnxc_rt *rt, const void *tensor, int32_t rank, const int64_t *dims) {
  onnxc_context *ctx = (onnxc_context *)rt; /* rt is the context's first member */
  if (rank < 0 || rank > ONNXC_MAX_RANK)
    return;
  struct onnxc_rt_shape *s = shape_entry(rt, tensor, 1); /* keeps its data */
  s->rank = rank;
  for (int32_t k = 0; k < rank; ++k)
    s->dims[k] = dims[k];
  for (uint32_t i = 0; i < onnxc__model.num_outputs; ++i)
    if (ctx->held_outputs[i] == tensor) {
      int64_t *slot = ctx->held_shapes + (size_t)i * (ONNXC_MAX_RANK + 1);
      slot[0] = rank;
      for (int32_t k = 0; k < rank; ++k)
        slot[1 + k] = dims[k];
    }
}

/// The shape this run recorded for `tensor` (onnxc_rt_set_shape), NULL if none.
static const struct onnxc_rt_shape *recorded_shape(onnxc_rt *rt, const void *tensor) {
  const struct onnxc_rt_shape *s = shape_entry(rt, tensor, 0);
  return s && s->rank >= 0 ? s : 0;
}

int64_t onnxc_rt_shape_numel(onnxc_rt *rt, const void *tensor) {
  const struct onnxc_rt_shape *s = recorded_shape(rt, tensor);
  if (!s)
    return -1;
  int64_t numel = 1;
  for (int64_t k = 0; k < s->rank; ++k)
    numel *= s->dims[k];
  return numel;
}

int64_t onnxc_rt_shape_dim(onnxc_rt *rt, const void *tensor, int64_t k) {
  const struct onnxc_rt_shape *s = recorded_shape(rt, tensor);
  return s && k >= 0 && k < s->rank ? s->dims[k] : -1;
}

int32_t onnxc_rt_copy_shape(onnxc_rt *rt, const void *src, const void *dst) {
  const struct onnxc_rt_shape *s = recorded_shape(rt, src);
  if (!s)
    return onnxc_rt_fail(rt, ONNXC_STATUS_RUNTIME_ERROR,
                         "internal error: no shape was recorded for a value shaped at run time");
  const struct onnxc_rt_shape copy = *s; /* set_shape may overwrite this entry */
  onnxc_rt_set_shape(rt, dst, (int32_t)copy.rank, copy.dims);
  return 0;
}

/// Graph output i whose buffer is `tensor`, -1 if none.
static int32_t held_output_of(const onnxc_context *ctx, const void *tensor) {
  for (uint32_t i = 0; i < onnxc__model.num_outputs; ++i)
    if (ctx->held_outputs[i] == tensor)
      return (int32_t)i;
  return -1;
}

void *onnxc_rt_output_buffer(onnxc_rt *rt, void *tensor, uint64_t bytes) {
  onnxc_context *ctx = (onnxc_context *)rt; /* rt is the context's first member */
  const int32_t i = held_output_of(ctx, tensor);
  if (i < 0) {
    /* an intermediate whose data lives in run-scoped memory (onnxc_rt_mark_dynamic) */
    struct onnxc_rt_shape *s = shape_entry(rt, tensor, 0);
    if (!s || !s->dynamic)
      return tensor;
    void *p = onnxc_rt_dyn_alloc(rt, bytes ? bytes : 1);
    s = shape_entry(rt, tensor, 1); /* its entry, again: dyn_alloc records nothing here */
    s->data = p;
    return p;
  }
  if (bytes <= onnxc_max_bytes(&onnxc__model.outputs[i]))
    return tensor;
  void *p = onnxc_rt_dyn_alloc(rt, bytes);
  ctx->held_data[i] = p;
  return p;
}

void onnxc_rt_mark_dynamic(onnxc_rt *rt, const void *tensor) {
  struct onnxc_rt_shape *s = shape_entry(rt, tensor, 1);
  s->dynamic = 1;
  s->data = 0;
  s->capacity = 0;
  s->rank = -1;
}

void onnxc_rt_end_dynamic(onnxc_rt *rt, const void *tensor) {
  struct onnxc_rt_shape *s = shape_entry(rt, tensor, 0);
  if (s) /* the slot's next value (arena reuse) writes where it is again */
    s->dynamic = 0;
}

void onnxc_rt_forget(onnxc_rt *rt, const void *tensor) {
  struct onnxc_rt_shape *s = shape_entry(rt, tensor, 0);
  if (s) {
    s->dynamic = 0;
    s->data = 0;
    s->capacity = 0;
    s->rank = -1;
  }
}

void *onnxc_rt_value_data(onnxc_rt *rt, void *tensor) {
  const onnxc_context *ctx = (const onnxc_context *)rt;
  const int32_t i = held_output_of(ctx, tensor);
  if (i >= 0)
    return ctx->held_data[i] ? ctx->held_data[i] : tensor;
  const struct onnxc_rt_shape *s = shape_entry(rt, tensor, 0);
  return s && s->data ? s->data : tensor;
}

void *onnxc_rt_grow_buffer(onnxc_rt *rt, void *tensor, uint64_t used, uint64_t needed) {
  onnxc_context *ctx = (onnxc_context *)rt;
  const int32_t i = held_output_of(ctx, tensor);
  struct onnxc_rt_shape *s = shape_entry(rt, tensor, 1);
  if (!s->data) { /* first append: the graph output's buffer while it is large enough */
    s->capacity = i >= 0 ? onnxc_max_bytes(&onnxc__model.outputs[i]) : 0;
    s->data = i >= 0 ? tensor : 0;
  }
  if (needed <= s->capacity)
    return s->data;
  uint64_t cap = s->capacity * 2 > needed ? s->capacity * 2 : needed;
  cap = cap < 64 ? 64 : cap;
  void *old = s->data;
  void *p = onnxc_rt_dyn_alloc(rt, cap);
  if (!p)
    return 0;
  s = shape_entry(rt, tensor, 1); /* the same entry: dyn_alloc records no shape */
  if (old && used)
    __builtin_memcpy(p, old, used);
  s->data = p;
  s->capacity = cap;
  if (i >= 0)
    ctx->held_data[i] = p;
  return p;
}

void *onnxc_rt_alloc_like(onnxc_rt *rt, void *dst, const void *src, uint64_t elem_bytes) {
  const struct onnxc_rt_shape *s = recorded_shape(rt, src);
  if (!s) {
    onnxc_rt_fail(rt, ONNXC_STATUS_RUNTIME_ERROR,
                  "internal error: no shape was recorded for a value shaped at run time");
    return 0;
  }
  const struct onnxc_rt_shape shape = *s; /* the entries below may take this one's place */
  uint64_t bytes = elem_bytes;
  for (int64_t k = 0; k < shape.rank; ++k)
    bytes *= (uint64_t)shape.dims[k];
  if (held_output_of((const onnxc_context *)rt, dst) < 0)
    onnxc_rt_mark_dynamic(rt, dst);
  void *p = onnxc_rt_output_buffer(rt, dst, bytes);
  onnxc_rt_end_dynamic(rt, dst);
  if (p)
    onnxc_rt_set_shape(rt, dst, (int32_t)shape.rank, shape.dims);
  return p;
}

void onnxc_rt_set_count(onnxc_rt *rt, int64_t symbol, int64_t count) {
  if (symbol < 0 || symbol >= ONNXC_MAX_SYMBOLS || (uint64_t)symbol >= onnxc__model.num_symbols)
    return;
  const onnxc_symbol_desc *s = &onnxc__model.symbols[symbol];
  /* the generated code assumes min..max (LLVM range metadata): kernels keep to it */
  rt->symbols[symbol] = count < s->min ? s->min : count > s->max ? s->max : count;
}

int64_t onnxc_rt_symbol_value(onnxc_rt *rt, int32_t index) {
  return index >= 0 && index < ONNXC_MAX_SYMBOLS ? rt->symbols[index] : 1;
}

int64_t onnxc_rt_extent_word(const int64_t *pieces, int64_t n, int64_t s) {
  int64_t lo = 0, hi = n - 1; /* the last piece whose start <= s (the first otherwise) */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (pieces[4 * mid] <= s)
      lo = mid;
    else
      hi = mid - 1;
  }
  const int64_t *p = pieces + 4 * lo;
  uint64_t t = (uint64_t)(s - p[0]);
  uint64_t tri = t * (t - 1) / 2;
  return (int64_t)((uint64_t)p[1] + (uint64_t)p[2] * t + (uint64_t)p[3] * tri);
}
