#!/usr/bin/env python3
"""Writes the GEMM / convolution kernel test models: OUT_DIR/<case>/{model.onnx, test_data_set_0/}.

Each case is one Conv, Gemm or MatMul whose shape exercises a path of the CPU GEMM kernels
(templates/cpu/nn_gemm.h, conv.cpp, matmul.cpp): tile and panel remainders, groups, strides,
dilations, padding, 1-D/3-D windows, double, batched and transposed products, weights that are
graph inputs (never pre-packed). output_0.pb is a float64 numpy reference computed here,
independently of onnxc.

  make_cases.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto
import itertools

RNG = np.random.default_rng(11)


def conv_ref(x, w, b, strides=None, pads=None, dilations=None, group=1):
    """N-D convolution (N, C, spatial...) by kernel taps, in float64."""
    sp = x.ndim - 2
    strides, dilations = strides or [1] * sp, dilations or [1] * sp
    pads = pads or [0] * (2 * sp)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[d], pads[d + sp]) for d in range(sp)])
    ks = w.shape[2:]
    out = [(xp.shape[2 + d] - (ks[d] - 1) * dilations[d] - 1) // strides[d] + 1 for d in range(sp)]
    m, cg = w.shape[0], w.shape[1]
    mg = m // group
    y = np.zeros([x.shape[0], m] + out)
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        for tap in itertools.product(*[range(k) for k in ks]):
            sl = tuple(slice(tap[d] * dilations[d], tap[d] * dilations[d] + strides[d] * out[d],
                             strides[d]) for d in range(sp))
            patch = xs[(slice(None), slice(None)) + sl]
            wt = w[(slice(g * mg, (g + 1) * mg), slice(None)) + tuple(tap)]
            y[:, g * mg:(g + 1) * mg] += np.tensordot(patch, wt, axes=([1], [1])).transpose(
                [0, sp + 1] + list(range(1, sp + 1)))
    if b is not None:
        y += b.reshape([1, -1] + [1] * sp)
    return y


def conv_transpose_ref(x, w, b, strides, pads, dilations, group=1):
    """2-D ConvTranspose: every input pixel's taps added at i*stride - pad + k*dilation."""
    n, c, ih, iw = x.shape
    cg, mg, kh, kw = c // group, w.shape[1], w.shape[2], w.shape[3]
    oh = (ih - 1) * strides[0] - pads[0] - pads[2] + (kh - 1) * dilations[0] + 1
    ow = (iw - 1) * strides[1] - pads[1] - pads[3] + (kw - 1) * dilations[1] + 1
    y = np.zeros([n, mg * group, oh, ow])
    for g in range(group):
        for ci in range(g * cg, (g + 1) * cg):
            for a, bb in itertools.product(range(kh), range(kw)):
                for i, j in itertools.product(range(ih), range(iw)):
                    r = i * strides[0] - pads[0] + a * dilations[0]
                    q = j * strides[1] - pads[1] + bb * dilations[1]
                    if 0 <= r < oh and 0 <= q < ow:
                        y[:, g * mg:(g + 1) * mg, r, q] += x[:, ci, i, j, None] * w[ci, :, a, bb]
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def reference(op, vals, attrs):
    """float64 numpy value of the node's output."""
    v = [None if a is None else a.astype(np.float64) for a in vals]
    if op == "ConvTranspose":
        return conv_transpose_ref(v[0], v[1], v[2], attrs.get("strides", [1, 1]),
                                  attrs.get("pads", [0, 0, 0, 0]), attrs.get("dilations", [1, 1]),
                                  attrs.get("group", 1))
    if op == "Conv":
        return conv_ref(v[0], v[1], v[2], attrs.get("strides"), attrs.get("pads"),
                        attrs.get("dilations"), attrs.get("group", 1))
    if op == "MatMul":
        return v[0] @ v[1]
    a = v[0].T if attrs.get("transA") else v[0]
    b = v[1].T if attrs.get("transB") else v[1]
    y = attrs.get("alpha", 1.0) * (a @ b)
    return y if v[2] is None else y + attrs.get("beta", 1.0) * v[2]


# Activations after the node, fused into it by fuse-activation: (ONNX nodes on "c" giving "y",
# numpy reference). The kernels apply them in registers (full vectors) or per element.
def _sigmoid(y):
    return 1 / (1 + np.exp(-y))


ACTS = {
    "Relu": ([("Relu", ["c"], {})], lambda y: np.maximum(y, 0)),
    "Clip": ([("Clip", ["c", "lo", "hi"], {})], lambda y: np.clip(y, 0, 6)),
    "LeakyRelu": ([("LeakyRelu", ["c"], {"alpha": 0.2})], lambda y: np.where(y >= 0, y, 0.2 * y)),
    "Sigmoid": ([("Sigmoid", ["c"], {})], _sigmoid),
    "HardSigmoid": ([("HardSigmoid", ["c"], {"alpha": 0.3, "beta": 0.4})],
                    lambda y: np.clip(0.3 * y + 0.4, 0, 1)),
    "HardSwish": ([("HardSwish", ["c"], {})], lambda y: y * np.clip(y / 6 + 0.5, 0, 1)),
    "SiLU": ([("Sigmoid", ["c"], {}, "s"), ("Mul", ["c", "s"], {})], lambda y: y * _sigmoid(y)),
}


def conv(x, w, bias=True, dt=np.float32, w_input=False, relu=False, act=None, **attrs):
    """A Conv case; relu=True (or act=NAME of ACTS) adds that activation after it."""
    if relu or act:
        attrs["_act"] = act or "Relu"
    return ("Conv", [x, w, [w[0]] if bias else None], attrs, dt, w_input)


def conv_transpose(x, w, bias=True, dt=np.float32, **attrs):
    """A ConvTranspose case (W: C x M/group x kH x kW): a GEMM per image and group, then
    col2im."""
    return ("ConvTranspose", [x, w, [w[1] * attrs.get("group", 1)] if bias else None], attrs, dt,
            False)


def gemm(a, b, c=None, dt=np.float32, act=None, **attrs):
    if act:
        attrs["_act"] = act
    return ("Gemm", [a, b, c], attrs, dt, False)


def matmul(a, b, dt=np.float32):
    return ("MatMul", [a, b, None], {}, dt, False)


CASES = {
    # 3x3 pad 1: M not a multiple of the tile rows, spatial size not a multiple of the panel.
    "conv3x3_m13": conv([1, 8, 9, 11], [13, 8, 3, 3], pads=[1, 1, 1, 1]),
    "conv3x3_stride2": conv([2, 16, 15, 15], [24, 16, 3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    # stride 2 with output rows of 50 and 31 columns: im2col gathers runs of more than one
    # vector with vector shuffles (put_stride2), with the scalar tail and panel boundaries
    "conv3x3_stride2_wide": conv([1, 3, 9, 100], [8, 3, 3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    "conv5x5_stride2_wide": conv([2, 4, 7, 61], [6, 4, 5, 5], strides=[2, 2], pads=[2, 1, 2, 1]),
    "conv3x3_big_k": conv([1, 64, 10, 10], [20, 64, 3, 3], pads=[1, 1, 1, 1]),  # K > KC
    "conv_dilated_asym": conv([1, 5, 12, 10], [7, 5, 3, 2], dilations=[2, 3], pads=[1, 0, 2, 1]),
    "conv_grouped": conv([1, 12, 8, 8], [18, 4, 3, 3], group=3, pads=[1, 1, 1, 1]),
    "conv_pointwise": conv([1, 32, 7, 7], [50, 32, 1, 1], bias=False),
    "conv_pointwise_stride2": conv([1, 16, 9, 9], [8, 16, 1, 1], strides=[2, 2]),
    "conv7x7_stem": conv([1, 3, 32, 32], [16, 3, 7, 7], strides=[2, 2], pads=[3, 3, 3, 3]),
    # Few input channels, direct on stride-phase rows (kConvFewChannels: float, one group, C <= 16,
    # output rows of >= 16 pixels): ResNet's stem with Relu (rows of 40 pixels: a partial
    # 3-vector block); stride 1 with a partial channel block
    # (13 = 8 + 5) and a 37-pixel row (a 3-vector block, 5 lanes of its last); stride 3 with
    # asymmetric pads, batch 2, no bias and SiLU (applied per band); one channel, 1-D; stride 2
    # and 4 channels with HardSwish; W as an input (gathered per block by the kernel).
    "few_stem7x7_relu": conv([1, 3, 80, 80], [16, 3, 7, 7], strides=[2, 2], pads=[3, 3, 3, 3],
                             relu=True),
    "few_s1_m13_w37": conv([1, 2, 9, 37], [13, 2, 3, 3], pads=[1, 1, 1, 1]),
    "few_s3_asym_batch_silu": conv([2, 3, 20, 70], [9, 3, 5, 4], strides=[3, 3],
                                   pads=[2, 0, 1, 3], bias=False, act="SiLU"),
    "few_1d_one_channel": conv([2, 1, 100], [8, 1, 9], pads=[4, 4], act="Clip"),
    # one input channel in 2-D (a grayscale stem, mnist's first conv): the few-channel path,
    # not depthwise planes (which --disable-pass=few-channels gives)
    "few_one_channel_5x5_batch_silu": conv([2, 1, 28, 29], [16, 1, 5, 5], pads=[2, 2, 2, 2],
                                           act="SiLU"),
    "few_c4_stride2_hardswish": conv([1, 4, 33, 67], [24, 4, 3, 3], strides=[2, 2],
                                     pads=[1, 1, 1, 1], act="HardSwish"),
    "few_w_input": conv([1, 3, 12, 40], [10, 3, 3, 3], w_input=True, pads=[1, 1, 1, 1]),
    # up to kFewMaxC = 16 input channels, taken before Winograd (16 -> 24 channels, 3x3 stride
    # 1), with stride 2 and a batch, and a 4x5 window of 240 taps; 16 -> 32 3x3 stride 1 is
    # Winograd's (kFewWinoMinM; the direct path with --disable-pass=winograd and on AVX2 tiles)
    "few_c16_3x3_relu": conv([1, 16, 30, 41], [24, 16, 3, 3], pads=[1, 1, 1, 1], relu=True),
    "few_c16_m32_wino_relu": conv([1, 16, 30, 41], [32, 16, 3, 3], pads=[1, 1, 1, 1],
                                  relu=True),
    "few_c8_stride2_batch_silu": conv([2, 8, 37, 50], [20, 8, 3, 3], strides=[2, 2],
                                      pads=[1, 1, 1, 1], act="SiLU"),
    "few_c12_4x5_clip": conv([1, 12, 20, 60], [9, 12, 4, 5], pads=[1, 2, 2, 2], act="Clip"),
    # more input channels with pre-packed W (conv_few_preferred, AVX-512 tiles): under 32
    # output channels at stride 1 (instead of Winograd; 20 = 8 + 8 + 4 with 864 taps), strided
    # windows with any (a batch, 40 channels; 128 channels, 1152 taps: kFewMaxTaps, Clip);
    # W as an input with 360 taps (over kFewGatherTaps: Winograd or im2col instead)
    "few_c32_m24_3x3_silu": conv([1, 32, 20, 37], [24, 32, 3, 3], pads=[1, 1, 1, 1], act="SiLU"),
    "few_c96_m20_3x3_relu": conv([1, 96, 12, 40], [20, 96, 3, 3], pads=[1, 1, 1, 1], relu=True),
    "few_c64_stride2_batch": conv([2, 64, 33, 40], [40, 64, 3, 3], strides=[2, 2],
                                  pads=[1, 1, 1, 1]),
    "few_c128_stride2_clip": conv([1, 128, 34, 66], [16, 128, 3, 3], strides=[2, 2],
                                  pads=[1, 1, 1, 1], act="Clip"),
    # strided windows from 17-512 channels on output-channel vectors (kConvChanVec, W
    # pre-packed): a partial last segment (15 = 14 + 1), a partial channel block (40 = 32 + 8)
    # with a batch and SiLU (applied per tile), rows of 6 pixels (the 7-pixel tile) with
    # asymmetric pads and Clip, 5x5 stride 3 without bias, 1-D; also with chan-vec off
    "cv_s2_c128_relu": conv([1, 128, 28, 30], [64, 128, 3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                            relu=True),
    "cv_s2_m40_batch_silu": conv([2, 40, 15, 15], [40, 40, 3, 3], strides=[2, 2],
                                 pads=[1, 1, 1, 1], act="SiLU"),
    "cv_s2_w7_clip": conv([1, 64, 14, 13], [32, 64, 3, 3], strides=[2, 2], pads=[1, 0, 1, 1],
                          act="Clip"),
    "cv_s3_5x5_nobias": conv([1, 24, 20, 40], [32, 24, 5, 5], strides=[3, 3], pads=[2, 2, 2, 2],
                             bias=False),
    "cv_1d_s2": conv([1, 32, 50], [48, 32, 3], strides=[2], pads=[1, 1]),
    # more than 256 input channels (kCvMaxC 512): 2880 taps, one band (more W than input)
    "cv_s2_c320_relu": conv([1, 320, 9, 9], [48, 320, 3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                            relu=True),
    # 16-register targets (AVX2): a half block's weights over kCvFlatWholeBytes, so the flat
    # tiles (6 pixels across output rows) run in 4 chunks of 48 channels, SiLU after the last;
    # a batch; 9 x 5 outputs (the last tile of 3 pixels)
    "cv_flat_chunks_batch_silu": conv([2, 192, 17, 10], [40, 192, 3, 3], strides=[2, 2],
                                      pads=[1, 1, 1, 1], act="SiLU"),
    # more input than W: at 2 threads the output rows in two bands (conv_params.h cv_bands), the
    # padded rows split the same way; 13 rows (bands of 7 and 6), 27 padded rows (14 and 13, the
    # last one the input's, no bottom pad), a partial channel block, a batch, SiLU per tile
    # (cv_s2_c128_relu: two bands of 7 rows; cv_s3_5x5_nobias: 7 rows, bands of 4 and 3)
    "cv_bands_batch_silu": conv([2, 48, 26, 22], [40, 48, 3, 3], strides=[2, 2],
                                pads=[1, 1, 0, 1], act="SiLU"),
    # a padded plane of 65 x 73 (over kCvPrefetchPlane: the next channel's rows requested), in
    # bands of 16 rows at 2 threads
    "cv_bands_big_plane": conv([1, 24, 64, 64], [32, 24, 3, 3], strides=[2, 2],
                               pads=[1, 1, 1, 1], relu=True),
    # regression: a left padding wider than the padded row (28 columns, stride 4, one input
    # column) once wrote past each row of the scratch
    "cv_wide_left_pad": conv([1, 32, 9, 1], [32, 32, 3, 3], strides=[2, 4], pads=[1, 28, 1, 0]),
    "few_c40_w_input_big_k": conv([1, 40, 10, 36], [16, 40, 3, 3], w_input=True,
                                  pads=[1, 1, 1, 1]),
    "conv1d": conv([2, 6, 40], [9, 6, 5], pads=[2, 2]),
    "conv3d": conv([1, 4, 5, 6, 7], [5, 4, 3, 3, 3], pads=[1, 1, 1, 1, 1, 1]),
    "conv_double": conv([1, 6, 10, 10], [11, 6, 3, 3], dt=np.float64, pads=[1, 1, 1, 1]),
    "conv_w_input": conv([1, 8, 6, 6], [10, 8, 3, 3], w_input=True, pads=[1, 1, 1, 1]),
    # depthwise (group == C): vector rows, edge columns, strides 1/2/3, multiplier, dilation
    "dw3x3": conv([1, 32, 19, 21], [32, 1, 3, 3], group=32, pads=[1, 1, 1, 1]),
    "dw3x3_stride2": conv([2, 24, 23, 37], [24, 1, 3, 3], group=24, strides=[2, 2],
                          pads=[1, 1, 1, 1]),
    "dw5x5_wide": conv([1, 8, 9, 70], [8, 1, 5, 5], group=8, pads=[2, 2, 2, 2]),
    "dw5x5_stride2_wide": conv([1, 5, 11, 150], [5, 1, 5, 5], group=5, strides=[2, 2],
                               pads=[2, 2, 2, 2]),
    "dw_multiplier_dilated": conv([1, 6, 11, 40], [12, 1, 3, 3], group=6, dilations=[2, 2],
                                  pads=[2, 1, 2, 1]),
    "dw_narrow": conv([1, 10, 7, 7], [10, 1, 3, 3], group=10, pads=[1, 1, 1, 1], bias=False),
    "dw_stride3_asym": conv([1, 5, 13, 60], [5, 1, 3, 3], group=5, strides=[3, 3],
                            pads=[0, 1, 2, 0]),
    "dw_no_pad": conv([1, 3, 8, 35], [3, 1, 3, 3], group=3),
    "dw1d": conv([2, 7, 50], [7, 1, 5], group=7, pads=[2, 2]),
    "dw3d": conv([1, 4, 5, 6, 20], [4, 1, 3, 3, 3], group=4, pads=[1, 1, 1, 1, 1, 1]),  # im2col
    "dw3d_flat": conv([1, 4, 1, 6, 20], [4, 1, 1, 3, 3], group=4, pads=[0, 1, 1, 0, 1, 1]),
    "dw_relu_few_planes": conv([1, 2, 40, 37], [2, 1, 3, 3], group=2, pads=[1, 1, 1, 1],
                               relu=True),  # rows split across work items
    "dw_relu_stride2": conv([1, 16, 14, 14], [16, 1, 3, 3], group=16, strides=[2, 2],
                            pads=[0, 0, 1, 1], relu=True),
    "dw_double": conv([1, 6, 8, 30], [6, 1, 3, 3], group=6, dt=np.float64, strides=[2, 2],
                      pads=[1, 1, 1, 1]),
    "dw_w_input": conv([1, 9, 10, 18], [9, 1, 3, 3], group=9, w_input=True, pads=[1, 1, 1, 1]),
    # grouped (not depthwise) and pointwise through the split and the fused GEMM paths
    "conv_grouped_many": conv([1, 64, 14, 14], [64, 8, 3, 3], group=8, pads=[1, 1, 1, 1]),
    "conv_grouped_fused": conv([1, 16, 40, 40], [32, 4, 3, 3], group=4, pads=[1, 1, 1, 1]),
    "conv_pointwise_fused": conv([1, 24, 40, 40], [40, 24, 1, 1]),
    "conv_pointwise_batch": conv([3, 20, 6, 5], [17, 20, 1, 1]),
    # read in place with rows that are not 64-byte multiples (conv_b_in_place: at most 64
    # output channels with 8-row tiles), the last partial panel packed
    "pw_in_place_unaligned_55": conv([1, 128, 55, 55], [16, 128, 1, 1], relu=True),
    "pw_in_place_unaligned_batch": conv([2, 96, 14, 14], [64, 96, 1, 1]),
    "pw_in_place_unaligned_double": conv([1, 40, 11, 13], [24, 40, 1, 1], dt=np.float64),
    # The few-columns schedule packs several images' B at once (conv_gemm_images, at most
    # kConvBatchScratchBytes): K = 3200 on a 14x14 plane is 3 MB per image in float, so 3
    # images run as 2 + 1; in double (5.5 MB) one at a time.
    "conv_batch_chunks": conv([3, 128, 14, 14], [8, 128, 5, 5], pads=[2, 2, 2, 2], relu=True),
    "conv_batch_chunks_double": conv([3, 128, 14, 14], [8, 128, 5, 5], pads=[2, 2, 2, 2],
                                     dt=np.float64),
    # fused activations, applied in registers on full-width GEMM tiles (N = 1600 columns: whole
    # panels and a remainder) and on depthwise rows narrower than a vector (W 7 and 14: a row's
    # vector spills into the rows after it within a work item, never past the item's last row)
    "conv_pointwise_clip": conv([1, 24, 40, 40], [40, 24, 1, 1], act="Clip"),
    "conv_pointwise_leaky": conv([1, 24, 40, 40], [40, 24, 1, 1], act="LeakyRelu"),
    "conv_pointwise_sigmoid": conv([1, 24, 40, 40], [40, 24, 1, 1], act="Sigmoid"),
    "conv_pointwise_hardsigmoid": conv([1, 24, 40, 40], [40, 24, 1, 1], act="HardSigmoid"),
    "conv_pointwise_hardswish": conv([1, 24, 40, 40], [40, 24, 1, 1], act="HardSwish"),
    "conv_pointwise_silu": conv([1, 24, 40, 40], [40, 24, 1, 1], act="SiLU"),
    "gemm_bias_silu": gemm([70, 100], [100, 96], [96], act="SiLU"),
    "dw_silu_w7": conv([1, 12, 7, 7], [12, 1, 3, 3], group=12, pads=[1, 1, 1, 1], act="SiLU"),
    "dw_clip_w14": conv([1, 20, 14, 14], [20, 1, 3, 3], group=20, pads=[1, 1, 1, 1], act="Clip"),
    "dw_hardswish_w5_stride2": conv([2, 3, 9, 10], [3, 1, 5, 5], group=3, strides=[2, 2],
                                    pads=[2, 2, 2, 2], act="HardSwish"),
    "dw_leaky_w3_few_planes": conv([1, 1, 30, 3], [1, 1, 3, 3], group=1, pads=[1, 1, 1, 1],
                                   act="LeakyRelu"),
    # Several blocks of output rows per work item (kConvDwBlockRows): stride 2 with a partial
    # last block and a transcendental activation (applied per block), stride 1 with three.
    "dw_silu_stride2_blocks": conv([1, 16, 40, 33], [16, 1, 3, 3], group=16, strides=[2, 2],
                                   pads=[1, 1, 1, 1], act="SiLU"),
    "dw_clip_blocks": conv([1, 16, 21, 19], [16, 1, 3, 3], group=16, pads=[1, 1, 1, 1],
                           act="Clip"),
    # Rows narrower than a vector, 4 at a time (each stores a whole vector over the next rows)
    # and one at a time at a block's end: stride 1 with a transcendental activation, stride 2.
    "dw_silu_narrow_rows": conv([1, 16, 29, 9], [16, 1, 3, 3], group=16, pads=[1, 1, 1, 1],
                                act="SiLU"),
    "dw_clip_narrow_stride2": conv([1, 16, 41, 23], [16, 1, 3, 3], group=16, strides=[2, 2],
                                   pads=[1, 1, 1, 1], act="Clip"),
    # Stride-2 input rows split into even and odd columns 16 pairs at a time, the last 16
    # overlapping (dw_split_row): no left padding and an odd width; 2 columns of padding.
    "dw_stride2_split_pad0": conv([1, 8, 9, 67], [8, 1, 3, 3], group=8, strides=[2, 2],
                                  pads=[0, 0, 1, 1]),
    "dw_stride2_split8": conv([1, 20, 28, 28], [20, 1, 3, 3], group=20, strides=[2, 2],
                              pads=[1, 1, 1, 1], act="SiLU"),  # 8 pairs at a time, twice
    "dw_stride2_split_k5": conv([1, 6, 12, 90], [6, 1, 5, 5], group=6, strides=[2, 2],
                                pads=[2, 2, 2, 2], act="Clip"),
    # Depthwise on channel vectors (kConvDwChannels: float, output rows of at most 7 pixels,
    # or of at most 14 but for stride-2 windows narrower than 5): partial channel blocks
    # (37 = 2 x 16 + 5) with a batch; stride 2 at 28 columns (the row path now); stride 2, 5
    # wide at 14 columns; dilation; stride 3 with asymmetric pads; rows of 13 (transposed as
    # one run with a scalar tail); a tall plane in several bands (one block: split for the
    # threads); 1-D; rows of 2 and 3 pixels.
    "dwc_c37_batch_silu": conv([2, 37, 7, 7], [37, 1, 5, 5], group=37, pads=[2, 2, 2, 2],
                               act="SiLU"),
    "dwc_stride2_w28_clip": conv([1, 20, 56, 55], [20, 1, 5, 5], group=20, strides=[2, 2],
                                 pads=[2, 2, 2, 2], act="Clip"),
    "dwc_stride2_w14_k5": conv([1, 20, 28, 27], [20, 1, 5, 5], group=20, strides=[2, 2],
                               pads=[2, 2, 2, 2], act="SiLU"),
    "dwc_dilated": conv([1, 18, 14, 14], [18, 1, 3, 3], group=18, dilations=[2, 2],
                        pads=[2, 2, 2, 2]),
    "dwc_stride3_asym": conv([1, 17, 15, 16], [17, 1, 3, 3], group=17, strides=[3, 3],
                             pads=[0, 1, 2, 0], bias=False),
    "dwc_rows13": conv([1, 16, 13, 13], [16, 1, 3, 3], group=16, pads=[1, 1, 1, 1], relu=True),
    "dwc_tall_bands": conv([1, 16, 200, 12], [16, 1, 5, 5], group=16, pads=[2, 2, 2, 2],
                           act="HardSwish"),
    "dwc_1d": conv([1, 24, 12], [24, 1, 3], group=24, pads=[1, 1]),
    # the last channel block's second half partly there (28 = 16 + 12, 30 = 16 + 14 channels):
    # the 8 x 8 transpositions of conv.cpp dwc_load_pixels / dwc_store_pixels leave its missing
    # lanes zero and store only the channels that exist
    "dwc_c28_halves": conv([1, 28, 14, 14], [28, 1, 3, 3], group=28, pads=[1, 1, 1, 1],
                           act="Clip"),
    # the channel path's choice since session 36 (conv_params.h conv_dwc_preferred): 3x3 stride
    # 2 down to 14 columns, 5x5 windows at up to 28 output columns (stride 2 and 1), with SiLU
    "dwc_3x3_s2_to14_silu": conv([1, 40, 28, 27], [40, 1, 3, 3], group=40, strides=[2, 2],
                                 pads=[1, 1, 1, 1], act="SiLU"),
    "dwc_5x5_s2_to28_silu": conv([1, 24, 56, 55], [24, 1, 5, 5], group=24, strides=[2, 2],
                                 pads=[2, 2, 2, 2], act="SiLU"),
    "dwc_5x5_w27_relu": conv([1, 20, 9, 27], [20, 1, 5, 5], group=20, pads=[2, 2, 2, 2],
                             relu=True),
    "dwc_c30_stride2": conv([1, 30, 14, 14], [30, 1, 3, 3], group=30, strides=[2, 2],
                            pads=[1, 1, 1, 1]),
    "dwc_tiny_rows": conv([1, 33, 6, 3], [33, 1, 3, 2], group=33, pads=[0, 0, 0, 0]),
    "conv_pointwise_grouped": conv([1, 12, 30, 30], [16, 3, 1, 1], group=4),
    # Pointwise B read in place (conv_params.h conv_b_in_place: plane rows a multiple of 64
    # bytes, not of 4096): groups and a batch on the split path (256 columns: 5 panels read in
    # place and a packed remainder); whole panels only (192 columns: no scratch); double; the
    # fused path with a remainder; a 32x32 plane (4096-byte rows) packed.
    "pw_inplace_grouped_batch": conv([2, 12, 16, 16], [16, 3, 1, 1], group=4),
    # Columns past the last whole panel in whole vectors, stored from the accumulators like a
    # panel (nn_gemm.h micro): Winograd with 784 tile columns (16 past 16 panels) and Relu; a
    # pointwise conv with 80 columns (2 vectors past one panel), SiLU, two K blocks.
    "wino_tail_vector_relu": conv([1, 32, 55, 55], [64, 32, 3, 3], pads=[1, 1, 1, 1], relu=True),
    "pw_tail_vectors_silu_bigk": conv([1, 300, 8, 10], [24, 300, 1, 1], act="SiLU"),
    "pw_inplace_whole_panels": conv([1, 8, 12, 16], [20, 8, 1, 1], act="Clip"),
    "pw_inplace_double": conv([1, 10, 8, 16], [12, 10, 1, 1], dt=np.float64),
    "pw_inplace_fused_rest": conv([1, 40, 48, 20], [24, 40, 1, 1], act="SiLU"),
    "pw_aliased_rows_packed": conv([1, 16, 32, 32], [24, 16, 1, 1]),
    # short K: gemm::block runs row tiles outermost (kRowsOuterBytes), over several panels, a
    # 3-column rest (narrow panels with 6-row tiles), two row blocks and 6-row tile tails
    "pw_rows_outer_narrow": conv([2, 16, 23, 21], [70, 16, 1, 1], act="Clip"),
    "pw_rows_outer_inplace": conv([1, 12, 16, 16], [70, 12, 1, 1]),
    # K blocks of at most 128 with one-vector (6-row) tiles: one micro-kernel call covers
    # several column slices (nn_gemm.h kSliceGroupBytes): K 40 (a panel's 3 slices per call, a
    # 36-column rest of 2 whole slices and a narrow 4), K 100 (2 slices per call, a batch, SiLU
    # on the stored rows), double (8-column slices); a 20-column rest packs 2 of 3 sub-panels
    "pw_slice_groups_k40": conv([1, 40, 7, 60], [30, 40, 1, 1], act="Relu"),
    "pw_slice_groups_k100_batch": conv([2, 100, 12, 12], [50, 100, 1, 1], act="SiLU"),
    "pw_slice_groups_double": conv([1, 20, 9, 11], [14, 20, 1, 1], dt=np.float64),
    "pw_rest_two_subpanels": conv([1, 24, 4, 17], [20, 24, 1, 1], bias=False),
    # The last 1..4 columns of a panel by nn_gemm.h micro_narrow (packed A, 8-row tiles): 49,
    # 50, 51, 52 columns (NR 48); K over one K block (300: the later block adds); M not a
    # multiple of 8; bias, activation, a batch; im2col 3x3 on a 7x7 plane; double (NR 24).
    "narrow_cols_1_bigk": conv([1, 300, 7, 7], [13, 300, 1, 1], act="Clip"),
    "narrow_cols_2": conv([2, 24, 5, 10], [20, 24, 1, 1], act="SiLU"),
    "narrow_cols_3_nobias": conv([1, 40, 3, 17], [16, 40, 1, 1], bias=False),
    "narrow_cols_4_im2col": conv([1, 32, 4, 13], [24, 32, 3, 3], pads=[1, 1, 1, 1], strides=[1, 1],
                                 dilations=[1, 1], relu=True),
    "narrow_cols_im2col_7x7": conv([1, 32, 14, 14], [40, 32, 3, 3], pads=[1, 1, 1, 1],
                                   strides=[2, 2]),
    "narrow_cols_double": conv([1, 20, 5, 5], [9, 20, 1, 1], dt=np.float64),
    # im2col of output rows of at most 4 vectors from each channel's padded phase rows
    # (pack_im2col_small): stride 2 with asymmetric pads; 5x5; groups and a batch; double; 1-D
    # stride 3; rows of 2 and 4 vectors (29 and 50 columns); a 7x7 plane from 14x14 with K
    # over KC and 72 rows (the 49th column from narrow_compact's copy)
    "im2col_small_s2_asym": conv([1, 20, 15, 13], [24, 20, 3, 3], strides=[2, 2],
                                 pads=[1, 0, 0, 1], relu=True),
    "im2col_small_5x5": conv([1, 24, 9, 9], [40, 24, 5, 5], pads=[2, 2, 2, 2]),
    "im2col_small_grouped_batch": conv([2, 16, 12, 12], [32, 4, 3, 3], group=4, strides=[2, 2],
                                       pads=[1, 1, 1, 1]),
    "im2col_small_double_s2": conv([1, 6, 10, 10], [5, 6, 3, 3], dt=np.float64, strides=[2, 2],
                                   pads=[1, 1, 1, 1]),
    "im2col_small_1d_s3": conv([1, 6, 30], [9, 6, 4], strides=[3], pads=[1, 2]),
    "im2col_small_w29_1x1_s2": conv([1, 20, 56, 57], [24, 20, 1, 1], strides=[2, 2]),
    "im2col_small_w50_5x5": conv([1, 24, 9, 50], [40, 24, 5, 5], pads=[2, 2, 2, 2], relu=True),
    # regression: a 1 x 3 x 3 window on one depth slice whose only depth tap reads the depth
    # padding (pad 1 at the start, stride 2): zeros, not the slice (the path is 2-D only)
    "im2col_small_depth_pad_3d": conv([1, 4, 1, 6, 7], [5, 4, 1, 3, 3], strides=[2, 1, 1],
                                      pads=[1, 1, 1, 0, 1, 1]),
    "im2col_small_7x7_bigk": conv([1, 100, 14, 14], [72, 100, 3, 3], strides=[2, 2],
                                  pads=[1, 1, 1, 1], act="SiLU"),
    # Winograd F(2x2, 3x3) (3x3 stride 1, constant W): odd output sizes (partial tiles), padding
    # 0/1/asymmetric, batch > 1, more tiles than a row block (kMC), C above the K block (KC), M
    # above a column block (kNC) and not a multiple of the panel, fused Relu, double; C >= 32
    # in every case, so that 6-row GEMM tiles (AVX2) take Winograd too (conv_params.h
    # kWinoMinInChannelsFewRegs). Those with 32 or more 4x4 output tiles and U made at run time
    # or stored under 1 MiB run as F(4x4, 3x3) (conv_params.h conv_wino4_preferred; the row
    # counts in the comments below are F(2x2, 3x3)'s): check_case.py runs every wino case also
    # with --disable-pass=winograd-4x4, the F(2x2, 3x3) form, and with 6-row GEMM tiles
    "wino_odd": conv([1, 32, 13, 11], [20, 32, 3, 3], pads=[1, 1, 1, 1]),
    "wino_asym_pad_batch": conv([2, 32, 10, 9], [24, 32, 3, 3], pads=[0, 1, 2, 0]),
    "wino_no_pad": conv([1, 32, 7, 7], [8, 32, 3, 3], bias=False),
    # 147 GEMM rows: three row blocks of 64; at 2 threads four balanced ones, starting at the
    # tile nearest to a quarter each, the last ending at 147 (not at the nearest tile, 144)
    "wino_balanced_blocks": conv([3, 64, 14, 14], [72, 64, 3, 3], pads=[1, 1, 1, 1], relu=True),
    "wino_big_k": conv([1, 300, 18, 18], [100, 300, 3, 3], pads=[1, 1, 1, 1]),
    # A plane of a few column blocks at 2 threads: each thread packs and multiplies its share of
    # B's panels (conv_params.h conv_panel_shares): 196 columns (5 panels, the last of 4) packed,
    # 192 read in place with a batch, an im2col window (dilated), double (panels of 24)
    "pw_panel_shares": conv([1, 96, 14, 14], [96, 96, 1, 1], relu=True),
    "pw_panel_shares_inplace_batch": conv([3, 40, 12, 16], [24, 40, 1, 1]),
    # read in place (rows of 208 pixels, 832 bytes) with a last partial panel of 16 columns,
    # which only the last share packs; a share of 3 panels
    "pw_panel_shares_inplace_rest": conv([1, 48, 13, 16], [40, 48, 1, 1], relu=True),
    # 576 columns (3 column blocks): shares of 6 panels, each in blocks of at most 192 for
    # im2col's small-plane packing (a 1 x 3 window: neither Winograd nor a direct path)
    "im2col_panel_shares_wide": conv([1, 20, 24, 24], [40, 20, 1, 3], pads=[0, 1, 0, 1]),
    "im2col_panel_shares_dilated": conv([1, 24, 14, 14], [20, 24, 3, 3], pads=[2, 2, 2, 2],
                                        dilations=[2, 2], act="SiLU"),
    "pw_panel_shares_double": conv([1, 20, 10, 20], [9, 20, 1, 1], dt=np.float64),
    "wino_wide_m": conv([1, 32, 20, 21], [200, 32, 3, 3], pads=[1, 1, 1, 1]),
    "wino_relu": conv([1, 32, 9, 15], [40, 32, 3, 3], pads=[1, 1, 1, 1], relu=True),
    "wino_double": conv([1, 32, 6, 7], [9, 32, 3, 3], dt=np.float64, pads=[1, 1, 1, 1]),
    # 16 tiles and a 16 MB U: not Winograd (conv_wino_preferred): output-channel vectors with
    # 8-row GEMM tiles (32 vector registers, conv_cv_preferred), im2col with 6-row ones; the
    # same from 288 channels to 256 over a 6x9 plane (a 4.7 MB U, 15 tiles), a partial segment
    "wino_large_u_7x7": conv([1, 512, 7, 7], [512, 512, 3, 3], pads=[1, 1, 1, 1], relu=True),
    "wino_large_u_cv_6x9": conv([1, 288, 6, 9], [256, 288, 3, 3], pads=[1, 1, 1, 1], act="SiLU"),
    # U over 8 MiB with enough tiles for Winograd: W's taps are stored and U is made per panel
    # at run time (conv_params.h wino_run_time_u): ResNet-50's layer4 at batch 4, a last panel
    # of 16 columns with asymmetric pads and an odd plane, double
    "wino_rt_u_batch": conv([4, 512, 7, 7], [512, 512, 3, 3], pads=[1, 1, 1, 1], relu=True),
    "wino_rt_u_rest_pad": conv([3, 384, 5, 9], [400, 384, 3, 3], pads=[1, 0, 1, 1]),
    "wino_rt_u_double": conv([4, 256, 7, 7], [260, 256, 3, 3], dt=np.float64, pads=[1, 1, 1, 1]),
    # large planes run blocked (conv_params.h wino_blocked: tile rows in blocks, lanes of
    # scratch): blocks that end inside an image, an odd output height and width, a batch
    "wino_blocked": conv([2, 32, 129, 97], [24, 32, 3, 3], pads=[1, 1, 1, 1], relu=True),
    "wino_blocked_double": conv([1, 32, 67, 66], [16, 32, 3, 3], dt=np.float64, pads=[1, 0, 1, 1]),
    # F(4x4, 3x3) (kConvWinograd4, 6x6 input tiles 4 apart) with U stored: output sizes that
    # leave partial tiles of 1-3 rows and columns, asymmetric pads with a batch (tiles of one
    # panel in two images), C above the K block (KC), double, 2 threads splitting 36-60 GEMM
    # rows; with U made at run time from W's taps (128 rows or more, unblocked: conv_params.h
    # wino_run_time_u): a batch, a last panel of U narrower than the others, double
    "wino4_partial_tiles_relu": conv([1, 40, 30, 27], [48, 40, 3, 3], pads=[1, 1, 1, 1],
                                     relu=True),
    "wino4_asym_pad_batch": conv([3, 32, 17, 19], [40, 32, 3, 3], pads=[1, 0, 0, 1]),
    "wino4_big_k": conv([1, 300, 24, 23], [20, 300, 3, 3], pads=[1, 1, 1, 1]),
    "wino4_double": conv([1, 32, 23, 26], [20, 32, 3, 3], dt=np.float64, pads=[1, 1, 1, 1]),
    "wino4_rt_u_batch": conv([2, 32, 30, 34], [40, 32, 3, 3], pads=[1, 1, 1, 1], relu=True),
    "wino4_rt_u_double": conv([1, 48, 47, 45], [50, 48, 3, 3], dt=np.float64, pads=[1, 1, 1, 1]),
    # ConvTranspose: the U-Net up-sampling shape (2x2 stride 2), more columns than a panel,
    # groups with pads, dilations and stride 3, batch 2 without bias, double
    "convt_2x2_s2": conv_transpose([1, 32, 9, 13], [32, 12, 2, 2], strides=[2, 2]),
    "convt_grouped_pads_dil": conv_transpose([1, 6, 7, 11], [6, 5, 3, 3], group=2, strides=[3, 2],
                                             pads=[1, 2, 0, 1], dilations=[2, 1]),
    "convt_batch_no_bias": conv_transpose([2, 8, 10, 6], [8, 7, 3, 3], bias=False,
                                          strides=[1, 1], pads=[1, 1, 1, 1]),
    "convt_double": conv_transpose([1, 5, 6, 7], [5, 9, 4, 4], dt=np.float64, strides=[2, 2],
                                   pads=[1, 1, 1, 1]),
    "gemm_transb": gemm([10, 70], [33, 70], [33], transB=1),
    "gemm_alpha_beta": gemm([17, 20], [20, 40], [17, 40], alpha=0.5, beta=2.0),
    "gemm_small_n": gemm([40, 30], [30, 5], [5]),  # runs transposed: the constant B becomes A
    "gemm_double": gemm([9, 300], [300, 19], [19], dt=np.float64),
    "matmul_batched": matmul([3, 2, 14, 24], [24, 37]),
    "matmul_batched_b": matmul([2, 13, 24], [2, 24, 21]),
    "matmul_vec": matmul([3, 50], [50, 64]),  # small M: B streamed, never packed
    # tile_*: also compiled with every --gemm-tile-rows (check_case.py). Odd M, N and K: row
    # remainders of each tile height, panels of 1, 2 and 3 vectors, K across KC blocks.
    "tile_matmul_65x63x1000": matmul([65, 63], [63, 1000]),
    "tile_matmul_17x300x17": matmul([17, 300], [300, 17]),
    "tile_matmul_5x33x65": matmul([5, 33], [33, 65]),
    "tile_matmul_batched_1000": matmul([2, 1000, 9], [9, 70]),
    "tile_matmul_double": matmul([13, 29], [29, 50], dt=np.float64),
    "tile_gemm_transa": gemm([63, 17], [63, 97], [97], transA=1),
    "tile_gemm_1x1000": gemm([1, 64], [64, 1000], [1000]),
    "tile_gemm_2x100_transb": gemm([2, 100], [70, 100], [70], transB=1),  # small M: dots
    "tile_conv_m17": conv([1, 7, 9, 9], [17, 7, 3, 3], pads=[1, 1, 1, 1]),
    "tile_conv_m63": conv([1, 5, 5, 13], [63, 5, 1, 1]),
    "tile_wino_m50": conv([1, 32, 11, 13], [50, 32, 3, 3], pads=[1, 1, 1, 1]),
    # Packed B in one-vector sub-panels (6-row tiles) and the im2col row buffer: 5x13 = 65
    # output columns (the last slice, 1 column, starts the second sub-panel of a panel: the
    # narrow kernel there), stride-2 runs whose whole vectors would read past the input's end;
    # a packed pointwise B of 50 columns (2 left after a panel: narrow kernels after the row
    # tiles) and K above the K block; dilated im2col over 2100 columns (column blocks that
    # start inside an output row, runs across sub-panel boundaries).
    "tile_conv_rest17_stride2": conv([1, 6, 10, 26], [70, 6, 3, 3], pads=[1, 1, 1, 1],
                                     strides=[2, 2]),
    "tile_conv_pointwise_rest2_bigk": conv([1, 300, 5, 10], [21, 300, 1, 1]),
    "tile_conv_im2col_dilated_wide": conv([1, 5, 30, 70], [20, 5, 3, 3], pads=[2, 2, 2, 2],
                                          dilations=[2, 2], relu=True),
}

ONNX_TYPE = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE}


def build(name, spec, out_dir):
    op, shapes, attrs, dt, w_input = spec
    tt = ONNX_TYPE[dt]
    names = ["x", "w", "b"]
    inputs, inits, feeds, vals = [], [], {}, [None, None, None]
    x = RNG.uniform(-1, 1, shapes[0]).astype(dt)
    inputs.append(helper.make_tensor_value_info("x", tt, shapes[0]))
    feeds["x"] = vals[0] = x
    node_inputs = ["x"]
    for i in (1, 2):
        if shapes[i] is None:
            continue
        v = vals[i] = RNG.uniform(-1, 1, shapes[i]).astype(dt)
        node_inputs.append(names[i])
        if i == 1 and w_input:
            inputs.append(helper.make_tensor_value_info(names[i], tt, shapes[i]))
            feeds[names[i]] = v
        else:
            inits.append(numpy_helper.from_array(v, names[i]))
    attrs = dict(attrs)
    act = attrs.pop("_act", None)
    nodes = [helper.make_node(op, node_inputs, ["c" if act else "y"], **attrs)]
    if act:
        act_nodes, act_ref = ACTS[act]
        for i, (act_op, act_in, act_attrs, *out) in enumerate(act_nodes):
            last = i == len(act_nodes) - 1
            nodes.append(helper.make_node(act_op, act_in, ["y" if last else out[0]], **act_attrs))
        if act == "Clip":
            inits += [numpy_helper.from_array(np.array(v, dtype=dt), n)
                      for n, v in (("lo", 0), ("hi", 6))]
    graph = helper.make_graph(nodes, name, inputs,
                              [helper.make_tensor_value_info("y", tt, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    y = reference(op, vals, attrs)
    if act:
        y = act_ref(y)
    case = os.path.join(out_dir, name)
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(case, "model.onnx"))
    for i, inp in enumerate(inputs):
        t = numpy_helper.from_array(feeds[inp.name], inp.name)
        open(os.path.join(data, f"input_{i}.pb"), "wb").write(t.SerializeToString())
    t = numpy_helper.from_array(np.asarray(y, dtype=dt), "y")
    open(os.path.join(data, "output_0.pb"), "wb").write(t.SerializeToString())


def main(out_dir):
    for name, spec in CASES.items():
        build(name, spec, out_dir)
    print(f"wrote {len(CASES)} cases to {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
