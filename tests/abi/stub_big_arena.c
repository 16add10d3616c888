/* stub_big_arena.c — the arena onnxc_create maps in huge pages (runtime.c, alloc_arena): a
 * hand-written model whose arena is 5 MiB + 4 KiB + 8 bytes (not a whole number of 2 MiB pages)
 * writes every byte of it and reads it back, and reports where its arena lies. The test checks
 * that several live contexts get distinct arenas on 2 MiB boundaries (Linux), that the last
 * byte is usable, that runs give the right sums, and that creating and destroying contexts many
 * times does not grow the process's address space (the mapping is unmapped whole). */
#include "runtime_stub/model_desc.h"
#include "runtime_stub/onnxc_runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ARENA_BYTES ((uint64_t)5 * 1024 * 1024 + 4096 + 8)
#define HUGE_PAGE ((uintptr_t)2 * 1024 * 1024)

static const int64_t out_dims[] = {2};
static const onnxc_tensor_desc inputs[] = {{"seed", ONNXC_DTYPE_INT64, 0, 0, 8, NULL}};
static const onnxc_tensor_desc outputs[] = {{"out", ONNXC_DTYPE_INT64, 1, out_dims, 16, NULL}};

const onnxc_model_desc onnxc__model = {
    ONNXC_ABI_VERSION, 1, 1, 0, ARENA_BYTES, 64, "big_arena",
    "{\"name\":\"big_arena\",\"abi_version\":3,\"inputs\":[{\"name\":\"seed\",\"dtype\":"
    "\"int64\",\"shape\":[]}],\"outputs\":[{\"name\":\"out\",\"dtype\":\"int64\",\"shape\":[2]}]}",
    inputs, outputs, 0, 0, 0, 0, NULL, NULL, 0, 0, NULL, 0, NULL};

/// out[0]: the sum of (seed + i) & 0xff over the arena's bytes, written then read back;
/// out[1]: the arena's address.
int32_t onnxc__model_run(onnxc_rt *rt, unsigned char *arena, const unsigned char *weights,
                         const void *const *in, void *const *out) {
  (void)rt;
  (void)weights;
  int64_t seed = *(const int64_t *)in[0];
  for (uint64_t i = 0; i < ARENA_BYTES; ++i)
    arena[i] = (unsigned char)((uint64_t)seed + i);
  int64_t sum = 0;
  for (uint64_t i = 0; i < ARENA_BYTES; ++i)
    sum += arena[i];
  ((int64_t *)out[0])[0] = sum;
  ((int64_t *)out[0])[1] = (int64_t)(uintptr_t)arena;
  return 0;
}

static int failures;
#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                     \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

static int64_t expected_sum(int64_t seed) {
  int64_t sum = 0;
  for (uint64_t i = 0; i < ARENA_BYTES; ++i)
    sum += (unsigned char)((uint64_t)seed + i);
  return sum;
}

/// One run of `ctx` with `seed`; returns the arena's address (0 on failure).
static uintptr_t run_once(onnxc_context *ctx, int64_t seed) {
  int64_t result[2] = {0, 0};
  onnxc_tensor in = {&seed, sizeof seed, ONNXC_DTYPE_INT64, 0, {0}};
  onnxc_tensor out = {result, sizeof result, ONNXC_DTYPE_INT64, 0, {0}};
  onnxc_status st = onnxc_run(ctx, &in, 1, &out, 1);
  CHECK(st == ONNXC_OK);
  if (st != ONNXC_OK)
    fprintf(stderr, "onnxc_run: %s\n", onnxc_last_error(ctx));
  CHECK(result[0] == expected_sum(seed));
  return (uintptr_t)result[1];
}

/// The process's mapped size in pages (first field of /proc/self/statm), 0 if unknown.
static long mapped_pages(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0;
  if (f) {
    if (fscanf(f, "%ld", &pages) != 1)
      pages = 0;
    fclose(f);
  }
  return pages;
}

int main(void) {
  enum { LIVE = 3 };
  onnxc_context *ctx[LIVE];
  uintptr_t at[LIVE];
  for (int k = 0; k < LIVE; ++k) {
    CHECK(onnxc_create(&ctx[k]) == ONNXC_OK);
    at[k] = run_once(ctx[k], 7 + k);
    CHECK(at[k] != 0);
#ifdef __linux__
    CHECK(at[k] % HUGE_PAGE == 0);
#endif
  }
  for (int k = 0; k < LIVE; ++k) {
    CHECK(run_once(ctx[k], 100 + k) == at[k]); /* the same arena, run after run */
    for (int j = 0; j < k; ++j) /* disjoint arenas */
      CHECK(at[j] + ARENA_BYTES <= at[k] || at[k] + ARENA_BYTES <= at[j]);
  }
  for (int k = 0; k < LIVE; ++k)
    onnxc_destroy(ctx[k]);

  long before = mapped_pages();
  for (int i = 0; i < 200; ++i) {
    onnxc_context *c = 0;
    CHECK(onnxc_create(&c) == ONNXC_OK);
    onnxc_destroy(c);
  }
  long after = mapped_pages();
  /* 200 leaked arenas would map 200 x 6 MiB more; allow a little libc growth */
  CHECK(before == 0 || after - before < 1024);
  if (failures)
    fprintf(stderr, "%d check(s) failed\n", failures);
  else
    printf("stub_big_arena: all checks passed\n");
  return failures ? 1 : 0;
}
