#!/usr/bin/python3
"""Differential test of the fuse-qdq pass (compiler/passes/fuse_qdq.h).

Builds QDQ models (Q -> DQ -> Conv/MatMul/Gemm -> Q -> DQ, weights as int8 constants behind
DequantizeLinear, per-tensor and per-channel scales, bias, groups, strides, pads, batched
MatMul), compiles each with and without --disable-pass=fuse-qdq, runs both on random inputs with
several threads and checks that
  - the fused IR holds QLinearConv / QLinearMatMul / QGemm and no Conv / MatMul / Gemm, the
    unfused one none of them;
  - the two outputs agree to within one output quantum (y_scale) everywhere;
  - for MatMul and Gemm, both are within one quantum of a numpy evaluation of the float graph.
Usage: qdq_fusion.py ONNXC WORKDIR
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(7)


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def qdq_model(name, core, x_shape, y_shape, y_scale, y_zp, extra_inits, opset=13):
    """x -> Q(xs, xz) -> DQ -> core(...) -> Q(y) -> DQ -> y; `core` returns its nodes."""
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xf"]),
    ]
    nodes += core
    nodes += [
        helper.make_node("QuantizeLinear", ["yf", "ys", "yz"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"]),
    ]
    inits = [const("xs", np.float32(0.05)), const("xz", np.uint8(120)),
             const("ys", np.float32(y_scale)), const("yz", y_zp)] + extra_inits
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def conv_model(per_channel, with_bias, group):
    M, C = 6, 4
    w = RNG.integers(-127, 128, size=(M, C // group, 3, 3)).astype(np.int8)
    ws = (RNG.uniform(0.002, 0.02, size=M) if per_channel else np.array([0.01])).astype(np.float32)
    inits = [const("wq", w), const("ws", ws if per_channel else ws[0])]
    inputs = ["xf", "wf"]
    nodes = [helper.make_node("DequantizeLinear", ["wq", "ws"], ["wf"], axis=0)]
    if with_bias:
        inits.append(const("b", RNG.uniform(-2, 2, size=M).astype(np.float32)))
        inputs.append("b")
    nodes.append(helper.make_node("Conv", inputs, ["yf"], group=group, pads=[1, 0, 1, 2],
                                  strides=[1, 2]))
    name = f"conv_pc{int(per_channel)}_b{int(with_bias)}_g{group}"
    return name, qdq_model(name, nodes, [2, C, 12, 11], [2, M, 12, 6], 0.3, np.uint8(128),
                           inits)


def matmul_model(per_column):
    K, N = 40, 300
    b = RNG.integers(-127, 128, size=(K, N)).astype(np.int8)
    bs = (RNG.uniform(0.002, 0.02, size=N) if per_column else np.array([0.01])).astype(np.float32)
    bz = RNG.integers(-3, 4, size=N).astype(np.int8) if per_column else np.int8(2)
    inits = [const("bq", b), const("bs", bs if per_column else bs[0]), const("bz", bz)]
    nodes = [helper.make_node("DequantizeLinear", ["bq", "bs", "bz"], ["bf"], axis=1),
             helper.make_node("MatMul", ["xf", "bf"], ["yf"])]
    name = f"matmul_pc{int(per_column)}"
    model = qdq_model(name, nodes, [2, 5, K], [2, 5, N], 0.3, np.int8(-5), inits)
    ref = dict(b=b, bs=bs, bz=bz)
    return name, model, ref


def gemm_model(per_column, alpha):
    """Gemm with transB = 1 (B is N x K, per-column scales along axis 0) and a float bias."""
    K, N = 40, 70
    b = RNG.integers(-127, 128, size=(N, K)).astype(np.int8)
    bs = (RNG.uniform(0.002, 0.02, size=N) if per_column else np.array([0.01])).astype(np.float32)
    c = RNG.uniform(-3, 3, size=N).astype(np.float32)
    inits = [const("bq", b), const("bs", bs if per_column else bs[0]), const("c", c)]
    nodes = [helper.make_node("DequantizeLinear", ["bq", "bs"], ["bf"], axis=0),
             helper.make_node("Gemm", ["xf", "bf", "c"], ["yf"], transB=1, alpha=float(alpha))]
    name = f"gemm_pc{int(per_column)}_alpha{alpha}"
    model = qdq_model(name, nodes, [6, K], [6, N], 0.3, np.int8(-5), inits)
    if isinstance(alpha, int):  # written as an INT attribute after the checker, as some exporters do
        gemm = next(n for n in model.graph.node if n.op_type == "Gemm")
        attr = next(a for a in gemm.attribute if a.name == "alpha")
        attr.type, attr.i = onnx.AttributeProto.INT, alpha
        attr.ClearField("f")
    ref = dict(b=b.T, bs=bs, bz=np.int8(0), c=c, alpha=alpha)
    return name, model, ref


def quantize(v, scale, zp, lo, hi):
    return np.clip(np.rint(v / scale) + zp, lo, hi)


def matmul_reference(x, r):
    xq = quantize(x, np.float32(0.05), 120, 0, 255)
    xf = ((xq - 120) * np.float32(0.05)).astype(np.float32)
    bf = ((r["b"].astype(np.float32) - r["bz"]) * r["bs"]).astype(np.float32)
    yf = np.matmul(xf, bf) * np.float32(r.get("alpha", 1)) + r.get("c", np.float32(0))
    yq = quantize(yf, np.float32(0.3), -5, -128, 127)
    return ((yq + 5) * np.float32(0.3)).astype(np.float32)


def run(onnxc, args):
    res = subprocess.run([onnxc] + args, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"FAIL: onnxc {' '.join(args)}:\n{res.stderr}")
    return res.stderr


def compile_and_run(onnxc, work, name, fused):
    tag = "fused" if fused else "float"
    lib = os.path.join(work, f"{name}_{tag}.so")
    flags = [] if fused else ["--disable-pass=fuse-qdq"]
    ir = run(onnxc, ["compile", os.path.join(work, name + ".onnx"), "-o", lib,
                     "--print-after", "dce"] + flags)
    out = os.path.join(work, f"{name}_{tag}_out")
    os.makedirs(out, exist_ok=True)
    run(onnxc, ["run", lib, os.path.join(work, name + "_data"), "-o", out, "--threads", "3"])
    y = numpy_helper.to_array(onnx.load_tensor(os.path.join(out, "output_0.pb")))
    return ir, y


def check_ir(name, ir, fused):
    body = ir.split("// IR after dce", 1)[-1]
    qlinear = any(op in body for op in ("QLinearConv", "QLinearMatMul", "QGemm"))
    float_op = any(f"= {op}(" in body for op in ("Conv", "MatMul", "Gemm"))
    if fused and not qlinear:
        sys.exit(f"FAIL: {name}: fuse-qdq did not fuse:\n{body}")
    if not fused and qlinear:
        sys.exit(f"FAIL: {name}: --disable-pass=fuse-qdq still fused")
    if fused and float_op:
        sys.exit(f"FAIL: {name}: a float Conv/MatMul/Gemm is left after fusion:\n{body}")


def check_case(onnxc, work, name, model, x, y_quant, reference=None):
    y_scale, y_zp, lo, hi = y_quant
    onnx.save(model, os.path.join(work, name + ".onnx"))
    data = os.path.join(work, name + "_data")
    os.makedirs(data, exist_ok=True)
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(data, "input_0.pb"))
    results = {}
    for fused in (True, False):
        ir, y = compile_and_run(onnxc, work, name, fused)
        check_ir(name, ir, fused)
        results[fused] = y
    diff = np.abs(results[True] - results[False]).max() / y_scale
    ok = diff <= 1.0 + 1e-4
    msg = f"{name}: fused vs float max diff {diff:.3f} quanta"
    if reference is not None:
        for fused in (True, False):
            d = np.abs(results[fused] - reference).max() / y_scale
            msg += f", {'fused' if fused else 'float'} vs numpy {d:.3f}"
            ok = ok and d <= 1.0 + 1e-4
    # Most outputs must lie inside the quantised range, or the comparison says little.
    yq = np.rint(results[True] / y_scale) + y_zp
    inside = np.count_nonzero((yq > lo) & (yq < hi)) / yq.size
    ok = ok and inside > 0.9
    print(("PASS " if ok else "FAIL ") + msg + f" ({inside:.0%} of outputs unsaturated)")
    return ok


def main():
    onnxc, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    ok = True
    for per_channel, bias, group in [(True, True, 1), (False, False, 2), (True, False, 2),
                                     (False, True, 1)]:
        name, model = conv_model(per_channel, bias, group)
        x = RNG.uniform(-6, 6, size=(2, 4, 12, 11)).astype(np.float32)
        ok = check_case(onnxc, work, name, model, x, (0.3, 128, 0, 255)) and ok
    for per_column in (False, True):
        name, model, ref = matmul_model(per_column)
        x = RNG.uniform(-6, 6, size=(2, 5, 40)).astype(np.float32)
        ok = check_case(onnxc, work, name, model, x, (0.3, -5, -128, 127),
                        matmul_reference(x, ref)) and ok
    # alpha=2 (a Python int) is written as an INT attribute, which ONNX readers accept for a
    # float attribute: regression for fuse-qdq reading it as the default 1.
    for per_column, alpha in ((True, 1.0), (False, 0.5), (True, 2)):
        name, model, ref = gemm_model(per_column, alpha)
        x_range = 6 / alpha if isinstance(alpha, int) else 6  # keep alpha*x*b mostly unsaturated
        x = RNG.uniform(-x_range, x_range, size=(6, 40)).astype(np.float32)
        ok = check_case(onnxc, work, name, model, x, (0.3, -5, -128, 127),
                        matmul_reference(x, ref)) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
