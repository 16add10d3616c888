/* Helpers shared by the end-to-end C programs: the sample input, reading expected values,
 * comparing, and loading a model library through the generic ABI with dlopen. */
#ifndef ONNXC_E2E_COMMON_H
#define ONNXC_E2E_COMMON_H

#include "runtime_stub/onnxc_runtime.h"

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define E2E_MAX_VALUES 4096

/// Prints "FAIL: ..." and exits 1.
__attribute__((format(printf, 1, 2))) static inline _Noreturn void e2e_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("FAIL: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

/// The deterministic sample input of samples/make_sample_model.py.
static inline void e2e_sample_input(float *x, int n) {
  for (int i = 0; i < n; ++i)
    x[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
}

/// Reads whitespace-separated floats from `path`; returns how many.
static inline int e2e_read_floats(const char *path, float *out, int cap) {
  FILE *f = fopen(path, "r");
  if (!f)
    e2e_fail("cannot open %s", path);
  int n = 0;
  while (n < cap && fscanf(f, "%f", &out[n]) == 1)
    ++n;
  fclose(f);
  if (n == 0)
    e2e_fail("no values in %s", path);
  return n;
}

/// Fails unless got[i] is within 1e-6 + 1e-4 * |want[i]| of want[i] for every i.
static inline void e2e_expect_close(const char *what, const float *got, const float *want, int n) {
  for (int i = 0; i < n; ++i)
    if (!(fabsf(got[i] - want[i]) <= 1e-6f + 1e-4f * fabsf(want[i])))
      e2e_fail("%s: element %d is %.9g, expected %.9g", what, i, got[i], want[i]);
}

/// The generic ABI of one dlopened model library.
typedef struct e2e_model {
  void *handle;
  uint32_t (*abi_version)(void);
  const char *(*model_name)(void);
  const char *(*signature_json)(void);
  uint64_t (*arena_size)(void);
  uint64_t (*arena_alignment)(void);
  int32_t (*num_inputs)(void);
  int32_t (*num_outputs)(void);
  onnxc_status (*input_info)(int32_t, onnxc_tensor_info *);
  onnxc_status (*output_info)(int32_t, onnxc_tensor_info *);
  onnxc_status (*create)(onnxc_context **);
  onnxc_status (*create_with_arena)(void *, uint64_t, onnxc_context **);
  void (*destroy)(onnxc_context *);
  onnxc_status (*set_num_threads)(onnxc_context *, int32_t);
  onnxc_status (*run)(onnxc_context *, const onnxc_tensor *, int32_t, onnxc_tensor *, int32_t);
  onnxc_status (*run_buffers)(onnxc_context *, const void *const *, void *const *);
  const char *(*last_error)(const onnxc_context *);
} e2e_model;

static inline void *e2e_sym(void *handle, const char *path, const char *name) {
  void *p = dlsym(handle, name);
  if (!p)
    e2e_fail("%s does not export %s", path, name);
  return p;
}

/// dlopens `path` (RTLD_NOW | RTLD_LOCAL) and resolves the 16 ABI functions used here.
static inline e2e_model e2e_load(const char *path) {
  e2e_model m;
  m.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!m.handle)
    e2e_fail("dlopen %s: %s", path, dlerror());
#define E2E_SYM(field)                                                                           \
  do {                                                                                             \
    void *p_ = e2e_sym(m.handle, path, "onnxc_" #field);                                           \
    memcpy(&m.field, &p_, sizeof p_);                                                              \
  } while (0)
  E2E_SYM(abi_version);
  E2E_SYM(model_name);
  E2E_SYM(signature_json);
  E2E_SYM(arena_size);
  E2E_SYM(arena_alignment);
  E2E_SYM(num_inputs);
  E2E_SYM(num_outputs);
  E2E_SYM(input_info);
  E2E_SYM(output_info);
  E2E_SYM(create);
  E2E_SYM(create_with_arena);
  E2E_SYM(destroy);
  E2E_SYM(set_num_threads);
  E2E_SYM(run);
  E2E_SYM(run_buffers);
  E2E_SYM(last_error);
#undef E2E_SYM
  if (m.abi_version() != ONNXC_ABI_VERSION)
    e2e_fail("%s: ABI version %u, expected %d", path, m.abi_version(), ONNXC_ABI_VERSION);
  return m;
}

/// Describes the sample models' single float input / output as an onnxc_tensor on `data`.
static inline onnxc_tensor e2e_tensor(const onnxc_tensor_info *info, void *data) {
  onnxc_tensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.size_bytes = info->size_bytes;
  t.dtype = info->dtype;
  t.rank = info->rank;
  for (int32_t d = 0; d < info->rank && d < ONNXC_MAX_RANK; ++d)
    t.shape[d] = info->shape[d];
  return t;
}

/// Number of elements of a described tensor.
static inline int64_t e2e_elements(const onnxc_tensor_info *info) {
  int64_t n = 1;
  for (int32_t d = 0; d < info->rank; ++d)
    n *= info->shape[d];
  return n;
}

/// Runs a one-input, one-output float model of library `m` on the sample input with onnxc_run,
/// checks the output's reported shape, and writes up to `cap` values to `out`; returns the count.
static inline int e2e_run_sample(const e2e_model *m, onnxc_context *ctx, float *out, int cap) {
  onnxc_tensor_info ii, oi;
  if (m->num_inputs() != 1 || m->num_outputs() != 1)
    e2e_fail("expected 1 input and 1 output, got %d and %d", m->num_inputs(), m->num_outputs());
  if (m->input_info(0, &ii) != ONNXC_OK || m->output_info(0, &oi) != ONNXC_OK)
    e2e_fail("input_info/output_info failed");
  if (ii.dtype != ONNXC_DTYPE_FLOAT || oi.dtype != ONNXC_DTYPE_FLOAT)
    e2e_fail("expected float input and output");
  int64_t n_in = e2e_elements(&ii), n_out = e2e_elements(&oi);
  if (n_in > E2E_MAX_VALUES || n_out > cap || ii.size_bytes != (uint64_t)n_in * 4 ||
      oi.size_bytes != (uint64_t)n_out * 4)
    e2e_fail("unexpected sizes: %lld inputs, %lld outputs", (long long)n_in, (long long)n_out);
  float in[E2E_MAX_VALUES];
  e2e_sample_input(in, (int)n_in);
  onnxc_tensor ti = e2e_tensor(&ii, in), to = e2e_tensor(&oi, out);
  to.rank = 0;
  memset(to.shape, 0, sizeof to.shape);
  onnxc_status st = m->run(ctx, &ti, 1, &to, 1);
  if (st != ONNXC_OK)
    e2e_fail("onnxc_run returned %d: %s", (int)st, m->last_error(ctx));
  if (strcmp(m->last_error(ctx), "") != 0)
    e2e_fail("last_error after a successful run is '%s'", m->last_error(ctx));
  if (to.rank != oi.rank)
    e2e_fail("onnxc_run reported output rank %d, expected %d", to.rank, oi.rank);
  for (int32_t d = 0; d < oi.rank; ++d)
    if (to.shape[d] != oi.shape[d])
      e2e_fail("onnxc_run reported output dim %d = %lld, expected %lld", d,
               (long long)to.shape[d], (long long)oi.shape[d]);
  return (int)n_out;
}

#endif /* ONNXC_E2E_COMMON_H */
