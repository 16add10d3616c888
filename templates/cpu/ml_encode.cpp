/* ai.onnx.ml OneHotEncoder, FeatureVectorizer and LabelEncoder (compiler/ops/ml/encoders.cpp,
 * label_encoder.cpp). Element-type codes: 0 float, 1 double, 2 int64, 3 int32, 4 int16.
 * onehot:             params {count, n_categories, in code, zeros, n_keys, keys[n_keys]
 *                     (ascending), positions[n_keys]}; tensors {X, Y (float) [..., n_categories]};
 *                     float inputs are truncated to int64; a value that is no category gives a
 *                     row of zeros, or fails when zeros == 0.
 * feature_vectorizer: params {rows, n_inputs, total, per input {code, cols, width}};
 *                     tensors {X_0 .. X_{n-1}, Y (float) [rows, total]}; each input's row is
 *                     cut or zero-padded to its width.
 * label_encoder:      params {count, n, in code, out code, NaN key's value, has NaN key (1/-1),
 *                     default, keys[n] (ascending), values[n]} (float keys and float values as
 *                     f64 bits); tensors {X, Y}. */
#include "templates/cpu/ml_common.h"

namespace {
using onnxc_k::i64;
using onnxc_k::param_f64;

bool is_real_code(i64 code) { return code <= 1; }

double load_real(const void *x, i64 code, i64 i) {
  return code == 0 ? double(((const float *)x)[i]) : ((const double *)x)[i];
}

i64 load_int(const void *x, i64 code, i64 i) {
  switch (code) {
  case 2:
    return ((const int64_t *)x)[i];
  case 3:
    return ((const int32_t *)x)[i];
  default:
    return ((const int16_t *)x)[i];
  }
}

/// Index of `key` in the ascending int64 keys, or -1.
i64 find_int(const i64 *keys, i64 n, i64 key) {
  i64 lo = 0, hi = n;
  while (lo < hi) {
    const i64 mid = lo + (hi - lo) / 2;
    if (keys[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && keys[lo] == key ? lo : -1;
}

/// Index of `key` in the ascending double keys (stored as bits), or -1.
i64 find_real(const i64 *keys, i64 n, double key) {
  i64 lo = 0, hi = n;
  while (lo < hi) {
    const i64 mid = lo + (hi - lo) / 2;
    if (param_f64(keys, int(mid)) < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && param_f64(keys, int(lo)) == key ? lo : -1;
}

int32_t onehot(onnxc_rt *rt, void *const *t, const i64 *p) {
  const i64 count = p[0], ncat = p[1], code = p[2], zeros = p[3], nk = p[4];
  const i64 *keys = p + 5, *pos = keys + nk;
  float *y = (float *)t[1];
  for (i64 i = 0; i < count * ncat; ++i)
    y[i] = 0;
  for (i64 i = 0; i < count; ++i) {
    i64 k = -1;
    if (!is_real_code(code)) {
      k = find_int(keys, nk, load_int(t[0], code, i));
    } else {
      const double v = load_real(t[0], code, i);
      if (v > -9.2e18 && v < 9.2e18) /* NaN and values beyond int64 match no category */
        k = find_int(keys, nk, i64(v));
    }
    if (k >= 0)
      y[i * ncat + pos[k]] = 1.0f;
    else if (!zeros)
      return onnxc_rt_fail(rt, ONNXC_STATUS_INVALID_ARGUMENT,
                           "OneHotEncoder: an input value is not one of the categories "
                           "(cats_int64s) and zeros is 0");
  }
  return 0;
}

int32_t feature_vectorizer(void *const *t, const i64 *p) {
  const i64 rows = p[0], inputs = p[1], total = p[2];
  float *y = (float *)t[inputs];
  i64 offset = 0;
  for (i64 k = 0; k < inputs; ++k) {
    const i64 code = p[3 + 3 * k], cols = p[4 + 3 * k], width = p[5 + 3 * k];
    const i64 copy = cols < width ? cols : width;
    for (i64 r = 0; r < rows; ++r)
      for (i64 c = 0; c < width; ++c) {
        const i64 i = r * cols + c;
        float v = 0;
        if (c < copy)
          v = is_real_code(code) ? float(load_real(t[k], code, i)) : float(load_int(t[k], code, i));
        y[r * total + offset + c] = v;
      }
    offset += width;
  }
  return 0;
}

void store(void *y, i64 code, i64 i, i64 raw) {
  switch (code) {
  case 0:
    ((float *)y)[i] = float(param_f64(&raw, 0));
    break;
  case 1:
    ((double *)y)[i] = param_f64(&raw, 0);
    break;
  case 2:
    ((int64_t *)y)[i] = raw;
    break;
  case 3:
    ((int32_t *)y)[i] = int32_t(raw);
    break;
  default:
    ((int16_t *)y)[i] = int16_t(raw);
    break;
  }
}

int32_t label_encoder(void *const *t, const i64 *p) {
  const i64 count = p[0], n = p[1], in = p[2], out = p[3], nan_value = p[4], has_nan = p[5];
  const i64 *keys = p + 7, *values = keys + n;
  for (i64 i = 0; i < count; ++i) {
    i64 raw = p[6];
    if (is_real_code(in)) {
      const double v = load_real(t[0], in, i);
      const i64 k = v != v ? -1 : find_real(keys, n, v);
      if (v != v && has_nan > 0)
        raw = nan_value;
      else if (k >= 0)
        raw = values[k];
    } else {
      const i64 k = find_int(keys, n, load_int(t[0], in, i));
      if (k >= 0)
        raw = values[k];
    }
    store(t[1], out, i, raw);
  }
  return 0;
}
} // namespace

extern "C" int32_t onnxc_k_ml_onehot(onnxc_rt *rt, void *const *t, const int64_t *p) {
  return onehot(rt, t, p);
}
extern "C" int32_t onnxc_k_ml_feature_vectorizer(onnxc_rt *, void *const *t, const int64_t *p) {
  return feature_vectorizer(t, p);
}
extern "C" int32_t onnxc_k_ml_label_encoder(onnxc_rt *, void *const *t, const int64_t *p) {
  return label_encoder(t, p);
}
