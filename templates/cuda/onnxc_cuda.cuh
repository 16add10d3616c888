// Device code shared by every CUDA kernel onnxc generates (codegen/cuda/cuda_kernels.cpp).
// Compiled by NVRTC in-process, prepended to the model's translation unit: no headers, no
// host code. Each generated kernel is `extern "C" __global__ void kN(...)`, specialised on its
// node's constant shapes, and calls the templates below.
#pragma once

namespace onnxc {

// ---- math, overloaded per element type -------------------------------------------------------
__device__ __forceinline__ float m_exp(float x) { return expf(x); }
__device__ __forceinline__ double m_exp(double x) { return exp(x); }
__device__ __forceinline__ float m_log(float x) { return logf(x); }
__device__ __forceinline__ double m_log(double x) { return log(x); }
__device__ __forceinline__ float m_tanh(float x) { return tanhf(x); }
__device__ __forceinline__ double m_tanh(double x) { return tanh(x); }
__device__ __forceinline__ float m_erf(float x) { return erff(x); }
__device__ __forceinline__ double m_erf(double x) { return erf(x); }
__device__ __forceinline__ float m_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double m_sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float m_pow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ double m_pow(double x, double y) { return pow(x, y); }
__device__ __forceinline__ float m_max(float a, float b) { return a != a || a > b ? a : b; }
__device__ __forceinline__ float m_min(float a, float b) { return a != a || a < b ? a : b; }
__device__ __forceinline__ double m_max(double a, double b) { return a != a || a > b ? a : b; }
__device__ __forceinline__ double m_min(double a, double b) { return a != a || a < b ? a : b; }
template <typename T> __device__ __forceinline__ T m_max(T a, T b) { return a > b ? a : b; }
template <typename T> __device__ __forceinline__ T m_min(T a, T b) { return a < b ? a : b; }

#define ONNXC_M1(name, f32, f64)                                                                   \
  __device__ __forceinline__ float m_##name(float x) { return f32(x); }                            \
  __device__ __forceinline__ double m_##name(double x) { return f64(x); }
ONNXC_M1(sin, sinf, sin)
ONNXC_M1(cos, cosf, cos)
ONNXC_M1(tan, tanf, tan)
ONNXC_M1(asin, asinf, asin)
ONNXC_M1(acos, acosf, acos)
ONNXC_M1(atan, atanf, atan)
ONNXC_M1(sinh, sinhf, sinh)
ONNXC_M1(cosh, coshf, cosh)
ONNXC_M1(asinh, asinhf, asinh)
ONNXC_M1(acosh, acoshf, acosh)
ONNXC_M1(atanh, atanhf, atanh)
ONNXC_M1(floor, floorf, floor)
ONNXC_M1(ceil, ceilf, ceil)
ONNXC_M1(rint, rintf, rint)
ONNXC_M1(log1p, log1pf, log1p)
ONNXC_M1(expm1, expm1f, expm1)
ONNXC_M1(fabs, fabsf, fabs)
#undef ONNXC_M1
__device__ __forceinline__ float m_fmod(float x, float y) { return fmodf(x, y); }
__device__ __forceinline__ double m_fmod(double x, double y) { return fmod(x, y); }

template <typename T> __device__ __forceinline__ T lowest() { return T(-1) > T(0) ? T(0) : T(0); }
template <> __device__ __forceinline__ float lowest<float>() { return -__int_as_float(0x7f800000); }
template <> __device__ __forceinline__ double lowest<double>() {
  return -__longlong_as_double(0x7ff0000000000000LL);
}

// ---- activations fused into Conv / Gemm / MatMul (FusedActivation) --------------------------
enum Act {
  kNone,
  kRelu,
  kClip,
  kLeakyRelu,
  kSigmoid,
  kHardSigmoid,
  kHardSwish,
  kSilu,
  kGelu,
  kGeluTanh
};

template <int A, typename T> __device__ __forceinline__ T activate(T x, T a, T b) {
  if (A == kRelu)
    return x > T(0) ? x : T(0);
  if (A == kClip) { // min first, then max (ONNX: min > max gives max)
    const T y = x < a ? a : x;
    return y > b ? b : y;
  }
  if (A == kLeakyRelu)
    return x >= T(0) ? x : a * x;
  if (A == kSigmoid)
    return T(1) / (T(1) + m_exp(-x));
  if (A == kHardSigmoid)
    return m_max(T(0), m_min(T(1), a * x + b));
  if (A == kHardSwish)
    return x * m_max(T(0), m_min(T(1), x / T(6) + T(0.5)));
  if (A == kSilu)
    return x / (T(1) + m_exp(-x));
  if (A == kGelu)
    return T(0.5) * x * (T(1) + m_erf(x * T(0.70710678118654752440)));
  if (A == kGeluTanh)
    return T(0.5) * x * (T(1) + m_tanh(T(0.79788456080286535588) * (x + T(0.044715) * x * x * x)));
  return x;
}

/// Four elements of a 4-byte type: one 16-byte load or store.
template <typename T> struct alignas(16) V4 { T v[4]; };

// ---- element-wise ops: u_<Op>(x, a, b) with the op's float attributes a, b ----------------------
// Ops for every numeric type:
template <typename T> __device__ __forceinline__ T u_Relu(T x, T, T) { return x > T(0) ? x : T(0); }
template <typename T> __device__ __forceinline__ T u_Abs(T x, T, T) { return x < T(0) ? T(-x) : x; }
template <typename T> __device__ __forceinline__ T u_Neg(T x, T, T) { return T(-x); }
template <typename T> __device__ __forceinline__ T u_Sign(T x, T, T) {
  return T((x > T(0)) - (x < T(0)));
}
template <typename T> __device__ __forceinline__ T u_Identity(T x, T, T) { return x; }
// Float ops:
#define ONNXC_U(name, expr)                                                                        \
  template <typename T> __device__ __forceinline__ T u_##name(T x, T a, T b) { return expr; }
ONNXC_U(Exp, m_exp(x))
ONNXC_U(Log, m_log(x))
ONNXC_U(Sqrt, m_sqrt(x))
ONNXC_U(Tanh, m_tanh(x))
ONNXC_U(Erf, m_erf(x))
ONNXC_U(Sin, m_sin(x))
ONNXC_U(Cos, m_cos(x))
ONNXC_U(Tan, m_tan(x))
ONNXC_U(Asin, m_asin(x))
ONNXC_U(Acos, m_acos(x))
ONNXC_U(Atan, m_atan(x))
ONNXC_U(Sinh, m_sinh(x))
ONNXC_U(Cosh, m_cosh(x))
ONNXC_U(Asinh, m_asinh(x))
ONNXC_U(Acosh, m_acosh(x))
ONNXC_U(Atanh, m_atanh(x))
ONNXC_U(Floor, m_floor(x))
ONNXC_U(Ceil, m_ceil(x))
ONNXC_U(Round, m_rint(x))
ONNXC_U(Reciprocal, T(1) / x)
ONNXC_U(Sigmoid, T(1) / (T(1) + m_exp(-x)))
ONNXC_U(Softplus, x > T(0) ? x + m_log1p(m_exp(-x)) : m_log1p(m_exp(x)))
ONNXC_U(Softsign, x / (T(1) + m_fabs(x)))
ONNXC_U(Elu, x >= T(0) ? x : a * m_expm1(x))
ONNXC_U(Selu, b *(x > T(0) ? x : a * m_expm1(x)))
ONNXC_U(Celu, m_max(T(0), x) + m_min(T(0), a *m_expm1(x / a)))
ONNXC_U(LeakyRelu, x >= T(0) ? x : a * x)
ONNXC_U(ThresholdedRelu, x > a ? x : T(0))
ONNXC_U(HardSigmoid, m_max(T(0), m_min(T(1), a *x + b)))
ONNXC_U(HardSwish, x *m_max(T(0), m_min(T(1), x / T(6) + T(0.5))))
ONNXC_U(Mish, x *m_tanh(x > T(0) ? x + m_log1p(m_exp(-x)) : m_log1p(m_exp(x))))
ONNXC_U(Gelu, T(0.5) * x * (T(1) + m_erf(x * T(0.70710678118654752440))))
ONNXC_U(GeluTanh,
        T(0.5) * x * (T(1) + m_tanh(T(0.79788456080286535588) * (x + T(0.044715) * x * x * x))))
ONNXC_U(Shrink, x < -a ? x + b : (x > a ? x - b : T(0)))
#undef ONNXC_U

// Binary ops b_<Op>(x, y):
#define ONNXC_B(name, expr)                                                                        \
  template <typename T> __device__ __forceinline__ auto b_##name(T x, T y) { return expr; }
ONNXC_B(Add, T(x + y))
ONNXC_B(Sub, T(x - y))
ONNXC_B(Mul, T(x *y))
ONNXC_B(Max, m_max(x, y))
ONNXC_B(Min, m_min(x, y))
ONNXC_B(Equal, (unsigned char)(x == y))
ONNXC_B(Less, (unsigned char)(x < y))
ONNXC_B(Greater, (unsigned char)(x > y))
ONNXC_B(LessOrEqual, (unsigned char)(x <= y))
ONNXC_B(GreaterOrEqual, (unsigned char)(x >= y))
ONNXC_B(And, (unsigned char)(x &&y))
ONNXC_B(Or, (unsigned char)(x || y))
ONNXC_B(Xor, (unsigned char)((x != 0) != (y != 0)))
ONNXC_B(BitwiseAnd, T(x &y))
ONNXC_B(BitwiseOr, T(x | y))
ONNXC_B(BitwiseXor, T(x ^ y))
ONNXC_B(PRelu, T(x < T(0) ? x * y : x))
ONNXC_B(FMod, T(m_fmod(x, y)))
#undef ONNXC_B
/// Div: as the CPU target's, integer x / 0 is 0 and MIN / -1 wraps to MIN (no undefined
/// overflow).
template <typename T> __device__ __forceinline__ T b_Div(T x, T y) {
  if (T(0.5) == T(0)) {
    if (y == T(0))
      return T(0);
    if (T(-1) < T(0) && y == T(-1))
      return T(0ULL - (unsigned long long)x);
  }
  return T(x / y);
}
template <typename T> __device__ __forceinline__ T b_Mod(T x, T y) { // Python's: sign of y
  if (y == T(0))
    return T(0);
  T r = T(x % y);
  return r != T(0) && ((r < T(0)) != (y < T(0))) ? T(r + y) : r;
}
template <typename T> __device__ __forceinline__ T b_FloatMod(T x, T y) { // fmod=0 on floats
  T r = m_fmod(x, y);
  return r != T(0) && ((r < T(0)) != (y < T(0))) ? T(r + y) : r;
}
template <typename T> __device__ __forceinline__ T b_IntMod(T x, T y) { // C's (fmod=1)
  return y == T(0) ? T(0) : T(x % y);
}
__device__ __forceinline__ float b_Pow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ double b_Pow(double x, double y) { return pow(x, y); }
/// Integer Pow as the CPU target's: by repeated squaring (exact, wrapping), a negative exponent
/// giving 0, or +-1 for a base of +-1.
template <typename T> __device__ __forceinline__ T b_Pow(T x, T y) {
  if (T(-1) < T(0) && y < T(0))
    return x == T(1) ? T(1) : (x == T(-1) ? ((y & T(1)) ? T(-1) : T(1)) : T(0));
  unsigned long long r = 1, a = (unsigned long long)x;
  for (; y != T(0); y = T(y >> 1), a *= a)
    if (y & T(1))
      r *= a;
  return T(r);
}
/// Pow with an integer result (an integer base, a float exponent): the GPU's pow may miss an
/// exact integer power by an ulp (pow(9, 0.5) = 2.9999999999999996), which truncation would
/// turn into the integer below; a result within 8.9e-16 of an integer, relative (4 to 8 ulps),
/// is that integer.
__device__ __forceinline__ double b_PowToInt(double x, double y) {
  const double r = pow(x, y), n = rint(r);
  return fabs(r - n) <= 8.9e-16 * fabs(n) ? n : r;
}
template <typename T> __device__ __forceinline__ T b_BitShiftLeft(T x, T y) {
  return y >= T(sizeof(T) * 8) ? T(0) : T(x << y);
}
template <typename T> __device__ __forceinline__ T b_BitShiftRight(T x, T y) {
  return y >= T(sizeof(T) * 8) ? T(0) : T(x >> y);
}

// ---- tiled GEMM (SIMT): C[m][n] = sum_k A(m, k) * B(k, n), stored by the epilogue -----------
// One 64x64 tile of C per block of 256 threads, K in steps of 16 through shared memory; each
// thread accumulates a 4x4 sub-tile strided by 16. LA(m, k) / LB(k, n) read operands (the conv's
// input gather, a transposed matrix...), EP(m, n, acc) stores. blockIdx.x: tile of N, blockIdx.y:
// tile of M, blockIdx.z: batch/group (the caller's lambdas read it).
constexpr int kGemmBM = 64, kGemmBN = 64, kGemmBK = 16, kGemmThreads = 256;

/// A_KC / B_KC: A(m, k) / B(k, n) is contiguous in k (else in m / n): the tile is loaded with
/// consecutive threads on consecutive addresses either way.
/// S > 1 splits K into S slices (split-K, for products with too few tiles to fill the GPU):
/// blockIdx.z = batch * S + slice; each slice stores its partial tile in `ws` (S * 4096 values
/// per tile) and the last slice of a tile to finish (counted in `counters`, which it resets)
/// adds the partials in slice order (deterministic) and runs the epilogue.
template <typename T, int M, int N, int K, bool A_KC, bool B_KC, int S, class LA, class LB,
          class EP>
__device__ __forceinline__ void gemm_tile(LA la, LB lb, EP ep, T *ws = nullptr,
                                          unsigned *counters = nullptr) {
  // Each thread's rows and columns are strided by 16: conflict-free shared reads and stores
  // (measured on an H200: 22 TFLOP/s at 4096^3 against 16 with 4 consecutive rows and columns
  // per thread read as 16-byte vectors).
  __shared__ T as[kGemmBK][kGemmBM + 1];
  __shared__ T bs[kGemmBK][kGemmBN + 1];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * kGemmBM, n0 = blockIdx.x * kGemmBN;
  const int tr = tid / 16, tc = tid % 16;
  constexpr int KC = S == 1 ? K : ((K + S - 1) / S + kGemmBK - 1) / kGemmBK * kGemmBK;
  const int k_begin = S == 1 ? 0 : (int)(blockIdx.z % S) * KC;
  const int k_end = S == 1 ? K : (k_begin + KC < K ? k_begin + KC : K);
  T acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      acc[i][j] = T(0);
  // The next step's operands are loaded into registers while this step computes (their
  // global latency hidden behind the FMAs), then stored to shared memory.
  constexpr int EA = kGemmBM * kGemmBK / kGemmThreads, EB = kGemmBK * kGemmBN / kGemmThreads;
  T ra[EA], rb[EB];
  auto fetch = [&](int k0) {
#pragma unroll
    for (int e = 0; e < EA; ++e) {
      const int i = tid + e * kGemmThreads;
      const int mm = A_KC ? i / kGemmBK : i % kGemmBM, kk = A_KC ? i % kGemmBK : i / kGemmBM;
      const int m = m0 + mm, k = k0 + kk;
      ra[e] = (M % kGemmBM == 0 || m < M) && (K % kGemmBK == 0 || k < k_end) ? la(m, k) : T(0);
    }
#pragma unroll
    for (int e = 0; e < EB; ++e) {
      const int i = tid + e * kGemmThreads;
      const int kk = B_KC ? i % kGemmBK : i / kGemmBN, nn = B_KC ? i / kGemmBK : i % kGemmBN;
      const int n = n0 + nn, k = k0 + kk;
      rb[e] = (N % kGemmBN == 0 || n < N) && (K % kGemmBK == 0 || k < k_end) ? lb(k, n) : T(0);
    }
  };
  if (k_begin < k_end)
    fetch(k_begin);
  for (int k0 = k_begin; k0 < k_end; k0 += kGemmBK) {
#pragma unroll
    for (int e = 0; e < EA; ++e) {
      const int i = tid + e * kGemmThreads;
      as[A_KC ? i % kGemmBK : i / kGemmBM][A_KC ? i / kGemmBK : i % kGemmBM] = ra[e];
    }
#pragma unroll
    for (int e = 0; e < EB; ++e) {
      const int i = tid + e * kGemmThreads;
      bs[B_KC ? i % kGemmBK : i / kGemmBN][B_KC ? i / kGemmBK : i % kGemmBN] = rb[e];
    }
    __syncthreads();
    if (k0 + kGemmBK < k_end)
      fetch(k0 + kGemmBK);
#pragma unroll
    for (int kk = 0; kk < kGemmBK; ++kk) {
      T a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        a[i] = as[kk][tr + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j)
        b[j] = bs[kk][tc + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  if (S > 1) {
    const unsigned tile = (blockIdx.z / S * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    T *mine = ws + ((unsigned long long)tile * S + blockIdx.z % S) * (kGemmBM * kGemmBN);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
        mine[(tr + 16 * i) * kGemmBN + tc + 16 * j] = acc[i][j];
    __threadfence();
    __syncthreads();
    __shared__ bool last;
    if (tid == 0)
      last = atomicAdd(&counters[tile], 1u) == S - 1;
    __syncthreads();
    if (!last)
      return;
    __threadfence();
    const T *all = ws + (unsigned long long)tile * S * (kGemmBM * kGemmBN);
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int at = (tr + 16 * i) * kGemmBN + tc + 16 * j;
        T v = T(0);
        for (int s = 0; s < S; ++s)
          v += __ldcg(all + s * (kGemmBM * kGemmBN) + at);
        acc[i][j] = v;
      }
    if (tid == 0)
      counters[tile] = 0; // ready for the next run
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int m = m0 + tr + 16 * i, n = n0 + tc + 16 * j;
      if ((M % kGemmBM == 0 || m < M) && (N % kGemmBN == 0 || n < N))
        ep(m, n, acc[i][j]);
    }
}

// ---- tensor-core GEMM (--precision tf32 / fp16 / bf16) ---------------------------------------
// The same tile, operands and epilogue as gemm_tile on float tensors, with the products on
// tensor cores (mma.sync, sm_80+): operands rounded to tf32 / fp16 / bf16 as they are stored
// to shared memory, accumulation in float. 8 warps, each a 32x16 part of the 64x64 tile (2x2
// mma tiles of 16x8); K in steps of 32 through shared memory, the next step's operands loaded
// into registers while this one computes.
enum Prec { kTf32 = 1, kFp16 = 2, kBf16 = 3 };
constexpr int kTcBK = 32;

template <int P> __device__ __forceinline__ unsigned tc_pack(float lo, float hi) {
  unsigned r;
  if (P == kFp16)
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
__device__ __forceinline__ unsigned tc_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}
template <int P>
__device__ __forceinline__ void tc_mma(float (&d)[4], const unsigned (&a)[4],
                                       const unsigned (&b)[2]) {
  if (P == kTf32)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else if (P == kFp16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/// BM x BN: the block's tile, 64x64 (as gemm_tile: the same grid) or 128x128 for large
/// products, each warp (BM / 2) x (BN / 4). K is not split (a product whose K codegen splits
/// runs gemm_tile: codegen/cuda gemm_call).
template <int P, int M, int N, int K, bool A_KC, bool B_KC, int BM = kGemmBM, int BN = kGemmBN,
          class LA, class LB, class EP>
__device__ __forceinline__ void gemm_tile_tc(LA la, LB lb, EP ep) {
  static_assert(BM == BN && (BM == 64 || BM == 128), "tile");
  constexpr int BK = kTcBK;
  constexpr int MI = BM / 32, NJ = BN / 32; // mma tiles per warp: MI x NJ of 16 x 8
  // Shared memory holds the operands already converted, k-contiguous for both (A as [m][k],
  // B as [n][k]): one 32-bit word per tf32 value or per pair (k, k+1) of fp16 / bf16 values,
  // so that each mma fragment register is one conflict-free 32-bit read.
  constexpr int E = P == kTf32 ? 1 : 2;   // values per word
  constexpr int KW = BK / E, SW = KW + 4; // words per row of k, row stride
  __shared__ unsigned as[BM * SW];
  __shared__ unsigned bs[BN * SW];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, q = lane % 4;                         // mma fragment coordinates
  const int wm = warp / 4 * (BM / 2), wn = warp % 4 * (BN / 4); // the warp's part
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  constexpr int k_begin = 0, k_end = K;
  float acc[MI][NJ][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        acc[i][j][e] = 0.f;
  // Word w of a tile: its row (m or n) and word of k; consecutive threads take consecutive
  // addresses of the operand's contiguous dimension in global memory.
  constexpr int WPT = BM * KW / kGemmThreads; // words per thread per operand
  float ra[WPT][E], rb[WPT][E];
  auto fetch = [&](int k0) {
#pragma unroll
    for (int w = 0; w < WPT; ++w) {
      const int i = tid + w * kGemmThreads;
      const int mm = A_KC ? i / KW : i % BM, kw = A_KC ? i % KW : i / BM;
      const int nn = B_KC ? i / KW : i % BN, kb = B_KC ? i % KW : i / BN;
#pragma unroll
      for (int e = 0; e < E; ++e) {
        const int ka = k0 + kw * E + e, kbb = k0 + kb * E + e;
        ra[w][e] = (M % BM == 0 || m0 + mm < M) && (K % BK == 0 || ka < k_end)
                       ? float(la(m0 + mm, ka))
                       : 0.f;
        rb[w][e] = (N % BN == 0 || n0 + nn < N) && (K % BK == 0 || kbb < k_end)
                       ? float(lb(kbb, n0 + nn))
                       : 0.f;
      }
    }
  };
  auto word = [](const float(&v)[E]) {
    if constexpr (E == 1)
      return tc_tf32(v[0]);
    else
      return tc_pack<P>(v[0], v[E - 1]);
  };
  if (k_begin < k_end)
    fetch(k_begin);
  for (int k0 = k_begin; k0 < k_end; k0 += BK) {
#pragma unroll
    for (int w = 0; w < WPT; ++w) {
      const int i = tid + w * kGemmThreads;
      as[(A_KC ? i / KW : i % BM) * SW + (A_KC ? i % KW : i / BM)] = word(ra[w]);
      bs[(B_KC ? i / KW : i % BN) * SW + (B_KC ? i % KW : i / BN)] = word(rb[w]);
    }
    __syncthreads();
    if (k0 + BK < k_end)
      fetch(k0 + BK);
    constexpr int KS = P == kTf32 ? 8 : 16; // k of one mma
#pragma unroll
    for (int ks = 0; ks < BK; ks += KS) {
      // fragment registers: rows g and g + 8, words q and q + 4 of this k step (tf32: k + q,
      // k + q + 4; fp16 / bf16: the pairs at k + 2q and k + 2q + 8)
      const int kw = ks / E + q;
      unsigned a[MI][4], b[NJ][2];
#pragma unroll
      for (int i = 0; i < MI; ++i) {
        const unsigned *r0 = as + (wm + i * 16 + g) * SW + kw, *r8 = r0 + 8 * SW;
        a[i][0] = r0[0];
        a[i][1] = r8[0];
        a[i][2] = r0[4];
        a[i][3] = r8[4];
      }
#pragma unroll
      for (int j = 0; j < NJ; ++j) {
        const unsigned *c0 = bs + (wn + j * 8 + g) * SW + kw;
        b[j][0] = c0[0];
        b[j][1] = c0[4];
      }
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j)
          tc_mma<P>(acc[i][j], a[i], b[j]);
    }
    __syncthreads();
  }
  // acc[i][j][e] is C(wm + 16 i + g + 8 (e / 2), wn + 8 j + 2 q + e % 2) of the tile
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int m = m0 + wm + 16 * i + g + 8 * (e / 2), n = n0 + wn + 8 * j + 2 * q + e % 2;
        if ((M % BM == 0 || m < M) && (N % BN == 0 || n < N))
          ep(m, n, acc[i][j][e]);
      }
}

// ---- convolution (NCHW) ------------------------------------------------------------------------
// The input element of the implicit-GEMM B operand: row k = (ci, kh, kw) of the group's input
// channels, column n = (b, oh, ow); 0 in the padding.
template <typename T, int CG, int H, int W, int KH, int KW, int SH, int SW, int PH, int PW, int DH,
          int DW, int OH, int OW, int C>
__device__ __forceinline__ T conv_input(const T *x, int g, int k, int n) {
  const int kw = k % KW, kh = (k / KW) % KH, ci = k / (KW * KH);
  const int ow = n % OW, oh = (n / OW) % OH, b = n / (OW * OH);
  const int ih = oh * SH - PH + kh * DH, iw = ow * SW - PW + kw * DW;
  if (ih < 0 || ih >= H || iw < 0 || iw >= W)
    return T(0);
  return x[((long long)(b * C + g * CG + ci) * H + ih) * W + iw];
}

// ---- reductions within a block ---------------------------------------------------------------
template <typename T> __device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
template <typename T> __device__ __forceinline__ T warp_max(T v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2)
    v = m_max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
/// Sum over the block (blockDim.x a multiple of 32, at most 1024); every thread gets it.
template <typename T> __device__ __forceinline__ T block_sum(T v) {
  __shared__ T part[32];
  v = warp_sum(v);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  __syncthreads();
  if (lane == 0)
    part[warp] = v;
  __syncthreads();
  v = lane < warps ? part[lane] : T(0);
  return warp_sum(v);
}
template <typename T> __device__ __forceinline__ T block_max(T v) {
  __shared__ T part[32];
  v = warp_max(v);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  __syncthreads();
  if (lane == 0)
    part[warp] = v;
  __syncthreads();
  v = lane < warps ? part[lane] : lowest<T>();
  return warp_max(v);
}

} // namespace onnxc
