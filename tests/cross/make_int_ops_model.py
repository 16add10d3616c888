#!/usr/bin/python3
"""Writes int_ops.onnx and test_data_set_0 (numpy reference) into OUT_DIR: integer division and
remainder (int32, int64, uint64) and 64-bit integer <-> float/double casts. On 32-bit ARM these
become calls to the EABI helpers of runtime_stub/arm_helpers.c (__aeabi_ldivmod, __aeabi_l2f,
...), so running the model under qemu-arm checks those helpers against numpy.

    make_int_ops_model.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

I64, U64, I32 = np.int64, np.uint64, np.int32


def inputs():
    rng = np.random.default_rng(11)
    # Ties for float rounding after a first rounding to 53 bits: 2^60 + 2^36 + 1.
    big = np.array([2**62 + 12345, -(2**61) - 7, 2**53 + 1, -(2**53) - 3, -(2**60 + 2**36 + 1)],
                   I64)
    a = np.concatenate([big, rng.integers(-10**12, 10**12, 11)]).astype(I64)
    b = np.array([7, -3, 2**33 + 5, -1, 3, -7, 10**9, -(10**6), 1, 2, 13, -13, 2**40, 5, -5, 9],
                 I64)
    e = np.array([2**64 - 1, 2**63 + 2**40 + 1, 2**60 + 2**36 + 1, 2**60 + 2**36, 2**53 + 1,
                  12345678901234567, 1, 0] + list(rng.integers(0, 2**63, 8)), U64)
    f = np.array([3, 2**32 + 1, 7, 1, 2, 10**9, 1, 5, 11, 2**35, 3, 4, 17, 2**50, 6, 2**62], U64)
    c = rng.integers(-2**31, 2**31 - 1, 16).astype(I32)
    d = np.array([3, -3, 7, -7, 1, -1, 65536, -65536, 2**30, 5, 9, -9, 100, 2, 13, -2**31], I32)
    x = np.concatenate([[-2.75, 2.75, -0.5, 0.5, 1.5e18, -9.2e18, 3.0e9, -4.5e15],
                        rng.uniform(-1e12, 1e12, 8)]).astype(np.float32)
    y = np.concatenate([[-2.75, 2.75, -0.999, 9.2e18, -9.2e18, 2.0**53 + 2, -(2.0**60), 1e15],
                        rng.uniform(-1e17, 1e17, 8)]).astype(np.float64)
    return {"a": a, "b": b, "c": c, "d": d, "e": e, "f": f, "x": x, "y": y}


def c_div(n, d):
    """C division (truncating toward zero) in exact Python integers."""
    q = abs(int(n)) // abs(int(d))
    return q if (n < 0) == (d < 0) else -q


def reference(v):
    a, b, c, d, e, f, x, y = (v[k] for k in "abcdefxy")
    div64 = np.array([c_div(n, m) for n, m in zip(a, b)], I64)
    div32 = np.array([c_div(n, m) for n, m in zip(c, d)], I32)
    return [
        ("div_i64", div64), ("mod_i64", np.mod(a, b)), ("fmod_i64", np.fmod(a, b)),
        ("div_i32", div32), ("fmod_i32", np.fmod(c, d)),
        ("div_u64", e // f), ("mod_u64", e % f),
        ("i64_to_f32", a.astype(np.float32)), ("i64_to_f64", a.astype(np.float64)),
        ("u64_to_f32", e.astype(np.float32)), ("u64_to_f64", e.astype(np.float64)),
        ("f32_to_i64", np.trunc(x).astype(I64)), ("f64_to_i64", np.trunc(y).astype(I64)),
        ("f32_to_u64", np.trunc(np.abs(x)).astype(U64)),
    ]


def build():
    nodes = [
        helper.make_node("Div", ["a", "b"], ["div_i64"]),
        helper.make_node("Mod", ["a", "b"], ["mod_i64"]),
        helper.make_node("Mod", ["a", "b"], ["fmod_i64"], fmod=1),
        helper.make_node("Div", ["c", "d"], ["div_i32"]),
        helper.make_node("Mod", ["c", "d"], ["fmod_i32"], fmod=1),
        helper.make_node("Div", ["e", "f"], ["div_u64"]),
        helper.make_node("Mod", ["e", "f"], ["mod_u64"]),
        helper.make_node("Cast", ["a"], ["i64_to_f32"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["a"], ["i64_to_f64"], to=TensorProto.DOUBLE),
        helper.make_node("Cast", ["e"], ["u64_to_f32"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["e"], ["u64_to_f64"], to=TensorProto.DOUBLE),
        helper.make_node("Cast", ["x"], ["f32_to_i64"], to=TensorProto.INT64),
        helper.make_node("Cast", ["y"], ["f64_to_i64"], to=TensorProto.INT64),
        helper.make_node("Abs", ["x"], ["abs_x"]),
        helper.make_node("Cast", ["abs_x"], ["f32_to_u64"], to=TensorProto.UINT64),
    ]
    v = inputs()
    graph = helper.make_graph(
        nodes, "int_ops",
        [helper.make_tensor_value_info(k, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], [16])
         for k, a in v.items()],
        [helper.make_tensor_value_info(k, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], [16])
         for k, a in reference(v)])
    model = helper.make_model(graph, producer_name="onnxc-tests",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, v


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_int_ops_model.py OUT_DIR")
    out = sys.argv[1]
    data = os.path.join(out, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    model, v = build()
    onnx.save(model, os.path.join(out, "int_ops.onnx"))
    tensors = [("input", i, k, a) for i, (k, a) in enumerate(v.items())]
    tensors += [("output", i, k, a) for i, (k, a) in enumerate(reference(v))]
    for kind, i, name, arr in tensors:
        with open(os.path.join(data, f"{kind}_{i}.pb"), "wb") as fh:
            fh.write(numpy_helper.from_array(arr, name).SerializeToString())


if __name__ == "__main__":
    main()
