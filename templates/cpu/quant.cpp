/* QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear (element-wise quantisation).
 *
 * onnxc_k_quantize_linear: y = saturate(round(x / scale) + zp)
 *   params {x dtype, y dtype, saturate, outer, A, inner, block, so, sa, si}
 *   tensors {x, scale, zp (may be null), y}; the division is done in x's precision (float for
 *   float16/bfloat16/float, double for double) as ONNX Runtime does. Packed (u)int4/(u)int2
 *   outputs are written serially; float8/float4 outputs are x / scale + zp rounded to nearest
 *   even, out-of-range values saturating if `saturate` (see quant_common.h).
 * onnxc_k_dequantize_linear: y = (x - zp) * scale, computed in float (double for double y)
 *   params {x dtype, y dtype, scale dtype, outer, A, inner, block, so, sa, si}
 *   tensors {x, scale, zp (may be null), y}
 * onnxc_k_dynamic_quantize_linear: uint8 quantisation of a float tensor with
 *   scale = (max(0, max x) - min(0, min x)) / 255 (1 if that is 0) and
 *   zp = saturate(round(-min(0, min x) / scale)); params {count}; tensors {x, y, scale, zp}.
 * See quant_common.h for the scale layout and rounding. */
#include "templates/cpu/quant_common.h"

namespace onnxc_k {
namespace {
using namespace quant;

template <typename T, typename C>
void quantize_all(onnxc_rt *rt, const void *x, i64 xdt, const void *scale, const void *zp, i64 zdt,
                  T *y, const QAxis &q) {
  auto body = [&](i64 b, i64 e) {
    for (i64 r = b; r < e; ++r) { /* r = o * A + a */
      const i64 o = r / q.A, a = r % q.A;
      for (i64 i = 0; i < q.inner; ++i) {
        const i64 s = q.index(o, a, i), xi = r * q.inner + i;
        const C v =
            static_cast<C>(load_real(xdt, x, xi)) / static_cast<C>(load_real(xdt, scale, s));
        y[xi] = quantize<T, C>(v, zp ? load_int(zdt, zp, s) : 0);
      }
    }
  };
  parallel_for(rt, q.outer * q.A, 1 + 16384 / (q.inner > 0 ? q.inner : 1), body);
}

/// Packed (u)int4 / (u)int2 and float8 / float4 outputs, serially (elements share bytes).
void quantize_small(const void *x, i64 xdt, const void *scale, const void *zp, i64 ydt,
                    bool saturate, void *y, const QAxis &q) {
  MiniFloat f{};
  const bool is_float = minifloat_of(ydt, f);
  const int bits = packed_bits(ydt);
  const bool is_signed = ydt == kI4 || ydt == kI2;
  const float hi = bits ? float((1 << (bits - is_signed)) - 1) : 0, lo = is_signed ? -hi - 1 : 0;
  for (i64 r = 0; r < q.outer * q.A; ++r) {
    const i64 o = r / q.A, a = r % q.A;
    for (i64 i = 0; i < q.inner; ++i) {
      const i64 s = q.index(o, a, i), xi = r * q.inner + i;
      const float v =
          static_cast<float>(load_real(xdt, x, xi)) / static_cast<float>(load_real(xdt, scale, s));
      unsigned code;
      if (is_float) {
        const float z = zp ? minifloat_decode(f, load_packed_or_byte(zp, s, bits)) : 0.0f;
        code = minifloat_encode(f, v + z, saturate);
      } else {
        float t = __builtin_rintf(v) + static_cast<float>(zp ? load_int(ydt, zp, s) : 0);
        t = !(t == t) ? 0 : t < lo ? lo : t > hi ? hi : t;
        code = static_cast<unsigned>(static_cast<int>(t)) & ((1u << bits) - 1);
      }
      if (bits)
        store_packed(y, xi, bits, code);
      else
        static_cast<unsigned char *>(y)[xi] = static_cast<unsigned char>(code);
    }
  }
}

template <typename C> void quantize_to(onnxc_rt *rt, void *const *t, const i64 *p, const QAxis &q) {
  switch (p[1]) {
  case kU8:
    quantize_all<unsigned char, C>(rt, t[0], p[0], t[1], t[2], p[1],
                                   static_cast<unsigned char *>(t[3]), q);
    return;
  case kI8:
    quantize_all<signed char, C>(rt, t[0], p[0], t[1], t[2], p[1], static_cast<signed char *>(t[3]),
                                 q);
    return;
  case kU16:
    quantize_all<unsigned short, C>(rt, t[0], p[0], t[1], t[2], p[1],
                                    static_cast<unsigned short *>(t[3]), q);
    return;
  case kI16:
    quantize_all<short, C>(rt, t[0], p[0], t[1], t[2], p[1], static_cast<short *>(t[3]), q);
    return;
  default:
    quantize_small(t[0], p[0], t[1], t[2], p[1], p[2] != 0, t[3], q);
  }
}

void dequantize_all(onnxc_rt *rt, void *const *t, const i64 *p, const QAxis &q) {
  const i64 xdt = p[0], ydt = p[1], sdt = p[2];
  const void *x = t[0], *scale = t[1], *zp = t[2];
  void *y = t[3];
  MiniFloat f{};
  const bool is_float = minifloat_of(xdt, f);
  const int bits = packed_bits(xdt);
  auto body = [&](i64 b, i64 e) {
    for (i64 r = b; r < e; ++r) {
      const i64 o = r / q.A, a = r % q.A;
      for (i64 i = 0; i < q.inner; ++i) {
        const i64 s = q.index(o, a, i), xi = r * q.inner + i;
        if (is_float) {
          const float z = zp ? minifloat_decode(f, load_packed_or_byte(zp, s, bits)) : 0.0f;
          const float d = minifloat_decode(f, load_packed_or_byte(x, xi, bits)) - z;
          store_real(ydt, y, xi, d * static_cast<float>(load_real(sdt, scale, s)));
          continue;
        }
        const long long d = (long long)load_int(xdt, x, xi) - (zp ? load_int(xdt, zp, s) : 0);
        if (ydt == kF64)
          store_real(ydt, y, xi, static_cast<double>(d) * load_real(sdt, scale, s));
        else
          store_real(ydt, y, xi,
                     static_cast<float>(d) * static_cast<float>(load_real(sdt, scale, s)));
      }
    }
  };
  parallel_for(rt, q.outer * q.A, 1 + 16384 / (q.inner > 0 ? q.inner : 1), body);
}

void dynamic_quantize(const float *x, unsigned char *y, float *scale_out, unsigned char *zp_out,
                      i64 n) {
  float lo = 0, hi = 0;
  for (i64 i = 0; i < n; ++i) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  const unsigned char zp = quantize<unsigned char, float>(-lo / scale, 0);
  for (i64 i = 0; i < n; ++i)
    y[i] = quantize<unsigned char, float>(x[i] / scale, zp);
  *scale_out = scale;
  *zp_out = zp;
}
} // namespace
} // namespace onnxc_k

using namespace onnxc_k;

extern "C" int32_t onnxc_k_quantize_linear(onnxc_rt *rt, void *const *t, const int64_t *p) {
  const quant::QAxis q = quant::read_axis(p + 3);
  if (p[0] == quant::kF64)
    quantize_to<double>(rt, t, p, q);
  else
    quantize_to<float>(rt, t, p, q);
  return 0;
}

extern "C" int32_t onnxc_k_dequantize_linear(onnxc_rt *rt, void *const *t, const int64_t *p) {
  dequantize_all(rt, t, p, quant::read_axis(p + 3));
  return 0;
}

extern "C" int32_t onnxc_k_dynamic_quantize_linear(onnxc_rt *, void *const *t, const int64_t *p) {
  dynamic_quantize(static_cast<const float *>(t[0]), static_cast<unsigned char *>(t[1]),
                   static_cast<float *>(t[2]), static_cast<unsigned char *>(t[3]), p[0]);
  return 0;
}
