#!/usr/bin/python3
"""Writes onnxc's sample models (default: a small CNN classifying a 1x1x8x8 image into 10 classes).

    /usr/bin/python3 samples/make_sample_model.py OUT.onnx
        [--model cnn|mlp|mobilenet|transformer] [--reference DIR]

cnn (the sample; opset 13, float32, weights from numpy with a fixed seed, so every run writes the
same file): Conv(4 filters 3x3, pad 1) -> Relu -> MaxPool(2x2) -> Flatten -> Gemm(64 -> 10)
-> Softmax. Input 'image' 1x1x8x8, output 'probs' 1x10.
mlp (a second model for tests that load two): Reshape(1x64) -> MatMul(64x16) -> Add -> Relu
-> MatMul(16x5) -> Add -> Sigmoid. Same input, output 'scores' 1x5.
mobilenet (mobilenet_model.py): a small MobileNet-v2-style classifier, input 'image' 1x3x64x64,
output 'probs' 1x100; used by samples/classify.c.
transformer (transformer_model.py): a tiny byte-level causal text transformer, input 'tokens'
int64 1x16, output 'logits' 1x16x256; used by samples/textgen.c.

With --reference, OUT_DIR also receives the deterministic sample input (cnn and mlp: input[i] =
((i * 7) % 13) / 13 - 0.5, as the C programs compute it; mobilenet: an RGB test pattern;
transformer: the bytes of "onnxc on aarch64") and the expected output computed here with numpy
(independently of onnxc): test_data_set_0/{input_0,output_0}.pb and expected.txt (one value per
line), plus input.txt.
"""
import argparse
import os
from collections import namedtuple

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import mobilenet_model
import transformer_model

SEED = 20240601
IN_SHAPE = (1, 1, 8, 8)
FILTERS = 4
CLASSES = 10
FEATURES = FILTERS * 4 * 4


def weights():
    rng = np.random.default_rng(SEED)
    conv_w = rng.normal(0, 0.5, (FILTERS, 1, 3, 3)).astype(np.float32)
    conv_b = rng.normal(0, 0.1, (FILTERS,)).astype(np.float32)
    fc_w = rng.normal(0, 0.3, (FEATURES, CLASSES)).astype(np.float32)
    fc_b = rng.normal(0, 0.1, (CLASSES,)).astype(np.float32)
    return conv_w, conv_b, fc_w, fc_b


def mlp_weights():
    rng = np.random.default_rng(SEED + 1)
    w1 = rng.normal(0, 0.3, (64, 16)).astype(np.float32)
    b1 = rng.normal(0, 0.1, (16,)).astype(np.float32)
    w2 = rng.normal(0, 0.4, (16, 5)).astype(np.float32)
    b2 = rng.normal(0, 0.1, (5,)).astype(np.float32)
    return w1, b1, w2, b2


def sample_input():
    """The input main.c and the e2e tests feed: the same formula, written out in C as well."""
    i = np.arange(np.prod(IN_SHAPE), dtype=np.int64)
    return (((i * 7) % 13).astype(np.float32) / np.float32(13) - np.float32(0.5)).reshape(IN_SHAPE)


def make_model(name, nodes, inits, output, out_shape):
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, list(IN_SHAPE))],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, out_shape)],
        inits)
    return finish_model(graph, 13)


def finish_model(graph, opset):
    model = helper.make_model(graph, producer_name="onnxc-samples",
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def build_cnn():
    conv_w, conv_b, fc_w, fc_b = weights()
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(conv_w, "conv_w"), (conv_b, "conv_b"), (fc_w, "fc_w"), (fc_b, "fc_b")]]
    nodes = [
        helper.make_node("Conv", ["image", "conv_w", "conv_b"], ["conv"], name="conv",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv"], ["relu"], name="relu"),
        helper.make_node("MaxPool", ["relu"], ["pool"], name="pool",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], name="fc"),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
    ]
    return make_model("sample_cnn", nodes, inits, "probs", [1, CLASSES])


def build_mlp():
    w1, b1, w2, b2 = mlp_weights()
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(np.array([1, 64], np.int64), "flat_shape"), (w1, "w1"), (b1, "b1"), (w2, "w2"),
              (b2, "b2")]]
    nodes = [
        helper.make_node("Reshape", ["image", "flat_shape"], ["flat"], name="flatten"),
        helper.make_node("MatMul", ["flat", "w1"], ["h1"], name="fc1"),
        helper.make_node("Add", ["h1", "b1"], ["h1b"], name="fc1_bias"),
        helper.make_node("Relu", ["h1b"], ["h1r"], name="relu"),
        helper.make_node("MatMul", ["h1r", "w2"], ["h2"], name="fc2"),
        helper.make_node("Add", ["h2", "b2"], ["h2b"], name="fc2_bias"),
        helper.make_node("Sigmoid", ["h2b"], ["scores"], name="sigmoid"),
    ]
    return make_model("sample_mlp", nodes, inits, "scores", [1, 5])


def reference_mlp(x):
    """The mlp evaluated with numpy alone."""
    w1, b1, w2, b2 = (a.astype(np.float64) for a in mlp_weights())
    h = np.maximum(x.astype(np.float64).reshape(1, 64) @ w1 + b1, 0)
    return (1 / (1 + np.exp(-(h @ w2 + b2)))).astype(np.float32)


def reference_cnn(x):
    """The model evaluated with numpy alone (float64 accumulation, float32 result)."""
    conv_w, conv_b, fc_w, fc_b = (a.astype(np.float64) for a in weights())
    img = np.pad(x.astype(np.float64)[0, 0], 1)
    conv = np.empty((FILTERS, 8, 8))
    for f in range(FILTERS):
        for r in range(8):
            for c in range(8):
                conv[f, r, c] = np.sum(img[r:r + 3, c:c + 3] * conv_w[f, 0]) + conv_b[f]
    relu = np.maximum(conv, 0)
    pool = relu.reshape(FILTERS, 4, 2, 4, 2).max(axis=(2, 4))
    logits = pool.reshape(1, FEATURES) @ fc_w + fc_b
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def build_mobilenet():
    return finish_model(mobilenet_model.build()[0], 13)


def reference_mobilenet(x):
    return mobilenet_model.reference(x, mobilenet_model.build()[1])


def build_transformer():
    return finish_model(transformer_model.build(), 17)


# build() -> ModelProto, sample_input() -> array, reference(x) -> array (numpy only).
SampleModel = namedtuple("SampleModel", "build sample_input reference input output")
MODELS = {
    "cnn": SampleModel(build_cnn, sample_input, reference_cnn, "image", "probs"),
    "mlp": SampleModel(build_mlp, sample_input, reference_mlp, "image", "scores"),
    "mobilenet": SampleModel(build_mobilenet, mobilenet_model.sample_input, reference_mobilenet,
                             "image", "probs"),
    "transformer": SampleModel(build_transformer, transformer_model.sample_input,
                               transformer_model.reference, "tokens", "logits"),
}


def write_reference(kind, out_dir):
    m = MODELS[kind]
    x = m.sample_input()
    y = m.reference(x)
    data_dir = os.path.join(out_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    for name, arr, fname in [(m.input, x, "input_0.pb"), (m.output, y, "output_0.pb")]:
        with open(os.path.join(data_dir, fname), "wb") as f:
            f.write(numpy_helper.from_array(arr, name).SerializeToString())
    np.savetxt(os.path.join(out_dir, "expected.txt"), y.reshape(-1), fmt="%.9g")
    np.savetxt(os.path.join(out_dir, "input.txt"), x.reshape(-1), fmt="%.9g")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("output", help="path of the .onnx file to write")
    p.add_argument("--model", choices=sorted(MODELS), default="cnn", help="which model (cnn)")
    p.add_argument("--reference", metavar="DIR", help="also write input and expected output here")
    p.add_argument("--ppm", metavar="FILE",
                   help="mobilenet only: also write its sample input image as a binary PPM")
    args = p.parse_args()
    if args.ppm:
        if args.model != "mobilenet":
            p.error("--ppm needs --model mobilenet")
        mobilenet_model.write_ppm(args.ppm, mobilenet_model.sample_rgb())
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    onnx.save(MODELS[args.model].build(), args.output)
    if args.reference:
        write_reference(args.model, args.reference)


if __name__ == "__main__":
    main()
