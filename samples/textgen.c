/* textgen: a text app on the compiled "transformer" sample model (transformer.h), a tiny causal
 * byte-level language model with random weights (so its "text" is gibberish, but deterministic).
 *
 *   textgen PROMPT [STEPS]
 *
 * Tokenises PROMPT into byte ids (at most the model's 16 positions; unused positions are
 * spaces, which cannot affect earlier positions since attention is causal), runs the model once
 * and prints the argmax next token at every prompt position, then extends the prompt greedily by
 * STEPS tokens (default: until the 16 positions are full), one run per token.
 * Build: samples/run_textgen.sh. */
#include "transformer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEQ TRANSFORMER_INPUT_0_SHAPE[1]
#define VOCAB TRANSFORMER_OUTPUT_0_SHAPE[2]

static int64_t tokens[TRANSFORMER_INPUT_0_SIZE];
static float logits[TRANSFORMER_OUTPUT_0_SIZE];

/* The highest-scoring token at position `pos` (lowest id on ties). */
static int argmax_at(int pos) {
  const float *row = logits + (int64_t)pos * VOCAB;
  int best = 0;
  for (int v = 1; v < VOCAB; ++v)
    if (row[v] > row[best])
      best = v;
  return best;
}

/* Prints tokens[0, n) as text, escaping bytes that are not printable ASCII. */
static void print_text(const char *label, int n) {
  printf("%s: \"", label);
  for (int i = 0; i < n; ++i) {
    int t = (int)tokens[i];
    if (t >= 32 && t < 127 && t != '"' && t != '\\')
      putchar(t);
    else
      printf("\\x%02x", t);
  }
  printf("\"\n");
}

static int run(onnxc_context *ctx) {
  if (transformer_infer(ctx, tokens, logits) == ONNXC_OK)
    return 1;
  fprintf(stderr, "textgen: error: %s\n", transformer_last_error(ctx));
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: textgen PROMPT [STEPS]\n");
    return 2;
  }
  int n = (int)strlen(argv[1]);
  if (n < 1 || n > SEQ) {
    fprintf(stderr, "textgen: error: the prompt must have 1 to %d bytes\n", (int)SEQ);
    return 1;
  }
  int steps = argc == 3 ? atoi(argv[2]) : SEQ - n;
  if (steps < 0 || n + steps > SEQ) {
    fprintf(stderr, "textgen: error: STEPS must be 0 to %d for this prompt\n", (int)SEQ - n);
    return 1;
  }
  for (int i = 0; i < SEQ; ++i)
    tokens[i] = i < n ? (unsigned char)argv[1][i] : ' ';

  onnxc_context *ctx = NULL;
  if (transformer_create(&ctx) != ONNXC_OK) {
    fprintf(stderr, "textgen: error: %s\n", transformer_last_error(NULL));
    return 1;
  }
  int ok = run(ctx);
  if (ok) {
    print_text("prompt", n);
    printf("next-token argmax at each position:");
    for (int i = 0; i < n; ++i)
      printf(" %d", argmax_at(i));
    printf("\ngenerated:");
  }
  for (int s = 0; ok && s < steps; ++s) {
    tokens[n + s] = argmax_at(n + s - 1);
    printf(" %d", (int)tokens[n + s]);
    fflush(stdout);
    ok = s + 1 == steps || run(ctx);
  }
  if (ok) {
    printf("\n");
    print_text("text", n + steps);
  }
  transformer_destroy(ctx);
  return ok ? 0 : 1;
}
