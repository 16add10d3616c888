/* The contract between the Conv lowering (compiler/ops/nn/conv.cpp) and its kernel
 * onnxc_k_conv_<dtype> (templates/cpu/conv.cpp): the parameter struct, the algorithms and the
 * scratch size. Spatial dims are padded to 3 with leading 1s. */
#ifndef ONNXC_CONV_PARAMS_H
#define ONNXC_CONV_PARAMS_H

#include "templates/cpu/gemm_params.h"
#include "templates/cpu/params.h"

namespace onnxc_k {

/// How the kernel computes the convolution (chosen by the lowering).
enum ConvAlgo : int64_t {
  kConvIm2col = 0,      ///< GEMM on im2col panels packed into the scratch buffer
  kConvDirect = 1,      ///< depthwise (one input channel per group), 1-D/2-D: vector rows
  kConvPointwise = 2,   ///< 1x1, stride 1, no padding: the input plane is the GEMM's B as is
  kConvWinograd = 3,    ///< 2-D 3x3, stride 1, one group: Winograd F(2x2, 3x3), W transformed
  kConvDwChannels = 4,  ///< depthwise (M == C == G), float, 1-D/2-D: 16 channels per vector
  kConvFewChannels = 5, ///< float, one group, C <= 16 (a first layer), 2-D: direct, phase rows
  kConvChanVec = 6,     ///< float, one group, 2-D, strided: direct, output channels per vector
  kConvWinograd4 = 7,   ///< as kConvWinograd with F(4x4, 3x3): 6x6 input tiles, 36 products
};

struct ConvParams {
  int64_t N, C, M, G; ///< batch, input channels, output channels, groups
  WindowGeom w;
  int64_t algo;     ///< ConvAlgo
  int64_t has_bias; ///< 0/1: tensor 2 is the bias
  int64_t w_packed; ///< 0/1: tensor 1 is W pre-packed per group (conv_pack_weights), GEMM algos,
                    ///< per channel block (conv_dwc_pack_weights), kConvDwChannels, or for
                    ///< Winograd as U (conv_wino_weights) or its taps (wino_run_time_u)
  ActParams act;    ///< fused activation, applied as each output element is final
  int64_t gemm_mr;  ///< GEMM micro-tile rows (GemmParams::mr); 0: gemm::kMR
  /// 0/1: tensor 4 is a residual R of Y's shape, Y = act(conv + bias + R) (the fuse-residual
  /// pass); the scratch then comes after it. GEMM algos and Winograd only.
  int64_t has_residual;
  /// 0/1: the next tensor (4, or 5 after a residual) is S, one scale per input channel, and
  /// the conv is of S * X (the fuse-channel-scale pass: a squeeze-excite's Mul before a
  /// pointwise conv, batch 1): W's columns are scaled into the scratch first (conv_in_scale_*).
  /// GEMM algos, one group, 1x1 windows only.
  int64_t has_in_scale;
};

/// GEMM panel width in elements for an element of `elem_bytes` (gemm::panel_width).
constexpr int64_t conv_panel_width(int64_t elem_bytes) { return gemm::panel_width(elem_bytes); }

/// Columns of one sub-panel of the GEMM algos' and Winograd's packed B (gemm::b_slice_width of
/// the node's tile rows): 6-row tiles (AVX2, AArch64 NEON) read their one-vector column slice as
/// one sequential stream; 8-row tiles read whole panels.
constexpr int64_t conv_b_sub(const ConvParams &p, int64_t elem_bytes) {
  return gemm::b_slice_width(p.gemm_mr, elem_bytes);
}

/// Whether the node's GEMM tiles are under gemm::kMR rows (AVX2, AArch64 NEON: 6; SSE, ARMv7: 2).
constexpr bool conv_few_tile_rows(const ConvParams &p) {
  return p.gemm_mr > 0 && p.gemm_mr < gemm::kMR;
}
/// True for GEMM tiles under 6 rows (SSE, ARMv7 NEON: 16 registers of 16 bytes): the paths tuned
/// on AVX-512 and AVX2 (kConvChanVec, F(4x4, 3x3)) are not measured there and are not chosen.
constexpr bool conv_tiny_regs(const ConvParams &p) { return p.gemm_mr > 0 && p.gemm_mr < 6; }

/// The GEMM's K: one group's input channels times the kernel size.
constexpr int64_t conv_gemm_k(const ConvParams &p) { return p.C / p.G * p.w.k_size(); }

/// Elements of W pre-packed for the GEMM algos: each group's Mg x K block as packed A
/// (gemm_params.h), one after the other.
constexpr int64_t conv_packed_w_elems(const ConvParams &p) {
  return p.G * gemm::packed_a_elems(p.M / p.G, conv_gemm_k(p));
}

/// Packs W (M x Cg x k...) for the GEMM algos into dst (conv_packed_w_elems elements).
template <typename T> inline void conv_pack_weights(const ConvParams &p, const T *w, T *dst) {
  const int64_t Mg = p.M / p.G, K = conv_gemm_k(p);
  for (int64_t g = 0; g < p.G; ++g)
    gemm::pack_a(dst + g * gemm::packed_a_elems(Mg, K), w + g * Mg * K, Mg, K, K, 1);
}

/// kConvPointwise: the GEMM reads the input plane in place (gemm::Problem::bd) for its whole
/// panels, and packs only the last, partial one. Packing costs as much as the product when
/// the output has few channels; read in place, each panel row is a run of the plane's row.
/// Only when the plane's rows (in bytes) keep 64-byte alignment (a vector never straddles two
/// cache lines, which halves the load bandwidth: 14x14 and 7x7 planes stay packed), or when
/// the output has at most kConvInPlaceAnyRowsM channels per group (one row block of
/// gemm::kMC: the packed B would serve a single block's tiles, so packing it costs more than
/// the straddling loads; one-node models on a Xeon with AVX-512, 1 thread, session 33: 128 ->
/// 16 channels at 55x55 0.209 -> 0.119 ms, 128 -> 32 0.278 -> 0.222, 576 -> 64 at 14x14 0.120
/// -> 0.112, 64 -> 48 at 27x27 0.038 -> 0.035; with 128 channels and more, packed wins: 128 ->
/// 128 at 55x55 0.753 against 0.814 in place; with 6-row tiles on a Zen 3, session 47, with
/// Relu: 128 -> 16 at 55x55 0.261 -> 0.198, 384 -> 64 at 14x14 0.149 -> 0.132, 192 -> 64 at
/// 14x14 0.084 -> 0.075, 512 -> 64 at 27x27 0.665 -> 0.653, 96 -> 24 at 56x56 level, and 128 or
/// more channels lost there too: 2048 -> 512 at 7x7 1.28 -> 1.58, 1024 -> 256 at 14x14 1.22 ->
/// 1.30); and not a multiple of 4096 bytes (the K rows of a panel would all fall in the same
/// L1 sets).
constexpr int64_t kConvInPlaceAnyRowsM = gemm::kMC;
constexpr bool conv_b_in_place(const ConvParams &p, int64_t elem_bytes) {
  const int64_t row_bytes = p.w.out_size() * elem_bytes;
  return p.algo == kConvPointwise &&
         (row_bytes % 64 == 0 || p.M / p.G <= kConvInPlaceAnyRowsM) &&
         row_bytes % 4096 != 0;
}

/// B read in place from at least this many bytes (one group's K rows of the plane) comes from
/// L3 or memory: the micro-kernel requests its rows ahead (gemm::Problem::b_stream). 256 -> 64
/// channels at 56x56 (3.2 MB), batch 4, Intel Xeon, 1 thread: 3.69 -> 3.19 ms; 64 -> 256 (800
/// KB, in L2) ran 13% slower with the requests (3.23 -> 3.65), so smaller planes go without.
constexpr int64_t kConvStreamBBytes = 1 << 20;
constexpr bool conv_b_streamed(const ConvParams &p, int64_t elem_bytes) {
  return conv_b_in_place(p, elem_bytes) &&
         conv_gemm_k(p) * p.w.out_size() * elem_bytes >= kConvStreamBBytes;
}

/// Elements of one group's packed K x (output plane) matrix in the scratch buffer (GEMM algos);
/// in place (conv_b_in_place), only its last partial panel (one element when there is none:
/// the kernel's tensor list always has the scratch slot).
constexpr int64_t conv_group_cols_elems(const ConvParams &p, int64_t elem_bytes) {
  const int64_t N = p.w.out_size(), nr = gemm::panel_width(elem_bytes);
  if (conv_b_in_place(p, elem_bytes))
    return N % nr ? gemm::packed_b_elems(conv_gemm_k(p), nr, elem_bytes) : 1;
  return gemm::packed_b_elems(conv_gemm_k(p), N, elem_bytes);
}

/// GEMM algos: column blocks (of gemm::kNC) from which each work item packs the columns it
/// multiplies (the fused schedule); with fewer, B is packed first and the tiles run after it.
constexpr int64_t kConvFusedBlocks = 4;
constexpr bool conv_fused_schedule(const ConvParams &p) {
  return gemm::ceil_div(p.w.out_size(), gemm::kNC) >= kConvFusedBlocks;
}
/// GEMM algos with few column blocks (not conv_fused_schedule) at `threads` threads: the
/// threads' count of shares of B's panels when each gets at least kConvShareMinPanels panels
/// and there is one group (conv_gemm_fused then splits the plane's pixels, not W's rows,
/// between the threads: a chain of 1x1 convs at 14x14 then reads on each thread what it wrote;
/// with W's rows split, each thread packed and read B from both cores); else 0.
constexpr int64_t kConvShareMinPanels = 2;
constexpr int64_t conv_panel_shares(const ConvParams &p, int64_t threads, int64_t elem_bytes) {
  const int64_t panels = gemm::ceil_div(p.w.out_size(), gemm::panel_width(elem_bytes));
  return threads > 1 && p.G == 1 && panels >= threads * kConvShareMinPanels ? threads : 0;
}
/// The few-columns schedule packs the B of several images into at most this many scratch bytes.
constexpr int64_t kConvBatchScratchBytes = 8 << 20;
/// GEMM algos: images whose B the few-columns schedule packs at once, so that their tiles run
/// in one parallel loop (fewer, larger loops) and each row block of W is used for all of them
/// while it is in cache (resnet50 at batch 4: W of layer3/4 is 1-2 MB per conv); 1 for the
/// fused schedule.
constexpr int64_t conv_gemm_images(const ConvParams &p, int64_t elem_bytes) {
  if (p.N <= 1 || conv_fused_schedule(p))
    return 1;
  const int64_t per = p.G * conv_group_cols_elems(p, elem_bytes) * elem_bytes;
  const int64_t n = per > 0 ? kConvBatchScratchBytes / per : p.N;
  return n < 1 ? 1 : n > p.N ? p.N : n;
}

/// kConvDirect: at least this many work items (output rows are split when there are fewer planes).
constexpr int64_t kConvDirectMinItems = 16;

/// kConvDirect: blocks of output rows per (image, channel) plane.
constexpr int64_t conv_dw_splits(const ConvParams &p) {
  const int64_t lines = p.w.out[0] * p.w.out[1], planes = p.N * p.M;
  if (planes == 0) /* an empty batch or no output channels: nothing to split */
    return 1;
  const int64_t want = (kConvDirectMinItems + planes - 1) / planes;
  return lines < want ? lines : want;
}

/// True when kConvDirect can run the window: 1-D and 2-D (every work item copies the input rows
/// it reads, zero-padded, into its part of the scratch).
constexpr bool conv_dw_supported(const ConvParams &p) {
  return p.w.in[0] == 1 && p.w.out[0] == 1 && p.w.k[0] == 1 && p.w.p[0] == 0;
}

/// kConvDirect: elements of one padded input row (every vector's loads stay inside it,
/// including the two-vector loads of stride 2), and rows one work item copies.
constexpr int64_t conv_dw_row_elems(const ConvParams &p, int64_t elem_bytes) {
  const int64_t lanes = 64 / elem_bytes, w = p.w.out[2] > lanes ? p.w.out[2] : lanes;
  return (w - 1) * p.w.s[2] + (p.w.k[2] - 1) * p.w.d[2] + 2;
}
/// kConvDirect: output rows a work item computes per block (it copies the input rows of one
/// block at a time, so its part of the scratch stays in L1: a whole plane's rows, 4.9 MB over
/// mobilenet_v2's 112x112 depthwise stride-2 layer, went through L3).
constexpr int64_t kConvDwBlockRows = 8;
/// Output rows of one block of a work item (conv_depthwise's dw_padded_rows).
constexpr int64_t conv_dw_block_lines(const ConvParams &p) {
  const int64_t splits = conv_dw_splits(p), lines = (p.w.out[1] + splits - 1) / splits;
  return lines < kConvDwBlockRows ? lines : kConvDwBlockRows;
}
constexpr int64_t conv_dw_item_rows(const ConvParams &p) {
  return (conv_dw_block_lines(p) - 1) * p.w.s[1] + (p.w.k[1] - 1) * p.w.d[1] + 1;
}

/* ---- kConvDwChannels: depthwise on channel vectors. A work item (image, block of kDwcLanes
   channels, band of output rows) transposes the band's input rows into its lane's scratch as
   one vector of the block's channels per pixel (zero-padded rows of dwc_cols pixels), computes
   each output pixel's vector with one FMA per tap (every lane useful, whatever the plane's
   width or the stride), and transposes the band's output back to the channels' planes. ---- */
/// Channels per vector (float: 64 bytes).
constexpr int64_t kDwcLanes = 16;
/// Taps at most (the block's weights are gathered into kDwcMaxTaps vectors on the stack).
constexpr int64_t kDwcMaxTaps = 64;
/// Scratch bytes a band should stay within (input rows and output pixels of one lane: L2).
constexpr int64_t kDwcBandBytes = 96 * 1024;
/// At most this many lanes (each lane's scratch is used by its work items in turn).
constexpr int64_t kDwcMaxLanes = 16;
/// True when kConvDwChannels can run p: float, 1-D/2-D, one input and one output channel per
/// group, at most kDwcMaxTaps taps.
constexpr bool conv_dwc_supported(const ConvParams &p, int64_t elem_bytes) {
  return elem_bytes == 4 && p.C == p.G && p.M == p.G && conv_dw_supported(p) &&
         p.w.k_size() <= kDwcMaxTaps;
}
/// Where kConvDwChannels beats kConvDirect (one-node models with SiLU, 1 thread, Zen 4): the
/// row-vector path wastes lanes on rows narrower than a vector and, for stride 2, de-interleaves
/// every input row (a fixed cost per row and channel that dominates narrow planes); the channel
/// path pays two transposes per element. So output rows of at most 14 pixels (7: 2-3x faster;
/// 14 with a 3x3 stride-2 window, session 36: 240 channels 28 -> 14 0.130 -> 0.072 ms, 192
/// channels 0.111 -> 0.061, where session 26's machine had measured 0.064 against 0.071 for
/// the row path), and of at most 28 for windows of 5 columns or more (144 channels 5x5 stride 2
/// 56 -> 28 0.275 -> 0.249, 240 channels 5x5 at 28x28 0.283 -> 0.248); 3x3 windows at 28
/// columns stay on the row path (stride 2: 0.172 against 0.191; stride 1 level).
constexpr bool conv_dwc_preferred(const ConvParams &p) {
  const int64_t W = p.w.out[2];
  return W <= 14 || (W <= 28 && p.w.k[2] >= 5);
}
/// Channel blocks of kDwcLanes.
constexpr int64_t dwc_blocks(const ConvParams &p) { return (p.M + kDwcLanes - 1) / kDwcLanes; }
/// Elements of W pre-packed for kConvDwChannels: per channel block, one vector of its channels'
/// weights per tap (channels past M zero).
constexpr int64_t conv_dwc_packed_w_elems(const ConvParams &p) {
  return dwc_blocks(p) * p.w.k_size() * kDwcLanes;
}
/// Packs block b of `lanes` output channels of W (M rows of K weights) into dst, `lanes`
/// weights per k (channels past M zero): kConvDwChannels' vector per tap (lanes 16, K the
/// taps) and kConvFewChannels' broadcasts per tap (lanes 8, K = C x taps). Also the kernels'
/// gather when W is not pre-packed.
template <typename T>
inline void conv_pack_channel_block(int64_t M, int64_t K, int64_t lanes, const T *w, int64_t b,
                                    T *dst) {
  for (int64_t k = 0; k < K; ++k)
    for (int64_t l = 0; l < lanes; ++l) {
      const int64_t m = b * lanes + l;
      dst[k * lanes + l] = m < M ? w[m * K + k] : T(0);
    }
}
/// Packs W (M x 1 x k...) for kConvDwChannels into dst (conv_dwc_packed_w_elems elements).
template <typename T> inline void conv_dwc_pack_weights(const ConvParams &p, const T *w, T *dst) {
  for (int64_t b = 0; b < dwc_blocks(p); ++b)
    conv_pack_channel_block(p.M, p.w.k_size(), kDwcLanes, w, b, dst + b * p.w.k_size() * kDwcLanes);
}
/// Pixels of one scratch row: the left padding, the input row and whatever the windows read
/// past it (right padding).
constexpr int64_t dwc_cols(const ConvParams &p) {
  const int64_t reach = (p.w.out[2] - 1) * p.w.s[2] + (p.w.k[2] - 1) * p.w.d[2] + 1;
  const int64_t row = p.w.p[2] + p.w.in[2];
  return reach > row ? reach : row;
}
/// Input rows that `lines` output rows read.
constexpr int64_t dwc_in_rows(const ConvParams &p, int64_t lines) {
  return (lines - 1) * p.w.s[1] + (p.w.k[1] - 1) * p.w.d[1] + 1;
}
/// Scratch elements of a band of `lines` output rows: its input rows and its output pixels.
constexpr int64_t dwc_band_elems(const ConvParams &p, int64_t lines) {
  return (dwc_in_rows(p, lines) * dwc_cols(p) + lines * p.w.out[2]) * kDwcLanes;
}
/// Output rows per band: as many as fit kDwcBandBytes (at least 1), fewer when an image's
/// channel blocks are too few work items for kConvDirectMinItems (per image, so that the
/// scratch does not depend on the batch).
constexpr int64_t dwc_band_lines(const ConvParams &p, int64_t elem_bytes) {
  const int64_t H = p.w.out[1] > 0 ? p.w.out[1] : 1;
  int64_t lines = 1;
  while (lines < H && dwc_band_elems(p, lines + 1) * elem_bytes <= kDwcBandBytes)
    ++lines;
  const int64_t planes = dwc_blocks(p);
  if (planes > 0 && planes < kConvDirectMinItems) {
    const int64_t want = (kConvDirectMinItems + planes - 1) / planes; /* bands per plane */
    const int64_t most = (H + want - 1) / want;
    lines = lines < most ? lines : most;
  }
  return lines;
}
constexpr int64_t dwc_bands(const ConvParams &p, int64_t elem_bytes) {
  const int64_t lines = dwc_band_lines(p, elem_bytes);
  return (p.w.out[1] + lines - 1) / lines;
}
/// Work items: (image, channel block, band).
constexpr int64_t dwc_items(const ConvParams &p, int64_t elem_bytes) {
  return p.N * dwc_blocks(p) * dwc_bands(p, elem_bytes);
}
/// Lanes at most (the kernel uses one per thread): lane l runs the l-th of `lanes` contiguous
/// ranges of items with its own scratch. From one image's items, so that the scratch does not
/// depend on the batch.
constexpr int64_t dwc_lanes(const ConvParams &p, int64_t elem_bytes) {
  const int64_t items = dwc_blocks(p) * dwc_bands(p, elem_bytes);
  return items < kDwcMaxLanes ? (items > 0 ? items : 1) : kDwcMaxLanes;
}
/// One lane's scratch elements, rounded to whole 64-byte lines.
constexpr int64_t dwc_lane_elems(const ConvParams &p, int64_t elem_bytes) {
  return dwc_band_elems(p, dwc_band_lines(p, elem_bytes)) + 64 / elem_bytes;
}

/* ---- kConvFewChannels: 2-D float convs with few input channels (a network's first layer
   on 3 colour channels, or an early narrow one: SqueezeNet's 16-channel expand3x3). As a GEMM,
   K is only C x taps (27-256), so im2col packing and the epilogue cost as much as the FMAs
   (resnet's 7x7 stem at 81 GFLOP/s). Direct instead: each image's zero-padded input is first split
   into stride-phase rows in the scratch (phase q of a padded row holds its columns q, q + s, q +
   2s, ...), so that any tap's input for consecutive output pixels is one contiguous run; a work
   item (block of kFewMB output channels, band of kFewBandRows output rows) accumulates kFewMB x up
   to 3 vectors of output pixels over all C x kh x kw taps: per tap the pixel vectors are loaded
   once and each output channel's weight is broadcast. ---- */
/// Input channels at most (the kernel: kFewMaxTaps bounds C x taps too).
constexpr int64_t kFewMaxC = 128;
/// Input channels up to which the path is chosen for any window and channel count, except 3x3
/// stride-1 windows that Winograd runs faster (kFewWinoMinC, kFewWinoMinM). More channels:
/// conv_few_preferred.
constexpr int64_t kFewAnyC = 16;
/// Output channels at most for which a window of several taps from more than kFewAnyC input
/// channels is direct on 8-row GEMM tiles when Winograd does not take it (below).
constexpr int64_t kFewMaxM = 32;
/// 3x3 stride-1 windows from at least kFewWinoMinC input channels to at least kFewWinoMinM
/// output channels go to Winograd (when it supports and prefers them), not to the direct path:
/// one-node models with Relu alternating in one process, 1 thread, session 45's Zen 5 (direct
/// -> Winograd): 16 -> 64 at 55x55 0.259 -> 0.207 ms, 16 -> 32 at 128x128 0.590 -> 0.497, 32 ->
/// 32 at 128x128 1.153 -> 0.784, 96 -> 32 3.46 -> 2.01, 64 -> 32 at 56x56 0.546 -> 0.361, 128 ->
/// 32 at 28x28 0.260 -> 0.228 (the same at 2 threads); with fewer channels the direct path stays
/// ahead: 8 -> 32 at 128x128 0.315 against 0.366, 8 -> 64 at 56x56 0.138 against 0.154, 16 -> 16
/// at 128x128 0.306 against 0.409, 32 -> 16 at 64x64 0.160 against 0.195. (Sessions 34 and 37
/// had measured the direct path ahead for 16 -> 64 and 32 -> 32, against the Winograd kernels of
/// then.)
constexpr int64_t kFewWinoMinC = 16;
constexpr int64_t kFewWinoMinM = 32;
/// Output channels per block (one broadcast weight each per tap).
constexpr int64_t kFewMB = 8;
/// C x taps at most (the block's weights, kFewMB per tap, 36 KiB at most, stay in L1 or L2;
/// 128 channels of a 3x3 window).
constexpr int64_t kFewMaxTaps = 1152;
/// C x taps at most when W is not pre-packed (the kernel gathers a block's weights into a
/// stack buffer of this many taps, 8 KiB).
constexpr int64_t kFewGatherTaps = 256;
/// Output rows per work item.
constexpr int64_t kFewBandRows = 4;
/// True when kConvFewChannels can run p: float, one group, at most kFewMaxC input channels,
/// 2-D (or 1-D), dilation 1, stride at most 4, no fused residual, at least one channel block
/// and output rows of at least one vector (narrower planes gain nothing over the GEMM).
constexpr bool conv_few_supported(const ConvParams &p, int64_t elem_bytes) {
  return elem_bytes == 4 && p.G == 1 && p.C <= kFewMaxC && conv_dw_supported(p) && p.w.d[1] == 1 &&
         p.w.d[2] == 1 && p.w.s[1] <= 4 && p.w.s[2] <= 4 && p.C * p.w.k_size() <= kFewMaxTaps &&
         p.has_residual == 0 && p.M >= kFewMB && p.w.out[2] >= 16;
}
/// Phase rows of one input channel: the padded rows the windows read.
constexpr int64_t few_rows(const ConvParams &p) { return (p.w.out[1] - 1) * p.w.s[1] + p.w.k[1]; }
/// Elements of one phase row: every output pixel's run for each tap, rounded up to whole
/// vectors of output pixels (the last vector reads past the plane's width), in whole lines.
constexpr int64_t few_phase_cols(const ConvParams &p) {
  const int64_t out = (p.w.out[2] + 15) / 16 * 16, need = out + (p.w.k[2] - 1) / p.w.s[2];
  return (need + 15) / 16 * 16;
}
/// Elements of one image's phase rows (the scratch).
constexpr int64_t few_scratch_elems(const ConvParams &p) {
  return p.C * few_rows(p) * p.w.s[2] * few_phase_cols(p);
}
/// Elements of W (M x C x taps) packed in blocks of `lanes` output channels, `lanes` weights
/// per channel and tap (conv_pack_channel_blocks).
constexpr int64_t conv_channel_blocks_elems(const ConvParams &p, int64_t lanes) {
  return (p.M + lanes - 1) / lanes * p.C * p.w.k_size() * lanes;
}
/// Packs W in blocks of `lanes` output channels (channels past M zero) into dst
/// (conv_channel_blocks_elems elements): kConvFewChannels' and kConvChanVec's layouts.
template <typename T>
inline void conv_pack_channel_blocks(const ConvParams &p, int64_t lanes, const T *w, T *dst) {
  const int64_t K = p.C * p.w.k_size();
  for (int64_t b = 0; b * lanes < p.M; ++b)
    conv_pack_channel_block(p.M, K, lanes, w, b, dst + b * K * lanes);
}
/// Channel blocks of kFewMB.
constexpr int64_t few_blocks(const ConvParams &p) { return (p.M + kFewMB - 1) / kFewMB; }
/// Elements of W pre-packed for kConvFewChannels: per block, kFewMB weights per tap.
constexpr int64_t conv_few_packed_w_elems(const ConvParams &p) {
  return conv_channel_blocks_elems(p, kFewMB);
}
/// Packs W for kConvFewChannels into dst (conv_few_packed_w_elems elements).
template <typename T> inline void conv_few_pack_weights(const ConvParams &p, const T *w, T *dst) {
  conv_pack_channel_blocks(p, kFewMB, w, dst);
}

/* ---- kConvChanVec: 2-D float convs with strided windows and many channels (ResNet's 3x3
   stride-2 convs, 128-512 channels). im2col + GEMM packs K x N for a plane of 784 or 196 pixels,
   and the phase-row direct path (kConvFewChannels) puts output pixels in the lanes, wasting 4 of
   32 on rows of 28 and more on 14. Here the lanes are output channels: each image's input is
   first copied zero-padded into the scratch; a work item (block of kCvOC output channels, output
   row, segment of up to kCvPx pixels) keeps kCvOC / 16 x kCvPx vectors over all C x kh x kw taps
   (per tap: the block's weights as kCvOC / 16 vector loads, each pixel's input element
   broadcast), then stores each pixel's channels to their planes. ---- */
/// Output channels per block (two vectors of float).
constexpr int64_t kCvOC = 32;
/// Output pixels per tile at most (2 x 12 accumulators, the weight vectors and a broadcast fit
/// AVX-512's 32 registers; with 14, LLVM spilled accumulators in the tap loop).
constexpr int64_t kCvPx = 12;
/// ... and per sub-tile with 16 vector registers (AVX2: one vector of 16 channels is 2 ymm; 2
/// x 6 accumulators, 2 of weights and a broadcast).
constexpr int64_t kCvFewPx = 6;
/// Input channels at least (fewer: the phase-row path, kConvFewChannels) and at most (more: W's
/// block of C x taps x kCvOC floats, 576 KiB at 512 channels of a 3x3 window, would no longer
/// stay in L2 for the block's pixels). ResNet-50's 512-channel 3x3 stride-2 conv (14 -> 7) had
/// gone to im2col with a limit of 256: on a 2 MiB-L2 Xeon, 1 thread 2.01 -> 1.58 ms, 2 threads
/// 1.27 -> 0.79, at batch 4 8.62 -> 6.54 and 5.06 -> 3.23 (ORT 1.49, 0.75, 6.22, 3.07).
constexpr int64_t kCvMinC = 17, kCvMaxC = 512;
static_assert(kCvPx == 12, "cv_tile_px's sizes");
/// True when kConvChanVec can run p: float, one group, 2-D (or 1-D), dilation 1, no input
/// scale, at least one full channel block (a fused residual is added as the tiles are stored).
constexpr bool conv_cv_supported(const ConvParams &p, int64_t elem_bytes) {
  return elem_bytes == 4 && p.G == 1 && conv_dw_supported(p) && p.w.d[1] == 1 && p.w.d[2] == 1 &&
         p.has_in_scale == 0 && p.M >= kCvOC && p.C >= kCvMinC && p.C <= kCvMaxC &&
         p.w.k_size() > 1;
}
/// Pixels per tile: 7, 8, 10 or kCvPx, the fewest that cover an output row in as few tiles as
/// kCvPx would (28 pixels: 3 tiles of 10; 14: 2 of 7; 56: 5 of 12).
constexpr int64_t cv_tile_px(const ConvParams &p) {
  const int64_t W = p.w.out[2] > 0 ? p.w.out[2] : 1, segs = (W + kCvPx - 1) / kCvPx;
  const int64_t need = (W + segs - 1) / segs;
  return need <= 7 ? 7 : need <= 8 ? 8 : need <= 10 ? 10 : kCvPx;
}
/// Segments (tiles) per output row.
constexpr int64_t cv_segments(const ConvParams &p) {
  return (p.w.out[2] + cv_tile_px(p) - 1) / cv_tile_px(p);
}
/// Rows and columns of one channel's zero-padded input in the scratch: every tap of every tile
/// reads inside it (the last segment's pixels past the row included).
constexpr int64_t cv_rows(const ConvParams &p) { return (p.w.out[1] - 1) * p.w.s[1] + p.w.k[1]; }
constexpr int64_t cv_cols(const ConvParams &p) {
  return (cv_segments(p) * cv_tile_px(p) - 1) * p.w.s[2] + p.w.k[2];
}
/// Elements of one image's padded input (the scratch).
constexpr int64_t cv_scratch_elems(const ConvParams &p) { return p.C * cv_rows(p) * cv_cols(p); }
/// Bands of output rows for `threads` threads (one each) where an image's padded input
/// outweighs W (each thread then reads its band's rows for all of W, instead of the whole
/// input for its blocks of W): 128 channels 56 -> 28 (1.7 MB of input, 0.6 MB of W), 2 threads
/// 1.35 -> 0.87 ms; with more W than input, blocks of W (256 -> 512 channels 14 -> 7, 4.7 MB of
/// W, by bands 0.39 -> 0.51 ms). 1 otherwise.
constexpr int64_t cv_bands(const ConvParams &p, int64_t threads) {
  const int64_t H = p.w.out[1] > 0 ? p.w.out[1] : 1;
  if (threads <= 1 || cv_scratch_elems(p) < p.C * p.w.k_size() * p.M)
    return 1;
  return threads < H ? threads : H;
}
/// Output rows per band: ceil(rows / bands), so the last bands may have fewer rows or none (13
/// rows in 6 bands: 3, 3, 3, 3, 1, 0); their items past the plane do nothing (the thread pool
/// hands a thread that is done early the others' remaining items).
constexpr int64_t cv_band_rows(const ConvParams &p, int64_t bands) {
  return (p.w.out[1] + bands - 1) / bands;
}
/// Channel blocks of kCvOC.
constexpr int64_t cv_blocks(const ConvParams &p) { return (p.M + kCvOC - 1) / kCvOC; }
/// The work items' channel blocks: kCvOC channels, or with 16 vector registers (AVX2: half
/// blocks of 16, conv.cpp cv_tile_few) each half, so that the items of one half run together
/// and its C x taps x 16 weights stay in L2 for them (288 KiB at 512 channels, where a whole
/// block's 576 KiB exceeds a Zen 3's 512 KiB L2).
constexpr int64_t cv_item_halves(const ConvParams &p) { return conv_few_tile_rows(p) ? 2 : 1; }
constexpr int64_t cv_item_blocks(const ConvParams &p) {
  return cv_item_halves(p) == 2 ? (p.M + kCvOC / 2 - 1) / (kCvOC / 2) : cv_blocks(p);
}
/// With 16 vector registers (two item halves), a work item is one half block of one band: its
/// pixels in tiles of kCvFewPx consecutive pixels of the plane (conv.cpp cv_tile_flat), for
/// chunks of cv_flat_chunk input channels, each chunk over every tile before the next, so
/// that the chunk's weights (at most kCvFlatChunkBytes) are read from L1/L2 for all of them
/// (later chunks add to the partial sums stored by the ones before). A half block's weights
/// up to kCvFlatWholeBytes are read whole per tile: they stay in L2 (one-node models with
/// Relu, 1 thread, Zen 3, against whole-C tiles: 512 -> 512 channels 3x3 stride 2 14 -> 7
/// 5.82 -> 4.83 ms, 256 -> 256 28 -> 14 5.27 -> 4.36, 256 -> 512 14 -> 7 2.42 -> 2.38; 128 ->
/// 128 56 -> 28, 74 KiB a half, lost with chunks: 4.03 -> 4.39).
constexpr int64_t kCvFlatChunkBytes = 32 << 10, kCvFlatWholeBytes = 96 << 10;
constexpr int64_t cv_flat_chunk(const ConvParams &p) {
  const int64_t per_c = p.w.k_size() * (kCvOC / 2) * 4; /* one tap of a half block */
  if (p.C * per_c <= kCvFlatWholeBytes)
    return p.C;
  const int64_t chunks = (p.C * per_c + kCvFlatChunkBytes - 1) / kCvFlatChunkBytes;
  return (p.C + chunks - 1) / chunks;
}
/// Work items per band and item block: one (two halves) or rows x segments.
constexpr int64_t cv_items_per_block(const ConvParams &p, int64_t bands) {
  return cv_item_halves(p) == 2 ? 1 : cv_band_rows(p, bands) * cv_segments(p);
}
/// Elements of W pre-packed for kConvChanVec: per block, kCvOC weights per (channel, tap).
constexpr int64_t conv_cv_packed_w_elems(const ConvParams &p) {
  return conv_channel_blocks_elems(p, kCvOC);
}
/// Packs W for kConvChanVec into dst (conv_cv_packed_w_elems elements).
template <typename T> inline void conv_cv_pack_weights(const ConvParams &p, const T *w, T *dst) {
  conv_pack_channel_blocks(p, kCvOC, w, dst);
}

/* ---- kConvWinograd: F(2x2, 3x3) (Lavin & Gray), Y = A^T [(G g G^T) . (B^T d B)] A per 2x2
   output tile. The 16 products of the transformed domain (xi) are 16 GEMMs: V_xi^T (tiles x C,
   the transformed input, packed A) times U_xi (C x M, the transformed W, packed B at compile
   time), giving tiles x M; the output transform reads them back. ---- */

/// Channels (in and out) below which Winograd does not pay for its transforms.
constexpr int64_t kWinoMinChannels = 8;
/// Input channels below which it does not pay with GEMM tiles under gemm::kMR rows (AVX2,
/// AArch64 NEON): the 16 products have K = C, and their transforms cost more than im2col's
/// product saves. Measured on a Zen 3 (docs/performance.md, session 29), one-node models
/// alternating with ORT: 16 -> 64 channels at 55x55, Winograd 0.46 of ORT's speed, im2col
/// 0.78; 32 -> 128 at 27x27 level within the noise; 64 channels and up, Winograd ahead.
constexpr int64_t kWinoMinInChannelsFewRegs = 32;

/// True when kConvWinograd can run the window: 2-D 3x3, stride 1, dilation 1, one group, enough
/// channels for the node's GEMM tile height (ConvParams::gemm_mr).
constexpr bool conv_wino_supported(const ConvParams &p) {
  const WindowGeom &w = p.w;
  const bool few_regs = conv_few_tile_rows(p);
  return p.G == 1 && w.in[0] == 1 && w.k[0] == 1 && w.k[1] == 3 && w.k[2] == 3 && w.s[1] == 1 &&
         w.s[2] == 1 && w.d[1] == 1 && w.d[2] == 1 &&
         p.C >= (few_regs ? kWinoMinInChannelsFewRegs : kWinoMinChannels) &&
         p.M >= kWinoMinChannels;
}

/// True for both Winograd algorithms (kConvWinograd, kConvWinograd4).
constexpr bool conv_is_wino(const ConvParams &p) {
  return p.algo == kConvWinograd || p.algo == kConvWinograd4;
}
/// The output tile's side m of F(m x m, 3x3): 4 for kConvWinograd4, else 2.
constexpr int64_t wino_m(const ConvParams &p) { return p.algo == kConvWinograd4 ? 4 : 2; }
/// Points of the transformed domain, (m + 2)^2: the products' count (16 or 36).
constexpr int64_t wino_nx(const ConvParams &p) { return (wino_m(p) + 2) * (wino_m(p) + 2); }

/// Output tiles (m x m) along W, tile rows, and tiles in one image.
constexpr int64_t wino_tiles_w(const ConvParams &p) {
  return gemm::ceil_div(p.w.out[2], wino_m(p));
}
constexpr int64_t wino_tile_rows(const ConvParams &p) {
  return gemm::ceil_div(p.w.out[1], wino_m(p));
}
constexpr int64_t wino_tiles(const ConvParams &p) { return wino_tile_rows(p) * wino_tiles_w(p); }

/// The GEMMs' rows: the tiles of every image (so the batch shares one pass over the weights).
constexpr int64_t wino_rows(const ConvParams &p) { return p.N * wino_tiles(p); }

/// Bytes of the wino_nx transformed-weight matrices U_xi (C x M each), unpadded.
constexpr int64_t wino_u_bytes(const ConvParams &p, int64_t elem_bytes) {
  return wino_nx(p) * p.C * p.M * elem_bytes;
}

/// Below this many GEMM rows (tiles of all images), with 8-row GEMM tiles, Winograd is left to
/// im2col when its transformed weights exceed kWinoLargeUBytes.
constexpr int64_t kWinoMinRowsLargeU = 32;
constexpr int64_t kWinoLargeUBytes = int64_t{4} << 20;

/// Whether Winograd should run a conv it supports. Its 16 products stream U (16 C x M matrices,
/// 1.8x W) once per run, each element used by every row (tile); a 7x7 plane has 16 tiles, so
/// ResNet-50's 512-channel layer4 convs (U 16 MB) were bound by reading U, where im2col reads
/// W (9 MB) once and uses each element for 49 pixels. On a Xeon with AVX-512 (2 x 512-bit FMA,
/// docs/performance.md session 33), onnxc profile of resnet50 at 1 thread: 2.6-2.9 ms as
/// Winograd, 2.3-2.4 as im2col. The same on AVX2 (6-row tiles, Zen 3, session 43): three such
/// convs alone 19.2 -> 14.9 ms, resnet18 at 1 thread 56.3 -> 47.9 ms. Kept for small U, which
/// stays in cache.
constexpr bool conv_wino_preferred(const ConvParams &p, int64_t elem_bytes) {
  return wino_rows(p) >= kWinoMinRowsLargeU ||
         wino_u_bytes(p, elem_bytes) <= kWinoLargeUBytes;
}

/// True when the lowering chooses kConvFewChannels for a p it supports: none of the 3x3
/// stride-1 windows Winograd takes from it (kFewWinoMinC) when `winograd` (the lowering may
/// choose it: the pass is on and W constant); otherwise up to kFewAnyC input
/// channels always; with more, on targets with 8-row GEMM tiles (AVX-512: the kernel's 8 x 3
/// accumulators fit its registers), windows of several taps that are strided (the GEMM's
/// im2col then gathers every tap's elements: 128 -> 128 3x3 stride 2 at 56x56 1.39 -> 1.27
/// ms, 64 -> 128 0.75 -> 0.71, session 37) or have at most kFewMaxM output channels.
constexpr bool conv_few_preferred(const ConvParams &p, bool winograd = true) {
  const bool wide_tiles = p.gemm_mr == 0 || p.gemm_mr >= gemm::kMR;
  if (winograd && wide_tiles && p.C >= kFewWinoMinC && p.M >= kFewWinoMinM && conv_wino_supported(p) &&
      conv_wino_preferred(p, 4))
    return false;
  if (p.C <= kFewAnyC)
    return true;
  const bool strided = p.w.s[1] > 1 || p.w.s[2] > 1;
  return wide_tiles && p.w.k_size() > 1 && (strided || p.M <= kFewMaxM);
}

/// True when the lowering chooses kConvChanVec for a p it supports (with constant W): strided
/// windows. With 16 vector registers (AVX2) the tiles are half blocks of at most kCvFewPx
/// pixels (conv.cpp cv_tile_few); one-node models with Relu, 1 thread, Zen 3, against the
/// phase-row path or im2col: 64 -> 128 channels 56 -> 28 2.75 -> 1.84 ms, 128 -> 256 28 -> 14
/// 2.04 -> 1.72, 256 -> 512 14 -> 7 1.91 -> 1.82 (ORT 1.64, 1.67, 1.53); three 512-channel
/// stride-1 convs at 7x7 lost (11.3 -> 14.0 ms: a block's 576 KiB of W exceeds Zen 3's L2).
/// Targets with tiles under 6 rows (SSE, ARMv7 NEON: 16 registers of 4 floats; one vector of
/// 16 floats is 4 registers, so a half-block tile would spill) are not measured and keep the
/// phase-row path or im2col (conv_tiny_regs).
/// Also the stride-1 3x3 convs that Winograd leaves to im2col (a large U over few rows: 512
/// channels at 7x7): im2col's B is 9x the input and, at several threads, one thread packs it
/// and the others read it from that core (a 7x7 plane is one panel of 48 columns and one of
/// 1); here every thread reads the padded input (1.8x). Zen 5, three 512 -> 512 convs at 7x7
/// with Relu, alternating: 1 thread 3.83 -> 3.18 ms, 2 threads 2.06 -> 1.59 (ORT 3.67, 1.85).
/// With 16 registers they lost on row tiles (above) and win on flat tiles in chunks of
/// channels (cv_flat_chunk; session 47, Zen 3, one 512 -> 512 conv at 7x7 with Relu against
/// im2col: 1 thread 5.71 -> 4.47 ms, 2 threads 3.71 -> 2.57; ORT 3.98, 2.14).
constexpr bool conv_cv_preferred(const ConvParams &p) {
  if (conv_tiny_regs(p))
    return false;
  if (p.w.s[1] > 1 || p.w.s[2] > 1)
    return true;
  return conv_wino_supported(p) && !conv_wino_preferred(p, 4);
}

/// Elements of one transformed-input matrix (rows x C, packed A) and one product (rows x M).
constexpr int64_t wino_v_elems(const ConvParams &p) {
  return gemm::packed_a_elems(wino_rows(p), p.C);
}
constexpr int64_t wino_u_elems(const ConvParams &p, int64_t elem_bytes) {
  return gemm::packed_b_elems(p.C, p.M, elem_bytes);
}

/// Distance in elements between consecutive V_xi and between consecutive P_xi in the scratch
/// (`elems` each): rounded up to 4 KiB plus one 64-byte line, so the 16 streams the transforms
/// read and write at once fall into different L1 sets (4 KiB multiples would share one set).
constexpr int64_t wino_stride(int64_t elems, int64_t elem_bytes) {
  const int64_t page = 4096 / elem_bytes;
  return gemm::ceil_div(elems, page) * page + 64 / elem_bytes;
}
/// wino_stride of the V_xi (rows x C, packed A) and of the P_xi (rows x M).
constexpr int64_t wino_v_stride(const ConvParams &p, int64_t elem_bytes) {
  return wino_stride(wino_v_elems(p), elem_bytes);
}
constexpr int64_t wino_p_stride(const ConvParams &p, int64_t elem_bytes) {
  return wino_stride(wino_rows(p) * p.M, elem_bytes);
}

/// Packs W (M x C x 3 x 3) as the wino_nx matrices U_xi (C x M, packed B in sub-panels of
/// conv_b_sub columns): U = G g G^T per (m, c), computed in double, G the (m + 2) x 3 matrix of
/// F(2x2, 3x3) (points 0, 1, -1, infinity) or of F(4x4, 3x3) (0, 1, -1, 2, -2, infinity; Lavin
/// & Gray). dst has wino_nx * wino_u_elems elements.
template <typename T> inline void conv_wino_weights(const ConvParams &p, const T *w, T *dst) {
  constexpr int64_t NR = gemm::panel_width(sizeof(T));
  const double G2[4][3] = {{1, 0, 0}, {.5, .5, .5}, {.5, -.5, .5}, {0, 0, 1}};
  const double G4[6][3] = {{1. / 4, 0, 0},          {-1. / 6, -1. / 6, -1. / 6},
                           {-1. / 6, 1. / 6, -1. / 6}, {1. / 24, 1. / 12, 1. / 6},
                           {1. / 24, -1. / 12, 1. / 6}, {0, 0, 1}};
  const int64_t a = wino_m(p) + 2;
  const double(*G)[3] = a == 6 ? G4 : G2;
  const int64_t ue = wino_u_elems(p, sizeof(T)), sub = conv_b_sub(p, sizeof(T));
  for (int64_t i = 0; i < wino_nx(p) * ue; ++i)
    dst[i] = T(0);
  for (int64_t m = 0; m < p.M; ++m)
    for (int64_t c = 0; c < p.C; ++c) {
      const T *g = w + (m * p.C + c) * 9;
      double t[6][3]; /* G g */
      for (int64_t i = 0; i < a; ++i)
        for (int j = 0; j < 3; ++j)
          t[i][j] = G[i][0] * g[j] + G[i][1] * g[3 + j] + G[i][2] * g[6 + j];
      T *col = dst + gemm::packed_b_col(p.C, NR, sub, m) + c * sub;
      for (int64_t i = 0; i < a; ++i)
        for (int64_t j = 0; j < a; ++j)
          col[(i * a + j) * ue] = T(t[i][0] * G[j][0] + t[i][1] * G[j][1] + t[i][2] * G[j][2]);
    }
}

/// Packs W (M x C x 3 x 3) as its 9 taps W_ij (C x M each, packed B exactly like U_xi, so that
/// an element of one is the same (c, m) in all): the weights of the run-time U path
/// (wino_run_time_u). dst has 9 * wino_u_elems elements.
template <typename T> inline void conv_wino_tap_weights(const ConvParams &p, const T *w, T *dst) {
  constexpr int64_t NR = gemm::panel_width(sizeof(T));
  const int64_t ue = wino_u_elems(p, sizeof(T)), sub = conv_b_sub(p, sizeof(T));
  for (int64_t i = 0; i < 9 * ue; ++i)
    dst[i] = T(0);
  for (int64_t m = 0; m < p.M; ++m)
    for (int64_t c = 0; c < p.C; ++c) {
      T *col = dst + gemm::packed_b_col(p.C, NR, sub, m) + c * sub;
      for (int k = 0; k < 9; ++k)
        col[k * ue] = w[(m * p.C + c) * 9 + k];
    }
}

/* Large planes run blocked (wino_blocked): the tiles go in blocks of whole tile rows of one
   image, each through all three phases while its transformed input and products stay in L2; a
   block's scratch belongs to one of at most kWinoLanes lanes, each lane runs its blocks in turn
   (lane l of L: the consecutive blocks [l B / L, (l + 1) B / L)). The unblocked path passes
   16 x tiles x (C + M) elements through memory, which for large planes costs more than the
   products. */
constexpr int64_t kWinoLanes = 8;
constexpr int64_t kWinoBlockBytes = 256 * 1024;           ///< a block's V and P, at most (about)
constexpr int64_t kWinoBlockedMinBytes = 8 * 1024 * 1024; ///< per image: blocked above this
/// ... or above this when U is at most kWinoBlockedSmallUBytes: every block reads all of U, which
/// then stays in L2. ResNet-50's 64-channel 56x56 convs (6.4 MB of V and P per image, U 256 KB)
/// in the model on a Xeon with AVX-512, 1 thread (`onnxc profile`): 1.9-2.4 -> 1.2-1.6 ms; the
/// 128-channel 28x28 ones (3.2 MB, U 1 MB) were slower blocked (1.1-1.4 -> 1.3-1.5 ms). 640 KiB
/// takes F(4x4, 3x3)'s U of those 64-channel convs (576 KiB) too: blocked, as fast as unblocked
/// at batch 1 (1 thread, Zen 4: 1.25 against 1.29 ms) and with no scratch for the whole batch.
constexpr int64_t kWinoBlockedSmallUMinBytes = 2 * 1024 * 1024;
constexpr int64_t kWinoBlockedSmallUBytes = 640 * 1024;

/// True when kConvWinograd runs blocked: the unblocked scratch of one image exceeds
/// kWinoBlockedMinBytes, or kWinoBlockedSmallUMinBytes with a small U (per image, so a
/// run-time batch does not change the choice).
constexpr bool wino_blocked(const ConvParams &p, int64_t elem_bytes) {
  const int64_t scratch = wino_nx(p) * wino_tiles(p) * (p.C + p.M) * elem_bytes;
  return scratch > kWinoBlockedMinBytes || (scratch > kWinoBlockedSmallUMinBytes &&
                                            wino_u_bytes(p, elem_bytes) <= kWinoBlockedSmallUBytes);
}

/// From these bytes of U (16 C x M) on, an unblocked Winograd conv keeps W, not U, in the weights
/// and makes each panel of U_xi from W's 9 taps just before its product (wino_run_time_u):
/// U is 16/9 of W, and at batch 4 ResNet-50's stride-1 3x3 convs of 512 channels (two, U 16 MiB
/// each) and of 256 (five, 4 MiB) held 25 MB of its 156 MiB peak RSS (docs/performance.md,
/// session 36). A panel of U_xi costs
/// 1 to 9 additions per element (64 over the 16 xi) against 2 x rows FLOPs of its product, and
/// the products read 9 values of W per (c, m) from memory instead of 16 of U.
constexpr int64_t kWinoRunTimeUBytes = int64_t{4} << 20;

/// True when a Winograd conv makes U at run time from W's taps (conv_wino_tap_weights): W
/// pre-packed (a constant), unblocked, and U of kWinoRunTimeUBytes or more.
/// F(4x4, 3x3) makes U at run time from this many GEMM rows on, whatever its size: its 36
/// panels of U from the taps (126-196 FMAs per (c, m) against 72 per row in the products) cost
/// 7% of the conv at 196 rows (64 channels at 56x56: 1.31 -> 1.40 ms) and 24% at 49 (128
/// channels at 28x28: 1.15 -> 1.43, F(2x2, 3x3)'s time), and the weights it stores are then W
/// (9 values per (c, m)), less than F(2x2, 3x3)'s stored U (16).
constexpr int64_t kWino4RunTimeURows = 128;
constexpr bool wino_run_time_u(const ConvParams &p, int64_t elem_bytes) {
  if (p.algo == kConvWinograd4)
    return p.w_packed != 0 && !wino_blocked(p, elem_bytes) && wino_rows(p) >= kWino4RunTimeURows;
  return p.algo == kConvWinograd && p.w_packed != 0 && !wino_blocked(p, elem_bytes) &&
         wino_u_bytes(p, elem_bytes) >= kWinoRunTimeUBytes;
}

/// Winograd F(4x4, 3x3) (kConvWinograd4) instead of F(2x2, 3x3) for a conv that Winograd
/// runs: at least kWino4MinRows GEMM rows (4x4 tiles of all images), and U made at run
/// time (wino_run_time_u) or, stored, at most kWino4StoredUBytes: U is 36/16 of F(2x2, 3x3)'s,
/// and a U-Net's peak RSS (half of ORT's) had no room for its 32x32 convs' (2.4 MB each). One-
/// node models, 1 thread, AMD EPYC (Zen 4): 64 -> 64 channels at 56x56 1.72 -> 1.40 ms (U at
/// run time), 32 -> 48 at 27x25 0.197 -> 0.184 (stored); 128 -> 128 at 28x28 1.45 -> 1.15
/// with U stored (2.4 MB), not taken. On AVX2 (6-row GEMM tiles, Zen 3), alternating: three
/// 64 -> 64 convs at 56x56 7.6-7.9 against 8.8-9.4 ms; resnet18 -3% / -10% at 1 / 2 threads,
/// unet_style -21% / -6%. Not chosen for tiles under 6 rows (conv_tiny_regs: not measured).
constexpr int64_t kWino4MinRows = 32;
constexpr int64_t kWino4StoredUBytes = int64_t{1} << 20;
constexpr bool conv_wino4_preferred(const ConvParams &p, int64_t elem_bytes) {
  ConvParams q = p;
  q.algo = kConvWinograd4;
  q.w_packed = 1; /* Winograd stores W transformed or as its taps */
  return !conv_tiny_regs(p) && wino_rows(q) >= kWino4MinRows &&
         (wino_run_time_u(q, elem_bytes) || wino_u_bytes(q, elem_bytes) <= kWino4StoredUBytes);
}

/// The run-time U path's work: items (panel of U's NR columns, xi) in panel-major order, run
/// by lanes (at most kWinoLanes), each with one panel of U (C x NR) of scratch.
constexpr int64_t wino_rt_items(const ConvParams &p, int64_t elem_bytes) {
  return wino_nx(p) * gemm::ceil_div(p.M, gemm::panel_width(elem_bytes));
}
constexpr int64_t wino_rt_lanes(const ConvParams &p, int64_t elem_bytes) {
  return wino_rt_items(p, elem_bytes) < kWinoLanes ? wino_rt_items(p, elem_bytes) : kWinoLanes;
}
constexpr int64_t wino_rt_panel_elems(const ConvParams &p, int64_t elem_bytes) {
  return (p.C > 0 ? p.C : 1) * gemm::panel_width(elem_bytes);
}

/// The blocked path's geometry: tile rows per block, tiles per block (GEMM rows), V and P
/// strides within a lane, a lane's elements, blocks (all images) and lanes.
struct WinoBlocks {
  int64_t tile_rows, tiles, v_stride, p_stride, lane_elems, blocks, lanes;
};
constexpr WinoBlocks wino_blocks(const ConvParams &p, int64_t elem_bytes) {
  WinoBlocks b{};
  const int64_t tw = wino_tiles_w(p), th = wino_tile_rows(p);
  const int64_t row_bytes = wino_nx(p) * tw * (p.C + p.M) * elem_bytes;
  b.tile_rows = row_bytes > 0 ? kWinoBlockBytes / row_bytes : 1;
  b.tile_rows = b.tile_rows < 1 ? 1 : (b.tile_rows > th ? th : b.tile_rows);
  b.tiles = b.tile_rows * tw;
  b.v_stride = wino_stride(gemm::packed_a_elems(b.tiles, p.C), elem_bytes);
  b.p_stride = wino_stride(b.tiles * p.M, elem_bytes);
  b.lane_elems = wino_nx(p) * (b.v_stride + b.p_stride);
  b.blocks = p.N * (b.tile_rows > 0 ? gemm::ceil_div(th, b.tile_rows) : 0);
  b.lanes = b.blocks < kWinoLanes ? b.blocks : kWinoLanes;
  return b;
}

/// Scratch bytes: every group's packed K x (output plane) matrix of one image, or of
/// conv_gemm_images (GEMM algos), so that all groups are packed and multiplied in one parallel
/// loop; for kConvFewChannels one image's phase rows; for kConvDirect one zero-padded block of
/// input rows per work item (image, channel, block of output rows); for
/// Winograd the wino_nx transformed inputs and products of all images, or (blocked) of one
/// block per lane.
constexpr int64_t conv_gemm_scratch_bytes(const ConvParams &p, int64_t elem_bytes);

/// has_in_scale: elements of the scaled W (packed per group when w_packed, else M x C as
/// given), and where they start in the scratch (after the algorithm's own, 64-byte aligned).
constexpr int64_t conv_in_scale_w_elems(const ConvParams &p) {
  return p.w_packed != 0 ? conv_packed_w_elems(p) : p.M * conv_gemm_k(p);
}
constexpr int64_t conv_in_scale_offset(const ConvParams &p, int64_t elem_bytes) {
  return (conv_gemm_scratch_bytes(p, elem_bytes) + 63) / 64 * 64;
}

/// Scratch bytes: conv_gemm_scratch_bytes, and the scaled W when has_in_scale.
constexpr int64_t conv_scratch_bytes(const ConvParams &p, int64_t elem_bytes) {
  if (p.has_in_scale == 0)
    return conv_gemm_scratch_bytes(p, elem_bytes);
  return conv_in_scale_offset(p, elem_bytes) + conv_in_scale_w_elems(p) * elem_bytes;
}

/// The algorithm's scratch bytes (see conv_scratch_bytes).
constexpr int64_t conv_gemm_scratch_bytes(const ConvParams &p, int64_t elem_bytes) {
  if (p.algo == kConvDwChannels)
    return dwc_lanes(p, elem_bytes) * dwc_lane_elems(p, elem_bytes) * elem_bytes;
  if (p.algo == kConvFewChannels)
    return few_scratch_elems(p) * elem_bytes;
  if (p.algo == kConvChanVec)
    return cv_scratch_elems(p) * elem_bytes;
  if (p.algo == kConvDirect) {
    const int64_t items = p.N * p.M * conv_dw_splits(p);
    return items * conv_dw_item_rows(p) * conv_dw_row_elems(p, elem_bytes) * elem_bytes;
  }
  if (conv_is_wino(p) && wino_blocked(p, elem_bytes)) { /* one block per lane */
    const WinoBlocks b = wino_blocks(p, elem_bytes);
    return b.lanes * b.lane_elems * elem_bytes;
  }
  if (conv_is_wino(p)) /* the wino_nx transformed inputs and products */
    return (wino_nx(p) * (wino_v_stride(p, elem_bytes) + wino_p_stride(p, elem_bytes)) +
            (wino_run_time_u(p, elem_bytes) /* and a panel of U per lane */
                 ? wino_rt_lanes(p, elem_bytes) * wino_rt_panel_elems(p, elem_bytes)
                 : 0)) *
           elem_bytes;
  return conv_gemm_images(p, elem_bytes) * p.G * conv_group_cols_elems(p, elem_bytes) * elem_bytes;
}

} // namespace onnxc_k

#endif
