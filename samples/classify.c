/* classify: an image classifier app on the compiled "mobilenet" sample model (mobilenet.h).
 *
 *   classify IMAGE.ppm
 *
 * Reads a binary PPM (P6, maxval <= 255) of any size, resizes it to the model's input with
 * nearest-neighbour sampling (pixel centres), normalises each channel as (p / 255 - mean) / std
 * (the ImageNet constants), runs the model and prints the 5 best classes with their scores.
 * Build: samples/run_classify.sh (onnxc compile mobilenet.onnx -o DIR/libmobilenet.so writes
 * DIR/mobilenet.h; then cc -I DIR classify.c -L DIR -lmobilenet). */
#include "mobilenet.h"

#include <stdio.h>
#include <stdlib.h>

#define CHANNELS MOBILENET_INPUT_0_SHAPE[1]
#define HEIGHT MOBILENET_INPUT_0_SHAPE[2]
#define WIDTH MOBILENET_INPUT_0_SHAPE[3]
#define CLASSES MOBILENET_OUTPUT_0_SIZE
#define TOP 5

typedef struct image {
  int width, height;
  unsigned char *rgb; /* width * height * 3 bytes, row-major RGB */
} image;

/* Reads the next header number of a PPM, skipping whitespace and '#' comments; -1 if none. */
static long ppm_number(FILE *f) {
  int c = fgetc(f);
  while (c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
    if (c == '#')
      while (c != '\n' && c != EOF)
        c = fgetc(f);
    c = fgetc(f);
  }
  long v = -1;
  for (; c >= '0' && c <= '9'; c = fgetc(f))
    if ((v = (v < 0 ? 0 : v * 10) + (c - '0')) > 100000)
      return -1;
  return v; /* the single whitespace after maxval has been consumed by the loop */
}

/* Loads a P6 PPM; on failure prints why and returns an image with rgb NULL. */
static image read_ppm(const char *path) {
  image img = {0, 0, NULL};
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "classify: error: cannot open %s\n", path);
    return img;
  }
  long w = -1, h = -1, maxval = -1;
  if (fgetc(f) == 'P' && fgetc(f) == '6') {
    w = ppm_number(f);
    h = ppm_number(f);
    maxval = ppm_number(f);
  }
  if (w <= 0 || h <= 0 || maxval <= 0 || maxval > 255) {
    fprintf(stderr, "classify: error: %s is not a binary PPM (P6) with maxval <= 255\n", path);
    fclose(f);
    return img;
  }
  size_t bytes = (size_t)w * (size_t)h * 3;
  img.rgb = malloc(bytes);
  if (!img.rgb || fread(img.rgb, 1, bytes, f) != bytes) {
    fprintf(stderr, "classify: error: %s: truncated pixel data\n", path);
    free(img.rgb);
    img.rgb = NULL;
  } else {
    for (size_t i = 0; i < bytes; ++i) /* scale to 0..255 */
      img.rgb[i] = (unsigned char)((img.rgb[i] * 255 + maxval / 2) / maxval);
    img.width = (int)w;
    img.height = (int)h;
  }
  fclose(f);
  return img;
}

/* Nearest-neighbour resize to the model's HxW (sampling at pixel centres) and normalisation
 * into the planar CHW float input. */
static void preprocess(const image *img, float *input) {
  static const float mean[3] = {0.485f, 0.456f, 0.406f};
  static const float std[3] = {0.229f, 0.224f, 0.225f};
  for (int y = 0; y < HEIGHT; ++y) {
    long sy = ((2L * y + 1) * img->height) / (2L * HEIGHT);
    for (int x = 0; x < WIDTH; ++x) {
      long sx = ((2L * x + 1) * img->width) / (2L * WIDTH);
      const unsigned char *px = img->rgb + (sy * img->width + sx) * 3;
      for (int c = 0; c < CHANNELS; ++c)
        input[(c * HEIGHT + y) * WIDTH + x] = ((float)px[c] / 255.0f - mean[c]) / std[c];
    }
  }
}

/* Indices of the TOP largest scores, best first (ties: lower index first). */
static void top_k(const float *scores, int *best) {
  for (int k = 0; k < TOP; ++k) {
    best[k] = -1;
    for (int i = 0; i < CLASSES; ++i) {
      int taken = 0;
      for (int j = 0; j < k; ++j)
        taken |= best[j] == i;
      if (!taken && (best[k] < 0 || scores[i] > scores[best[k]]))
        best[k] = i;
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: classify IMAGE.ppm\n");
    return 2;
  }
  image img = read_ppm(argv[1]);
  if (!img.rgb)
    return 1;
  static float input[MOBILENET_INPUT_0_SIZE], probs[CLASSES];
  preprocess(&img, input);
  free(img.rgb);

  onnxc_context *ctx = NULL;
  if (mobilenet_create(&ctx) != ONNXC_OK) {
    fprintf(stderr, "classify: error: %s\n", mobilenet_last_error(NULL));
    return 1;
  }
  if (mobilenet_infer(ctx, input, probs) != ONNXC_OK) {
    fprintf(stderr, "classify: error: %s\n", mobilenet_last_error(ctx));
    mobilenet_destroy(ctx);
    return 1;
  }
  mobilenet_destroy(ctx);

  int best[TOP];
  top_k(probs, best);
  printf("%s: %dx%d image, top-%d of %d classes:\n", argv[1], img.width, img.height, TOP,
         (int)CLASSES);
  for (int k = 0; k < TOP; ++k)
    printf("  %d. class %3d  score %.7f\n", k + 1, best[k], probs[best[k]]);
  return 0;
}
