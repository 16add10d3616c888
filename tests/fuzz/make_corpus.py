#!/usr/bin/python3
"""Writes the seed corpus of the loader fuzzer (tests/fuzz/corpus/): tiny valid models that cover
the supported operators, attribute kinds, initializers stored raw and in typed fields, several
element types, Constant nodes, shape subgraphs and (unsupported, but loaded) subgraphs.

    /usr/bin/python3 tests/fuzz/make_corpus.py tests/fuzz/corpus

The files are committed; rerun the script only to change the corpus. Models are kept small on
purpose: libFuzzer mutates bytes, and small seeds keep every execution fast.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F, I64, I32, F16, F64, U8, B = (TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32,
                                TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.UINT8,
                                TensorProto.BOOL)


def vi(name, shape, dtype=F):
    return helper.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs, outputs, inits=(), opset=13, ir=8, value_info=()):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits), value_info=list(value_info))
    m = helper.make_model(g, producer_name="onnxc-fuzz-corpus",
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir
    return m.SerializeToString()


def c(name, arr, dtype=None):
    """An initializer stored as raw_data."""
    a = np.asarray(arr) if dtype is None else np.asarray(arr, dtype)
    return numpy_helper.from_array(a, name)


def typed(name, dtype, dims, vals):
    """An initializer stored in its typed field (float_data, int64_data, ...)."""
    return helper.make_tensor(name, dtype, dims, vals, raw=False)


def unary(op, shape=(2, 3), dtype=F, opset=13, **attrs):
    return model([helper.make_node(op, ["x"], ["y"], name="n0", **attrs)],
                 [vi("x", list(shape), dtype)], [vi("y", None, dtype)], opset=opset)


def binary(op, a=(2, 3), b=(3,), dtype=F):
    return model([helper.make_node(op, ["a", "b"], ["y"], name="n0")],
                 [vi("a", list(a), dtype), vi("b", list(b), dtype)], [vi("y", None, dtype)])


def with_const(op, const_inputs, shape=(2, 3), opset=13, **attrs):
    """x plus constant inputs (name, array) -> op -> y."""
    names = ["x"] + [n for n, _ in const_inputs]
    inits = [c(n, a) for n, a in const_inputs]
    return model([helper.make_node(op, names, ["y"], name="n0", **attrs)],
                 [vi("x", list(shape))], [vi("y", None)], inits, opset=opset)


def shape_subgraph():
    """Shape -> Gather -> Concat -> Reshape: folds to a constant shape at compile time."""
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("Gather", ["s", "i0"], ["d0"], name="gather", axis=0),
             helper.make_node("Concat", ["d0", "m1"], ["ns"], name="concat", axis=0),
             helper.make_node("Reshape", ["x", "ns"], ["y"], name="reshape")]
    return model(nodes, [vi("x", [2, 3, 4])], [vi("y", None)],
                 [c("i0", np.array([0], np.int64)), c("m1", np.array([-1], np.int64))])


def mlp():
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1", transB=1),
             helper.make_node("Relu", ["h"], ["r"], name="relu"),
             helper.make_node("MatMul", ["r", "w2"], ["m"], name="fc2"),
             helper.make_node("Softmax", ["m"], ["y"], name="softmax", axis=-1)]
    return model(nodes, [vi("x", [1, 4])], [vi("y", [1, 2])],
                 [c("w1", np.ones((3, 4), np.float32)), typed("b1", F, [3], [0.1, 0.2, 0.3]),
                  c("w2", np.ones((3, 2), np.float32))])


def conv_net():
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1],
                              strides=[1, 1], kernel_shape=[3, 3]),
             helper.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["n"], name="bn"),
             helper.make_node("MaxPool", ["n"], ["p"], name="pool", kernel_shape=[2, 2],
                              strides=[2, 2]),
             helper.make_node("GlobalAveragePool", ["p"], ["g"], name="gap"),
             helper.make_node("Flatten", ["g"], ["y"], name="flatten")]
    ch = np.ones(2, np.float32)
    return model(nodes, [vi("x", [1, 1, 4, 4])], [vi("y", None)],
                 [c("w", np.ones((2, 1, 3, 3), np.float32)), c("b", ch), c("s", ch), c("bb", ch),
                  c("m", ch), c("v", ch)])


def constant_nodes():
    nodes = [helper.make_node("Constant", [], ["k"], name="k", value_floats=[1.0, 2.0, 3.0]),
             helper.make_node("Constant", [], ["one"], name="one", value_float=1.0),
             helper.make_node("Constant", [], ["t"], name="t",
                              value=helper.make_tensor("tv", F, [3], [0.5, 0.5, 0.5])),
             helper.make_node("Add", ["x", "k"], ["a"], name="add"),
             helper.make_node("Mul", ["a", "t"], ["b"], name="mul"),
             helper.make_node("Sub", ["b", "one"], ["y"], name="sub")]
    return model(nodes, [vi("x", [2, 3])], [vi("y", None)])


def if_subgraph():
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"], name="tr")], "then", [],
                               [vi("t", [2])])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"], name="en")], "else", [],
                               [vi("e", [2])])
    node = helper.make_node("If", ["cond"], ["y"], name="if", then_branch=then_g,
                            else_branch=else_g)
    return model([node], [vi("cond", [], B), vi("x", [2])], [vi("y", None)])


def loop_subgraph():
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"], name="cond"),
         helper.make_node("Add", ["v_in", "x"], ["v_out"], name="acc")],
        "body", [vi("i", [], I64), vi("c_in", [], B), vi("v_in", [2])],
        [vi("c_out", [], B), vi("v_out", [2])])
    node = helper.make_node("Loop", ["n", "", "v0"], ["v"], name="loop", body=body)
    return model([node], [vi("x", [2]), vi("v0", [2])], [vi("v", None)],
                 [c("n", np.array(3, np.int64))])


def typed_initializers():
    nodes = [helper.make_node("Cast", ["i"], ["f"], name="cast", to=F),
             helper.make_node("Add", ["x", "f"], ["a"], name="add"),
             helper.make_node("Add", ["a", "d"], ["y"], name="add2")]
    return model(nodes, [vi("x", [3])], [vi("y", None)],
                 [typed("i", I32, [3], [1, 2, 3]), typed("d", F, [3], [1.5, 2.5, 3.5])])


def ir3_initializers_as_inputs():
    """IR 3: initializers are listed as graph inputs too."""
    w = c("w", np.ones((2, 3), np.float32))
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add")], "g",
                          [vi("x", [2, 3]), vi("w", [2, 3])], [vi("y", None)], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 8)])
    m.ir_version = 3
    return m.SerializeToString()


CASES = {
    "relu": lambda: unary("Relu"),
    "sigmoid_tanh_exp": lambda: model(
        [helper.make_node("Sigmoid", ["x"], ["s"], name="s"),
         helper.make_node("Tanh", ["s"], ["t"], name="t"),
         helper.make_node("Exp", ["t"], ["y"], name="e")],
        [vi("x", [4])], [vi("y", None)]),
    "add_broadcast": lambda: binary("Add"),
    "div_int64": lambda: binary("Div", (2, 2), (2,), I64),
    "pow_double": lambda: binary("Pow", (3,), (1,), F64),
    "where": lambda: model([helper.make_node("Where", ["c", "a", "b"], ["y"], name="w")],
                           [vi("c", [2, 3], B), vi("a", [2, 3]), vi("b", [3])], [vi("y", None)]),
    "mlp": mlp,
    "conv_net": conv_net,
    "avgpool_pads": lambda: unary("AveragePool", (1, 1, 5, 5), kernel_shape=[3, 3],
                                  pads=[1, 1, 1, 1], strides=[2, 2], count_include_pad=1),
    "transpose": lambda: unary("Transpose", (2, 3, 4), perm=[2, 0, 1]),
    "reshape_const": lambda: with_const("Reshape", [("s", np.array([3, -1], np.int64))]),
    "shape_subgraph": shape_subgraph,
    "slice_steps": lambda: with_const(
        "Slice", [("st", np.array([0, 2], np.int64)), ("en", np.array([2, 0], np.int64)),
                  ("ax", np.array([0, 1], np.int64)), ("sp", np.array([1, -1], np.int64))]),
    "gather_const": lambda: with_const("Gather", [("i", np.array([[1, 0]], np.int64))], axis=1),
    "gather_elements": lambda: with_const("GatherElements", [("i", np.zeros((2, 2), np.int64))],
                                          axis=1),
    "concat_split": lambda: model(
        [helper.make_node("Concat", ["x", "x"], ["c"], name="cat", axis=1),
         helper.make_node("Split", ["c", "sp"], ["y", "z"], name="split", axis=1)],
        [vi("x", [2, 3])], [vi("y", None), vi("z", None)], [c("sp", np.array([2, 4], np.int64))]),
    "pad_reflect": lambda: with_const("Pad", [("p", np.array([0, 1, 0, 1], np.int64))],
                                      mode="reflect"),
    "cast_clip": lambda: model(
        [helper.make_node("Cast", ["x"], ["h"], name="cast", to=F16),
         helper.make_node("Cast", ["h"], ["f"], name="back", to=F),
         helper.make_node("Clip", ["f", "lo", "hi"], ["y"], name="clip")],
        [vi("x", [4])], [vi("y", None)], [c("lo", np.float32(0)), c("hi", np.float32(6))]),
    "reduce_keepdims": lambda: with_const("ReduceSum", [("ax", np.array([1], np.int64))],
                                          keepdims=0),
    "reduce_mean_attr": lambda: unary("ReduceMean", (2, 3, 4), axes=[0, 2]),
    "argmax": lambda: unary("ArgMax", (2, 3), axis=1, keepdims=1, select_last_index=1),
    "expand_tile": lambda: model(
        [helper.make_node("Expand", ["x", "s"], ["e"], name="expand"),
         helper.make_node("Tile", ["e", "r"], ["y"], name="tile")],
        [vi("x", [1, 3])], [vi("y", None)],
        [c("s", np.array([2, 3], np.int64)), c("r", np.array([1, 2], np.int64))]),
    "constant_of_shape_range": lambda: model(
        [helper.make_node("ConstantOfShape", ["s"], ["z"], name="cos",
                          value=helper.make_tensor("v", F, [1], [2.0])),
         helper.make_node("Range", ["st", "li", "de"], ["r"], name="range"),
         helper.make_node("Add", ["z", "r"], ["a"], name="add"),
         helper.make_node("Add", ["a", "x"], ["y"], name="addx")],
        [vi("x", [4])], [vi("y", None)],
        [c("s", np.array([4], np.int64)), c("st", np.float32(0)), c("li", np.float32(4)),
         c("de", np.float32(1))]),
    "layernorm": lambda: model(
        [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], name="ln", axis=-1,
                          epsilon=1e-5)],
        [vi("x", [2, 4])], [vi("y", None)],
        [c("g", np.ones(4, np.float32)), c("b", np.zeros(4, np.float32))], opset=17),
    "instancenorm": lambda: model(
        [helper.make_node("InstanceNormalization", ["x", "g", "b"], ["y"], name="in")],
        [vi("x", [1, 2, 3])], [vi("y", None)],
        [c("g", np.ones(2, np.float32)), c("b", np.zeros(2, np.float32))]),
    "depth_to_space": lambda: unary("DepthToSpace", (1, 4, 2, 2), blocksize=2, mode="CRD"),
    "squeeze_unsqueeze": lambda: model(
        [helper.make_node("Unsqueeze", ["x", "a"], ["u"], name="unsq"),
         helper.make_node("Squeeze", ["u", "a"], ["y"], name="sq")],
        [vi("x", [2, 3])], [vi("y", None)], [c("a", np.array([0], np.int64))]),
    "unsqueeze_opset11": lambda: unary("Unsqueeze", opset=11, axes=[0]),
    "constant_nodes": constant_nodes,
    "typed_initializers": typed_initializers,
    "ir3_initializers_as_inputs": ir3_initializers_as_inputs,
    "dropout_identity": lambda: model(
        [helper.make_node("Dropout", ["x"], ["d"], name="drop"),
         helper.make_node("Identity", ["d"], ["y"], name="id")],
        [vi("x", [3])], [vi("y", None)]),
    "logsoftmax_uint8_cast": lambda: model(
        [helper.make_node("Cast", ["x"], ["f"], name="cast", to=F),
         helper.make_node("LogSoftmax", ["f"], ["y"], name="lsm", axis=1)],
        [vi("x", [2, 3], U8)], [vi("y", None)]),
    "if_subgraph": if_subgraph,
    "loop_subgraph": loop_subgraph,
    "symbolic_dim": lambda: unary("Relu", ("batch", 3)),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, make in CASES.items():
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(make())
    print(f"{len(CASES)} models in {out}")


if __name__ == "__main__":
    main()
