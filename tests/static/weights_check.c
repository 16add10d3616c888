/* static.weights_file: the sample model compiled with --weights-file (linked statically as
 * libsample.a, next to sample_mlp with embedded weights). Checks that the model runs and matches
 * the numpy reference with its weights from a file and from a caller buffer, and that every bad
 * weights file gives ONNXC_ERROR_BAD_WEIGHTS (or INVALID_ARGUMENT) and a message saying why.
 *
 *   weights_check EXPECTED.txt WEIGHTS_FILE OTHER_MODEL_WEIGHTS_FILE SCRATCH_DIR */
#include "e2e_common.h"
#include "sample.h"
#include "sample_mlp.h"

static char scratch[4096];
static const char *scratch_dir;

/// Reads a whole file into a fresh 64-byte-aligned buffer.
static unsigned char *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    e2e_fail("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *p = aligned_alloc(64, (*size + 64) / 64 * 64);
  if (!p || fread(p, 1, *size, f) != *size)
    e2e_fail("cannot read %s", path);
  fclose(f);
  return p;
}

/// Writes `size` bytes to SCRATCH_DIR/name; returns the path.
static const char *write_scratch(const char *name, const unsigned char *data, size_t size) {
  snprintf(scratch, sizeof scratch, "%s/%s", scratch_dir, name);
  FILE *f = fopen(scratch, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
    e2e_fail("cannot write %s", scratch);
  return scratch;
}

/// Creating from `path` must fail with `want` and a message containing `text`.
static void expect_file_error(const char *what, const char *path, onnxc_status want,
                              const char *text) {
  onnxc_context *ctx = (onnxc_context *)1;
  onnxc_status st = sample_create_with_weights(path, &ctx);
  const char *msg = sample_last_error(NULL);
  if (st != want || ctx != NULL || !strstr(msg, text))
    e2e_fail("%s: got status %d, ctx %p, message '%s'; expected status %d and '%s'", what, st,
             (void *)ctx, msg, want, text);
  printf("ok: %s -> %d '%s'\n", what, st, msg);
}

static void expect_buffer_error(const char *what, const void *data, size_t size, onnxc_status want,
                                const char *text) {
  onnxc_context *ctx = (onnxc_context *)1;
  onnxc_status st = sample_create_with_weights_buffer(data, size, &ctx);
  const char *msg = sample_last_error(NULL);
  if (st != want || ctx != NULL || !strstr(msg, text))
    e2e_fail("%s: got status %d, message '%s'; expected status %d and '%s'", what, st, msg, want,
             text);
  printf("ok: %s -> %d '%s'\n", what, st, msg);
}

/// Runs the context and compares with the reference.
static void run_and_check(const char *what, onnxc_context *ctx, const float *want) {
  static float in[SAMPLE_INPUT_0_SIZE], out[SAMPLE_OUTPUT_0_SIZE];
  e2e_sample_input(in, SAMPLE_INPUT_0_SIZE);
  if (sample_infer(ctx, in, out) != ONNXC_OK)
    e2e_fail("%s: %s", what, sample_last_error(ctx));
  e2e_expect_close(what, out, want, SAMPLE_OUTPUT_0_SIZE);
  printf("ok: %s matches the reference\n", what);
}

static void good_weights(const char *path, const float *want) {
  onnxc_context *a = NULL, *b = NULL;
  if (sample_create_with_weights(path, &a) != ONNXC_OK ||
      sample_create_with_weights(path, &b) != ONNXC_OK)
    e2e_fail("create_with_weights: %s", sample_last_error(NULL));
  run_and_check("file, context 1", a, want);
  run_and_check("file, context 2", b, want);
  sample_destroy(a);
  run_and_check("file, context 2 after destroying 1", b, want);
  sample_destroy(b);
  size_t size;
  unsigned char *image = read_all(path, &size);
  if (size != 64 + SAMPLE_WEIGHTS_SIZE)
    e2e_fail("weights file has %zu bytes, expected 64 + SAMPLE_WEIGHTS_SIZE", size);
  if (sample_create_with_weights_buffer(image, size, &a) != ONNXC_OK)
    e2e_fail("create_with_weights_buffer: %s", sample_last_error(NULL));
  run_and_check("buffer", a, want);
  sample_destroy(a);
  free(image);
}

static void bad_weights(const char *path, const char *other) {
  onnxc_context *ctx = (onnxc_context *)1;
  if (sample_create(&ctx) != ONNXC_ERROR_BAD_WEIGHTS || ctx != NULL ||
      !strstr(sample_last_error(NULL), "--weights-file"))
    e2e_fail("sample_create without weights: '%s'", sample_last_error(NULL));
  printf("ok: create without weights -> '%s'\n", sample_last_error(NULL));
  static unsigned char arena[SAMPLE_ARENA_SIZE + 64] __attribute__((aligned(64)));
  if (sample_create_with_arena(arena, SAMPLE_ARENA_SIZE, &ctx) != ONNXC_ERROR_BAD_WEIGHTS)
    e2e_fail("sample_create_with_arena without weights: '%s'", sample_last_error(NULL));
  expect_file_error("NULL path", NULL, ONNXC_ERROR_INVALID_ARGUMENT, "path is NULL");
  snprintf(scratch, sizeof scratch, "%s/no_such_file", scratch_dir);
  expect_file_error("missing file", scratch, ONNXC_ERROR_BAD_WEIGHTS, "cannot open");
  expect_file_error("a directory", scratch_dir, ONNXC_ERROR_BAD_WEIGHTS, "weights file");
  expect_file_error("other model's weights", other, ONNXC_ERROR_BAD_WEIGHTS, "another model");
  size_t size;
  unsigned char *image = read_all(path, &size);
  expect_file_error("short file", write_scratch("short", image, 10), ONNXC_ERROR_BAD_WEIGHTS,
                    "shorter than the weights header");
  expect_file_error("truncated file", write_scratch("truncated", image, size - 4),
                    ONNXC_ERROR_BAD_WEIGHTS, "wrong size");
  image[size - 1] ^= 0x40;
  expect_file_error("corrupt blob", write_scratch("corrupt", image, size), ONNXC_ERROR_BAD_WEIGHTS,
                    "checksum mismatch");
  expect_buffer_error("corrupt buffer", image, size, ONNXC_ERROR_BAD_WEIGHTS, "checksum mismatch");
  image[size - 1] ^= 0x40;
  image[0] = 'X';
  expect_file_error("bad magic", write_scratch("magic", image, size), ONNXC_ERROR_BAD_WEIGHTS,
                    "bad magic");
  image[0] = 'O';
  image[8] = 9;
  expect_file_error("bad version", write_scratch("version", image, size), ONNXC_ERROR_BAD_WEIGHTS,
                    "version");
  image[8] = 1;
  unsigned char *moved = aligned_alloc(64, (size + 128) / 64 * 64);
  memcpy(moved + 1, image, size);
  expect_buffer_error("misaligned buffer", moved + 1, size, ONNXC_ERROR_BAD_WEIGHTS, "aligned");
  expect_buffer_error("NULL buffer", NULL, size, ONNXC_ERROR_INVALID_ARGUMENT, "data is NULL");
  free(moved);
  free(image);
}

int main(int argc, char **argv) {
  if (argc != 5)
    e2e_fail("usage: weights_check EXPECTED.txt WEIGHTS_FILE OTHER_WEIGHTS_FILE SCRATCH_DIR");
  scratch_dir = argv[4];
  static float want[E2E_MAX_VALUES];
  if (e2e_read_floats(argv[1], want, E2E_MAX_VALUES) != SAMPLE_OUTPUT_0_SIZE)
    e2e_fail("expected file does not match SAMPLE_OUTPUT_0_SIZE");
  if (SAMPLE_WEIGHTS_EXTERNAL != 1 || SAMPLE_MLP_WEIGHTS_EXTERNAL != 0)
    e2e_fail("SAMPLE_WEIGHTS_EXTERNAL / SAMPLE_MLP_WEIGHTS_EXTERNAL are wrong");
  good_weights(argv[2], want);
  bad_weights(argv[2], argv[3]);
  onnxc_context *ctx = (onnxc_context *)1;
  if (sample_mlp_create_with_weights(argv[2], &ctx) != ONNXC_ERROR_INVALID_ARGUMENT ||
      !strstr(sample_mlp_last_error(NULL), "embeds its weights"))
    e2e_fail("sample_mlp_create_with_weights: '%s'", sample_mlp_last_error(NULL));
  printf("PASS: weights file, buffer and every bad weights case\n");
  return 0;
}
