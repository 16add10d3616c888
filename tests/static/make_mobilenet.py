#!/usr/bin/python3
"""Writes a small MobileNet-v2-style network (the edge-budget test model of tests/static).

    /usr/bin/python3 make_mobilenet.py OUT.onnx --reference DIR

Structure of MobileNet v2 (width 0.35, input 1x3x96x96, opset 13, float32): a 3x3/2 stem, the 17
inverted residual blocks (1x1 expand -> Clip(0, 6) -> 3x3 depthwise -> Clip(0, 6) -> 1x1 project,
with a residual Add where shapes allow), a 1x1 head, GlobalAveragePool, Flatten and Gemm to 1000
classes. Batch norms are folded into the convolutions' biases, as exporters do. Weights come from
numpy with a fixed seed. With --reference, DIR receives input.txt (a deterministic input) and
expected.txt (the output computed here with numpy, independently of onnxc), one value per line.
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IN_SHAPE = (1, 3, 96, 96)
CLASSES = 1000
# (expansion t, output channels c, repeats n, first stride s) of MobileNet v2, channels x 0.35.
BLOCKS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
          (6, 160, 3, 2), (6, 320, 1, 1)]
WIDTH = 0.35


def scaled(c):
    return max(8, int(c * WIDTH + 4) // 8 * 8)


def conv_ref(x, w, b, stride, group):
    """NCHW convolution with 'same' padding k // 2, in float64."""
    cout, cin_g, k, _ = w.shape
    p = k // 2
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    h = (x.shape[2] + 2 * p - k) // stride + 1
    wd = (x.shape[3] + 2 * p - k) // stride + 1
    out = np.zeros((1, cout, h, wd))
    per_group = cout // group
    for g in range(group):
        xs = xp[0, g * cin_g:(g + 1) * cin_g]
        ws = w[g * per_group:(g + 1) * per_group]
        for i in range(k):
            for j in range(k):
                patch = xs[:, i:i + stride * h:stride, j:j + stride * wd:stride]
                out[0, g * per_group:(g + 1) * per_group] += np.einsum("oc,chw->ohw", ws[:, :, i, j], patch)
    return out + b.reshape(1, -1, 1, 1)


class Builder:
    def __init__(self, x=None):
        self.rng = np.random.default_rng(7)
        self.nodes, self.inits, self.count = [], [], 0
        self.values = {"image": x}  # numpy reference values when x is given

    def name(self, kind):
        self.count += 1
        return f"{kind}{self.count}"

    def conv(self, x, cin, cout, k, stride, group, relu6):
        n = self.name("conv")
        fan_in = cin // group * k * k
        w = self.rng.normal(0, np.sqrt(2.0 / fan_in), (cout, cin // group, k, k)).astype(np.float32)
        b = self.rng.normal(0, 0.05, (cout,)).astype(np.float32)
        self.inits += [numpy_helper.from_array(w, n + "_w"), numpy_helper.from_array(b, n + "_b")]
        self.nodes.append(helper.make_node("Conv", [x, n + "_w", n + "_b"], [n], kernel_shape=[k, k],
                                           strides=[stride, stride], pads=[k // 2] * 4, group=group))
        if self.values["image"] is not None:
            self.values[n] = conv_ref(self.values[x], w.astype(np.float64), b, stride, group)
        if not relu6:
            return n
        self.nodes.append(helper.make_node("Clip", [n, "zero", "six"], [n + "_r6"]))
        if self.values["image"] is not None:
            self.values[n + "_r6"] = np.clip(self.values[n], 0, 6)
        return n + "_r6"

    def block(self, x, cin, cout, t, stride):
        hidden = cin * t
        y = self.conv(x, cin, hidden, 1, 1, 1, True) if t != 1 else x
        y = self.conv(y, hidden, hidden, 3, stride, hidden, True)
        y = self.conv(y, hidden, cout, 1, 1, 1, False)
        if stride == 1 and cin == cout:
            out = self.name("add")
            self.nodes.append(helper.make_node("Add", [x, y], [out]))
            if self.values["image"] is not None:
                self.values[out] = self.values[x] + self.values[y]
            return out
        return y


def build(x=None):
    """The model, and its output for input x (numpy, float64) if x is given."""
    b = Builder(None if x is None else x.astype(np.float64))
    b.inits += [numpy_helper.from_array(np.array(0, np.float32), "zero"),
                numpy_helper.from_array(np.array(6, np.float32), "six")]
    c = scaled(32)
    x = b.conv("image", 3, c, 3, 2, 1, True)
    for t, cout, n, s in BLOCKS:
        for i in range(n):
            x = b.block(x, c, scaled(cout), t, s if i == 0 else 1)
            c = scaled(cout)
    head = 1280
    x = b.conv(x, c, head, 1, 1, 1, True)
    b.head = x
    b.nodes.append(helper.make_node("GlobalAveragePool", [x], ["pooled"]))
    b.nodes.append(helper.make_node("Flatten", ["pooled"], ["flat"]))
    fc_w = b.rng.normal(0, 0.03, (head, CLASSES)).astype(np.float32)
    fc_b = b.rng.normal(0, 0.01, (CLASSES,)).astype(np.float32)
    b.inits += [numpy_helper.from_array(fc_w, "fc_w"), numpy_helper.from_array(fc_b, "fc_b")]
    b.nodes.append(helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"]))
    graph = helper.make_graph(
        b.nodes, "mobilenet",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, list(IN_SHAPE))],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, CLASSES])], b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    if x is None:
        return model, None
    pooled = b.values[b.head].mean(axis=(2, 3))
    return model, pooled @ fc_w.astype(np.float64) + fc_b


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--reference", help="directory for input.txt and expected.txt")
    args = p.parse_args()
    i = np.arange(np.prod(IN_SHAPE), dtype=np.int64)
    x = (((i * 7) % 13).astype(np.float32) / np.float32(13) - np.float32(0.5)).reshape(IN_SHAPE)
    model, y = build(x if args.reference else None)
    onnx.save(model, args.out)
    if args.reference:
        os.makedirs(args.reference, exist_ok=True)
        np.savetxt(os.path.join(args.reference, "input.txt"), x.reshape(-1), fmt="%.9g")
        np.savetxt(os.path.join(args.reference, "expected.txt"), y.reshape(-1), fmt="%.9g")


if __name__ == "__main__":
    main()
