/* arm_helpers.c — the ARM EABI run-time helpers that 32-bit ARM code generation calls and that
 * glibc does not export (they live in libgcc / compiler-rt, which a model library does not
 * link): integer division (ARMv7-A has no divide instruction in general) and 64-bit
 * integer <-> floating-point conversions. Empty on every other architecture.
 *
 * Model libraries define them as hidden, weak symbols (module_linker.cpp keeps every `__aeabi_*`
 * and `onnxc_arm_*` function out of internalisation, so the calls instruction selection emits
 * bind to these definitions; weak, so that several models' objects or archives link into one
 * program without clashing). Semantics follow the "Run-time ABI for the ARM Architecture": the
 * functions use the base (soft-float) procedure call standard even on hard-float targets, and
 * division by zero returns 0 here (the kernels never divide by zero; C leaves it undefined).
 * The code must not itself use `/`, `%` or 64-bit int/float conversions (that would recurse).
 */
#include <stdint.h>

/* Keeps the translation unit non-empty on other architectures. */
typedef int onnxc_arm_helpers_unused;

#if defined(__arm__)

#define ONNXC_ARM_HELPER __attribute__((visibility("hidden"), used, weak))
#define ONNXC_AAPCS __attribute__((pcs("aapcs")))

/* Shift-subtract division of n by d (d != 0); the remainder goes to *rem. */
ONNXC_ARM_HELPER uint64_t onnxc_arm_udivmod64(uint64_t n, uint64_t d, uint64_t *rem) {
  uint64_t q = 0, r = 0;
  if (d == 0) {
    *rem = 0;
    return 0;
  }
  for (int bit = 63; bit >= 0; --bit) {
    r = (r << 1) | ((n >> bit) & 1);
    if (r >= d) {
      r -= d;
      q |= (uint64_t)1 << bit;
    }
  }
  *rem = r;
  return q;
}

/* Signed division truncating toward zero; the remainder has the dividend's sign. */
ONNXC_ARM_HELPER int64_t onnxc_arm_divmod64(int64_t n, int64_t d, int64_t *rem) {
  uint64_t un = n < 0 ? 0 - (uint64_t)n : (uint64_t)n;
  uint64_t ud = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
  uint64_t ur;
  uint64_t uq = onnxc_arm_udivmod64(un, ud, &ur);
  *rem = (int64_t)(n < 0 ? 0 - ur : ur);
  return (int64_t)((n < 0) != (d < 0) ? 0 - uq : uq);
}

/* __aeabi_[u]ldivmod: numerator r0:r1, denominator r2:r3; quotient in r0:r1, remainder in r2:r3.
 * The C helper returns the quotient in r0:r1 and stores the remainder through a pointer passed
 * on the stack (its fifth argument word), into the 8 bytes above it. */
#define ONNXC_ARM_DIVMOD64(name, helper)                                                           \
  __attribute__((naked, visibility("hidden"), used, weak)) void name(void) {                       \
    __asm__ volatile("push {r4, lr}\n\t"                                                           \
                     "sub sp, sp, #16\n\t"                                                         \
                     "add r4, sp, #8\n\t"                                                          \
                     "str r4, [sp]\n\t"                                                            \
                     "bl " #helper "\n\t"                                                          \
                     "ldr r2, [sp, #8]\n\t"                                                        \
                     "ldr r3, [sp, #12]\n\t"                                                       \
                     "add sp, sp, #16\n\t"                                                         \
                     "pop {r4, pc}\n\t");                                                          \
  }
ONNXC_ARM_DIVMOD64(__aeabi_uldivmod, onnxc_arm_udivmod64)
ONNXC_ARM_DIVMOD64(__aeabi_ldivmod, onnxc_arm_divmod64)

/* 32-bit division through the 64-bit helpers (rare on the paths kernels use). */
ONNXC_ARM_HELPER ONNXC_AAPCS uint32_t __aeabi_uidiv(uint32_t n, uint32_t d) {
  uint64_t r;
  return (uint32_t)onnxc_arm_udivmod64(n, d, &r);
}
ONNXC_ARM_HELPER ONNXC_AAPCS int32_t __aeabi_idiv(int32_t n, int32_t d) {
  int64_t r;
  return (int32_t)onnxc_arm_divmod64(n, d, &r);
}
/* [u]idivmod: quotient in r0, remainder in r1, i.e. a 64-bit result (little-endian words). */
ONNXC_ARM_HELPER ONNXC_AAPCS uint64_t __aeabi_uidivmod(uint32_t n, uint32_t d) {
  uint64_t r;
  uint32_t q = (uint32_t)onnxc_arm_udivmod64(n, d, &r);
  return q | (r << 32);
}
ONNXC_ARM_HELPER ONNXC_AAPCS uint64_t __aeabi_idivmod(int32_t n, int32_t d) {
  int64_t r;
  uint32_t q = (uint32_t)onnxc_arm_divmod64(n, d, &r);
  return q | ((uint64_t)(uint32_t)r << 32);
}

/* u64 -> double, rounded once: both halves convert exactly, the sum rounds. */
ONNXC_ARM_HELPER ONNXC_AAPCS double __aeabi_ul2d(uint64_t v) {
  return (double)(uint32_t)(v >> 32) * 4294967296.0 + (double)(uint32_t)v;
}
ONNXC_ARM_HELPER ONNXC_AAPCS double __aeabi_l2d(int64_t v) {
  return v < 0 ? -__aeabi_ul2d(0 - (uint64_t)v) : __aeabi_ul2d((uint64_t)v);
}
/* u64 -> float, rounded once: above 2^53 the low bits are first folded into a sticky bit
 * (round to odd), so the exact double holds enough to round to float correctly. */
ONNXC_ARM_HELPER ONNXC_AAPCS float __aeabi_ul2f(uint64_t v) {
  if (v >> 53)
    return (float)(__aeabi_ul2d((v >> 11) | ((v & 0x7ff) != 0)) * 2048.0);
  return (float)__aeabi_ul2d(v);
}
ONNXC_ARM_HELPER ONNXC_AAPCS float __aeabi_l2f(int64_t v) {
  return v < 0 ? -__aeabi_ul2f(0 - (uint64_t)v) : __aeabi_ul2f((uint64_t)v);
}

/* double -> u64 truncating toward zero; NaN and negatives give 0, too large saturates. */
ONNXC_ARM_HELPER ONNXC_AAPCS uint64_t __aeabi_d2ulz(double x) {
  if (!(x >= 1.0))
    return 0;
  if (x >= 18446744073709551616.0)
    return UINT64_MAX;
  uint32_t hi = (uint32_t)(x * (1.0 / 4294967296.0));
  uint32_t lo = (uint32_t)(x - (double)hi * 4294967296.0);
  return ((uint64_t)hi << 32) | lo;
}
/* double -> i64 truncating toward zero; NaN gives 0, out of range saturates. */
ONNXC_ARM_HELPER ONNXC_AAPCS int64_t __aeabi_d2lz(double x) {
  if (x != x)
    return 0;
  if (x >= 9223372036854775808.0)
    return INT64_MAX;
  if (x <= -9223372036854775808.0)
    return INT64_MIN;
  return x < 0 ? (int64_t)(0 - __aeabi_d2ulz(-x)) : (int64_t)__aeabi_d2ulz(x);
}
ONNXC_ARM_HELPER ONNXC_AAPCS uint64_t __aeabi_f2ulz(float x) { return __aeabi_d2ulz((double)x); }
ONNXC_ARM_HELPER ONNXC_AAPCS int64_t __aeabi_f2lz(float x) { return __aeabi_d2lz((double)x); }

#endif /* __arm__ */
