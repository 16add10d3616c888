#!/usr/bin/env python3
"""Writes the thread tests' models: OUT_DIR/<case>/{model.onnx, test_data_set_0/}.

Every case is one or a few ops on tensors large enough that each kernel's parallel loop really
splits its work at 2 and 4 threads (the conformance cases are too small for that). Reference
outputs are computed here with numpy (float64), independently of onnxc.

  make_parallel_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fusion"))
from make_fusion_models import conv_ref  # noqa: E402  (numpy NCHW convolution)

RNG = np.random.default_rng(11)
F = TensorProto.FLOAT


def rand(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def cases():
    """(name, nodes, {input: array}, {initializer: array}, output name, numpy reference)."""
    node = helper.make_node
    x4 = rand(1, 32, 40, 40)
    x = x4.astype(np.float64)
    yield ("transpose_nchw_nhwc", [node("Transpose", ["x"], ["y"], perm=[0, 2, 3, 1])],
           {"x": x4}, {}, x.transpose(0, 2, 3, 1))
    x5 = rand(6, 10, 12, 14, 16)
    yield ("transpose_5d", [node("Transpose", ["x"], ["y"], perm=[4, 2, 0, 3, 1])],
           {"x": x5}, {}, x5.transpose(4, 2, 0, 3, 1))
    xs = rand(4, 64, 96, 40)
    yield ("slice_strided", [node("Slice", ["x", "s", "e", "a", "st"], ["y"])], {"x": xs},
           {"s": np.array([1, 90, 3], np.int64), "e": np.array([60, 2, 40], np.int64),
            "a": np.array([1, 2, 3], np.int64), "st": np.array([2, -3, 1], np.int64)},
           xs[:, 1:60:2, 90:2:-3, 3:40])
    yield ("depth_to_space", [node("DepthToSpace", ["x"], ["y"], blocksize=2, mode="CRD")],
           {"x": x4}, {},
           x.reshape(1, 8, 2, 2, 40, 40).transpose(0, 1, 4, 2, 5, 3).reshape(1, 8, 80, 80))
    w, b = rand(48, 32, 3, 3) * 0.2, rand(48)
    yield ("conv3x3_relu", [node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                            node("Relu", ["c"], ["y"])], {"x": x4}, {"w": w, "b": b},
           np.maximum(conv_ref(x, w.astype(np.float64), b.astype(np.float64), 1, 1), 0))
    wd = rand(32, 1, 3, 3)
    yield ("depthwise_stride2", [node("Conv", ["x", "w"], ["y"], group=32, strides=[2, 2],
                                      pads=[1, 1, 1, 1])], {"x": x4}, {"w": wd},
           conv_ref(x, wd.astype(np.float64), None, 2, 1, 32))
    # a 1x1 conv on a 40x40 plane: the GEMM schedule that packs its columns per work item
    # (conv_gemm_fused)
    wp, bp = rand(64, 32, 1, 1) * 0.2, rand(64)
    yield ("pointwise_conv", [node("Conv", ["x", "w", "b"], ["y"])], {"x": x4}, {"w": wp, "b": bp},
           conv_ref(x, wp.astype(np.float64), bp.astype(np.float64), 1, 0))
    # depthwise on channel vectors (14x14 output rows): 6 channel blocks x 3 bands, one lane of
    # scratch per thread
    xc, wc, bc = rand(1, 96, 14, 14), rand(96, 1, 5, 5), rand(96)
    yield ("depthwise_channels", [node("Conv", ["x", "w", "b"], ["y"], group=96,
                                       pads=[2, 2, 2, 2])], {"x": xc}, {"w": wc, "b": bc},
           conv_ref(xc, wc.astype(np.float64), bc.astype(np.float64), 1, 2, 96))
    # a first layer on 3 channels (kConvFewChannels): phase rows packed in parallel, then 2
    # channel blocks x 8 bands of output rows
    xf, wf, bf = rand(1, 3, 64, 64), rand(16, 3, 5, 5) * 0.2, rand(16)
    yield ("few_channels_stem", [node("Conv", ["x", "w", "b"], ["c"], strides=[2, 2],
                                      pads=[2, 2, 2, 2]), node("Relu", ["c"], ["y"])],
           {"x": xf}, {"w": wf, "b": bf},
           np.maximum(conv_ref(xf.astype(np.float64), wf.astype(np.float64),
                               bf.astype(np.float64), 2, 2), 0))
    # 16 input channels (kConvFewChannels before Winograd): phase rows packed row-major, then
    # 12 bands x 3 channel blocks, band-major (each thread's bands read its own phase rows)
    xg, wg, bg = rand(1, 16, 48, 40), rand(24, 16, 3, 3) * 0.1, rand(24)
    yield ("few_channels_c16", [node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                                node("Relu", ["c"], ["y"])],
           {"x": xg}, {"w": wg, "b": bg},
           np.maximum(conv_ref(xg.astype(np.float64), wg.astype(np.float64),
                               bg.astype(np.float64), 1, 1), 0))
    xm, wm = rand(4, 96, 128), rand(128, 160)
    yield ("matmul_softmax", [node("MatMul", ["x", "w"], ["m"]),
                              node("Softmax", ["m"], ["y"], axis=-1)], {"x": xm}, {"w": wm},
           softmax(xm.astype(np.float64) @ wm))
    xl, r, g, bl = rand(2, 256, 192), rand(192), rand(192), rand(192)
    s = xl.astype(np.float64) + r
    mu, var = s.mean(-1, keepdims=True), s.var(-1, keepdims=True)
    yield ("layernorm_add", [node("Add", ["x", "r"], ["s"]),
                             node("LayerNormalization", ["s", "g", "b"], ["y"], axis=-1)],
           {"x": xl}, {"r": r, "g": g, "b": bl}, (s - mu) / np.sqrt(var + 1e-5) * g + bl)
    pooled = x.reshape(1, 32, 20, 2, 20, 2).max(axis=(3, 5))
    yield ("pool_resize_concat",
           [node("MaxPool", ["x"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
            node("Resize", ["p", "", "sc"], ["u"], mode="nearest"),
            node("Concat", ["x", "u"], ["y"], axis=1)],
           {"x": x4}, {"sc": np.array([1, 1, 2, 2], np.float32)},
           np.concatenate([x, pooled.repeat(2, axis=2).repeat(2, axis=3)], axis=1))
    # a bilinear 2x upsample (pytorch_half_pixel, batch 1: the separable kernel), then a Split
    # and a Concat along channels at batch 1 (one joined row of 1.6 MB, copied in segments)
    def up2(a, axis):
        n = a.shape[axis]
        xo = np.clip((np.arange(2 * n) + 0.5) / 2 - 0.5, 0, None)
        i0 = np.floor(xo).astype(int)
        w = (xo - i0).reshape([-1 if d == axis else 1 for d in range(a.ndim)])
        return (1 - w) * np.take(a, i0, axis=axis) + w * np.take(a, np.minimum(i0 + 1, n - 1),
                                                                  axis=axis)
    r = up2(up2(x, 2), 3)
    yield ("resize_split_concat",
           [node("Resize", ["x", "", "sc"], ["u"], mode="linear",
                 coordinate_transformation_mode="pytorch_half_pixel"),
            node("Split", ["u", "parts"], ["a", "b"], axis=1),
            node("Concat", ["b", "a"], ["y"], axis=1)],
           {"x": x4}, {"sc": np.array([1, 1, 2, 2], np.float32),
                       "parts": np.array([12, 20], np.int64)},
           np.concatenate([r[:, 12:], r[:, :12]], axis=1))
    c = rand(40)
    t = np.exp(-x) * x + c
    yield ("eltwise_chain_inplace",  # every intermediate can take over its input's buffer
           [node("Neg", ["x"], ["n"]), node("Exp", ["n"], ["e"]), node("Mul", ["e", "x"], ["m"]),
            node("Add", ["m", "c"], ["a"]), node("Sigmoid", ["a"], ["y"])],
           {"x": x4}, {"c": c}, 1 / (1 + np.exp(-t)))
    idx = RNG.integers(0, 32, (64,)).astype(np.int64)
    yield ("reduce_gather", [node("ReduceMean", ["x"], ["r"], axes=[2], keepdims=0),
                             node("Gather", ["r", "i"], ["y"], axis=1)],
           {"x": x4}, {"i": idx}, x.mean(axis=2)[:, idx])


def write(out_dir, name, nodes, inputs, inits, ref):
    d = os.path.join(out_dir, name)
    data = os.path.join(d, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    infos = [helper.make_tensor_value_info(k, F, v.shape) for k, v in inputs.items()]
    graph = helper.make_graph(nodes, name, infos, [helper.make_tensor_value_info("y", F, ref.shape)],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(d, "model.onnx"))
    for i, (k, v) in enumerate(inputs.items()):
        onnx.save_tensor(numpy_helper.from_array(v, k), os.path.join(data, f"input_{i}.pb"))
    onnx.save_tensor(numpy_helper.from_array(np.asarray(ref, np.float32), "y"),
                     os.path.join(data, "output_0.pb"))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for case in cases():
        write(sys.argv[1], *case)


if __name__ == "__main__":
    main()
