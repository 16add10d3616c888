/* run_model: loads any onnxc model library with dlopen and runs it once through the generic
 * onnxc_* ABI on raw tensors. Built for the target (e.g. with aarch64-linux-gnu-gcc) and run
 * under qemu by tests/cross/cross_test.py.
 *
 *   run_model LIB.so DIR THREADS
 *
 * For every model input i, DIR/input_<i>.bin holds exactly onnxc_input_info(i).size_bytes raw
 * bytes (row-major, target byte order); every output i is written to DIR/output_<i>.bin. The run
 * uses THREADS threads (onnxc_set_num_threads). Exit status 0 on success; any failure prints
 * "run_model: error: ..." and exits 1. */
#include "runtime_stub/onnxc_runtime.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_TENSORS 16

typedef struct api {
  const char *(*model_name)(void);
  int32_t (*num_inputs)(void);
  int32_t (*num_outputs)(void);
  onnxc_status (*input_info)(int32_t, onnxc_tensor_info *);
  onnxc_status (*output_info)(int32_t, onnxc_tensor_info *);
  onnxc_status (*create)(onnxc_context **);
  void (*destroy)(onnxc_context *);
  onnxc_status (*set_num_threads)(onnxc_context *, int32_t);
  onnxc_status (*run_buffers)(onnxc_context *, const void *const *, void *const *);
  const char *(*last_error)(const onnxc_context *);
} api;

static void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("run_model: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

static void *sym(void *handle, const char *name) {
  void *p = dlsym(handle, name);
  if (!p)
    fail("the library does not export %s", name);
  return p;
}

static api load(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    fail("dlopen %s: %s", path, dlerror());
  api a;
  *(void **)&a.model_name = sym(h, "onnxc_model_name");
  *(void **)&a.num_inputs = sym(h, "onnxc_num_inputs");
  *(void **)&a.num_outputs = sym(h, "onnxc_num_outputs");
  *(void **)&a.input_info = sym(h, "onnxc_input_info");
  *(void **)&a.output_info = sym(h, "onnxc_output_info");
  *(void **)&a.create = sym(h, "onnxc_create");
  *(void **)&a.destroy = sym(h, "onnxc_destroy");
  *(void **)&a.set_num_threads = sym(h, "onnxc_set_num_threads");
  *(void **)&a.run_buffers = sym(h, "onnxc_run_buffers");
  *(void **)&a.last_error = sym(h, "onnxc_last_error");
  return a;
}

/* Reads DIR/input_<i>.bin, which must hold exactly `bytes` bytes. */
static void *read_input(const char *dir, int i, uint64_t bytes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/input_%d.bin", dir, i);
  FILE *f = fopen(path, "rb");
  if (!f)
    fail("cannot open %s", path);
  void *buf = malloc(bytes ? bytes : 1);
  if (!buf)
    fail("out of memory");
  size_t got = fread(buf, 1, bytes, f);
  int extra = fgetc(f);
  fclose(f);
  if (got != bytes || extra != EOF)
    fail("%s must hold exactly %llu bytes", path, (unsigned long long)bytes);
  return buf;
}

static void write_output(const char *dir, int i, const void *data, uint64_t bytes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/output_%d.bin", dir, i);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, bytes, f) != bytes || fclose(f) != 0)
    fail("cannot write %s", path);
}

int main(int argc, char **argv) {
  if (argc != 4)
    fail("usage: run_model LIB.so DIR THREADS");
  api a = load(argv[1]);
  int threads = atoi(argv[3]);
  int n_in = a.num_inputs(), n_out = a.num_outputs();
  if (n_in > MAX_TENSORS || n_out > MAX_TENSORS)
    fail("the model has more than %d inputs or outputs", MAX_TENSORS);
  void *ins[MAX_TENSORS], *outs[MAX_TENSORS];
  uint64_t out_bytes[MAX_TENSORS];
  onnxc_tensor_info info;
  for (int i = 0; i < n_in; ++i) {
    if (a.input_info(i, &info) != ONNXC_OK)
      fail("onnxc_input_info(%d) failed", i);
    ins[i] = read_input(argv[2], i, info.size_bytes);
  }
  for (int i = 0; i < n_out; ++i) {
    if (a.output_info(i, &info) != ONNXC_OK)
      fail("onnxc_output_info(%d) failed", i);
    out_bytes[i] = info.size_bytes;
    if (!(outs[i] = calloc(1, info.size_bytes ? info.size_bytes : 1)))
      fail("out of memory");
  }
  onnxc_context *ctx = NULL;
  if (a.create(&ctx) != ONNXC_OK)
    fail("onnxc_create: %s", a.last_error(NULL));
  if (a.set_num_threads(ctx, threads) != ONNXC_OK)
    fail("onnxc_set_num_threads(%d): %s", threads, a.last_error(ctx));
  if (a.run_buffers(ctx, (const void *const *)ins, outs) != ONNXC_OK)
    fail("onnxc_run_buffers: %s", a.last_error(ctx));
  a.destroy(ctx);
  for (int i = 0; i < n_out; ++i)
    write_output(argv[2], i, outs[i], out_bytes[i]);
  printf("run_model: %s ran with %d thread(s): %d input(s), %d output(s)\n", a.model_name(),
         threads, n_in, n_out);
  return 0;
}
