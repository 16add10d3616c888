#!/usr/bin/python3
"""Writes the malformed models of tests/errors into OUT_DIR, one file per case (CASE.onnx).

    /usr/bin/python3 tests/errors/make_error_models.py OUT_DIR

Every model is built with the onnx helper API (Debian's python3-onnx) without running the ONNX
checker, since most of them are invalid on purpose. tests/errors/CMakeLists.txt lists the cases,
the onnxc arguments and the message each must produce.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def vi(name, shape, dtype=F):
    return helper.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs, outputs, inits=(), opset=13, extra_opsets=()):
    graph = helper.make_graph(nodes, "bad", inputs, outputs, list(inits))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    m = helper.make_model(graph, producer_name="onnxc-tests-errors", opset_imports=opsets)
    m.ir_version = 8
    return m.SerializeToString()


def unary(op, in_shape=(2, 3), out_shape=None, **attrs):
    """x -> op -> y."""
    return model([helper.make_node(op, ["x"], ["y"], name="n0", **attrs)],
                 [vi("x", list(in_shape))], [vi("y", out_shape)])


def binary(op, a, b):
    """a, b -> op -> y."""
    return model([helper.make_node(op, ["a", "b"], ["y"], name="n0")],
                 [vi("a", list(a)), vi("b", list(b))], [vi("y", None)])


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def external(location):
    """A Relu model whose weight w lives in external data at `location`."""
    w = TensorProto(name="w", data_type=F, dims=[2, 3])
    w.data_location = TensorProto.EXTERNAL
    for k, v in [("location", location), ("offset", "0"), ("length", "24")]:
        e = w.external_data.add()
        e.key, e.value = k, v
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [vi("x", [2, 3])], [vi("y", [2, 3])], [w])


def valid():
    return unary("Relu", out_shape=[2, 3])


CASES = {
    # Operators and opsets.
    "unsupported_op": lambda: unary("Det", (3, 3)),
    "unknown_op": lambda: unary("NoSuchOperator"),
    "unknown_domain": lambda: model(
        [helper.make_node("Relu", ["x"], ["y"], name="n0", domain="com.example")],
        [vi("x", [2, 3])], [vi("y", None)], extra_opsets=[("com.example", 1)]),
    "opset_too_new": lambda: model([helper.make_node("Relu", ["x"], ["y"], name="n0")],
                                   [vi("x", [2, 3])], [vi("y", None)], opset=99),
    "missing_opset_import": lambda: model(
        [helper.make_node("Relu", ["x"], ["y"], name="n0", domain="com.example")],
        [vi("x", [2, 3])], [vi("y", None)]),
    # Files that are not models.
    "truncated_file": lambda: valid()[: len(valid()) // 2],
    "not_protobuf": lambda: b"this is not an ONNX model, just text\n" * 4,
    "empty_file": lambda: b"",
    # Graph structure.
    "missing_input_definition": lambda: model(
        [helper.make_node("Add", ["x", "undefined_value"], ["y"], name="n0")],
        [vi("x", [2, 3])], [vi("y", None)]),
    "cycle": lambda: model(
        [helper.make_node("Add", ["x", "b"], ["a"], name="n0"),
         helper.make_node("Relu", ["a"], ["b"], name="n1")],
        [vi("x", [2, 3])], [vi("a", None)]),
    "duplicate_output_name": lambda: model(
        [helper.make_node("Relu", ["x"], ["y"], name="n0"),
         helper.make_node("Neg", ["x"], ["y"], name="n1")],
        [vi("x", [2, 3])], [vi("y", None)]),
    "undefined_graph_output": lambda: model(
        [helper.make_node("Relu", ["x"], ["y"], name="n0")],
        [vi("x", [2, 3])], [vi("nowhere", None)]),
    # Shapes.
    "matmul_shape_mismatch": lambda: binary("MatMul", (2, 3), (4, 5)),
    "add_broadcast_mismatch": lambda: binary("Add", (2, 3), (4,)),
    "reshape_bad_size": lambda: model(
        [helper.make_node("Reshape", ["x", "s"], ["y"], name="n0")],
        [vi("x", [2, 3])], [vi("y", None)], [const("s", np.array([4, 2], np.int64))]),
    "reshape_two_inferred_dims": lambda: model(
        [helper.make_node("Reshape", ["x", "s"], ["y"], name="n0")],
        [vi("x", [2, 3])], [vi("y", None)], [const("s", np.array([-1, -1], np.int64))]),
    "transpose_perm_repeats": lambda: unary("Transpose", perm=[0, 0]),
    "transpose_perm_length": lambda: unary("Transpose", perm=[1, 0, 2]),
    "conv_channel_mismatch": lambda: model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="n0")],
        [vi("x", [1, 3, 8, 8])], [vi("y", None)],
        [const("w", np.zeros((4, 2, 3, 3), np.float32))]),
    "string_input": lambda: model([helper.make_node("Identity", ["x"], ["y"], name="n0")],
                                  [vi("x", [2], TensorProto.STRING)],
                                  [vi("y", None, TensorProto.STRING)]),
    # External data.
    "external_data_dotdot": lambda: external("../outside.bin"),
    "external_data_absolute": lambda: external("/etc/passwd"),
    "external_data_missing": lambda: external("no_such_weights.bin"),
    # Symbolic dims (compiled without --dim / with bad bindings).
    "unbound_symbolic_dim": lambda: model([helper.make_node("Relu", ["x"], ["y"], name="n0")],
                                          [vi("x", ["batch", 3])], [vi("y", None)]),
    # A valid model, for the cases about bad command lines.
    "valid": valid,
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, make in CASES.items():
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(make())


if __name__ == "__main__":
    main()
