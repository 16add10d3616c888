#!/usr/bin/python3
"""Checks of the CUDA target that the normal test suite runs (tests/cuda/CMakeLists.txt).

    cuda_checks.py templates   ONNXC WORK   every kernel family NVRTC-compiled for sm_80 and
                                           sm_90 (no GPU needed); on a GPU also run and
                                           compared with numpy
    cuda_checks.py no_gpu      ONNXC WORK   a --target cuda library's DT_NEEDED is libc/libm
                                           only; without a GPU onnxc_create fails with a
                                           message naming the driver and --target cpu,cuda,
                                           and a cpu,cuda library runs on the CPU and matches
    cuda_checks.py flags       ONNXC WORK   bad --cuda-arch / --target combinations are refused
                                           with a message and a non-zero exit
    cuda_checks.py conformance ONNXC WORK TESTDATA
                                           (GPU only, else skipped with 77) the node cases and
                                           real models exported and run on the GPU: at least
                                           90% of the CPU-passing cases must pass
Uses /usr/bin/python3 with python3-onnx and python3-numpy.
"""
import ctypes
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_exported  # noqa: E402

SKIP = 77


def gpu_present():
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    n = ctypes.c_int(0)
    return cu.cuInit(0) == 0 and cu.cuDeviceGetCount(ctypes.byref(n)) == 0 and n.value > 0


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return r.returncode, r.stdout + r.stderr


def model(nodes, inputs, outputs, inits, path):
    g = helper.make_graph(nodes, "m", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(m, path)
    return path


def vi(name, shape, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, shape)


def conv_ref(x, w, b, stride=1, pad=1, groups=1):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, m, oh, ow), np.float64)
    mg = m // groups
    for co in range(m):
        g = co // mg
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, i:i + stride * oh:stride, j:j + stride * ow:stride]
                y[:, co] += np.einsum("nchw,c->nhw", patch, w[co, :, i, j])
    return y + b.reshape(1, -1, 1, 1)


def template_models(work):
    """Models that reach every kernel family of the CUDA target, with numpy references."""
    rng = np.random.default_rng(7)
    f = lambda *s: rng.standard_normal(s).astype(np.float32)
    cases = []
    # Conv + bias + Relu, split-K (K = 4608, 49 pixels) with a residual; depthwise (direct);
    # GlobalAveragePool; Gemm (transB); Softmax.
    x, w1, b1 = f(1, 512, 7, 7), f(512, 512, 3, 3) * 0.02, f(512)
    w2, b2 = f(512, 1, 3, 3) * 0.3, f(512)
    wf, bf = f(10, 512) * 0.05, f(10)
    p = model([helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
               helper.make_node("Add", ["c1", "x"], ["r"]),
               helper.make_node("Relu", ["r"], ["a"]),
               helper.make_node("Conv", ["a", "w2", "b2"], ["d"], pads=[1, 1, 1, 1], group=512),
               helper.make_node("GlobalAveragePool", ["d"], ["gp"]),
               helper.make_node("Flatten", ["gp"], ["fl"]),
               helper.make_node("Gemm", ["fl", "wf", "bf"], ["g"], transB=1),
               helper.make_node("Softmax", ["g"], ["y"])],
              [vi("x", [1, 512, 7, 7])], [vi("y", [1, 10])],
              [numpy_helper.from_array(v, k) for k, v in
               dict(w1=w1, b1=b1, w2=w2, b2=b2, wf=wf, bf=bf).items()],
              os.path.join(work, "convnet.onnx"))
    a = np.maximum(conv_ref(x, w1, b1) + x, 0)
    d = conv_ref(a, w2, b2, groups=512)
    g = d.mean(axis=(2, 3)) @ wf.T.astype(np.float64) + bf
    e = np.exp(g - g.max(axis=1, keepdims=True))
    cases.append(("convnet", p, [x], [e / e.sum(axis=1, keepdims=True)]))
    # Batched MatMul (split-K: 128x256 over K = 1024) with a bias and Gelu, LayerNormalization,
    # Transpose, Split, Concat, Slice, Gather, ReduceMean, MaxPool, Where, element-wise chains.
    q, wm, bm = f(2, 128, 1024), f(1024, 256) * 0.03, f(256)
    sc, sb = f(256), f(256)
    idx = np.array([3, 0, 255, 7], np.int64)
    p = model([helper.make_node("MatMul", ["q", "wm"], ["mm"]),
               helper.make_node("Add", ["mm", "bm"], ["mb"]),
               helper.make_node("LayerNormalization", ["mb", "sc", "sb"], ["ln"], axis=-1),
               helper.make_node("Transpose", ["ln"], ["tr"], perm=[0, 2, 1]),
               helper.make_node("Split", ["tr"], ["s0", "s1"], axis=1, num_outputs=2),
               helper.make_node("Concat", ["s1", "s0"], ["cc"], axis=1),
               helper.make_node("Gather", ["cc", "idx"], ["ga"], axis=1),
               helper.make_node("ReduceMean", ["ga"], ["rm"], axes=[2], keepdims=0),
               helper.make_node("Sigmoid", ["rm"], ["sg"]),
               helper.make_node("Greater", ["sg", "half"], ["gt"]),
               helper.make_node("Where", ["gt", "sg", "rm"], ["y"])],
              [vi("q", [2, 128, 1024])], [vi("y", [2, 4])],
              [numpy_helper.from_array(v, k) for k, v in
               dict(wm=wm, bm=bm, sc=sc, sb=sb, idx=idx,
                    half=np.array(0.5, np.float32)).items()],
              os.path.join(work, "matnet.onnx"))
    mb = q.astype(np.float64) @ wm + bm
    mu = mb.mean(-1, keepdims=True)
    ln = (mb - mu) / np.sqrt(mb.var(-1, keepdims=True) + 1e-5) * sc + sb
    tr = ln.transpose(0, 2, 1)
    cc = np.concatenate([tr[:, 128:], tr[:, :128]], axis=1)
    rm = cc[:, idx].mean(axis=2)
    sg = 1 / (1 + np.exp(-rm))
    cases.append(("matnet", p, [q], [np.where(sg > 0.5, sg, rm)]))
    # A region without a CUDA kernel (CumSum) between GPU kernels: a host region.
    v = f(4, 1000)
    p = model([helper.make_node("Relu", ["v"], ["r"]),
               helper.make_node("CumSum", ["r", "ax"], ["cs"]),
               helper.make_node("MaxPool", ["cs4"], ["mp"], kernel_shape=[2, 2], strides=[2, 2]),
               helper.make_node("Reshape", ["cs", "shp"], ["cs4"]),
               helper.make_node("Neg", ["mp"], ["y"])],
              [vi("v", [4, 1000])], [vi("y", [1, 4, 25, 10])],
              [numpy_helper.from_array(np.array(1, np.int64), "ax"),
               numpy_helper.from_array(np.array([1, 4, 50, 20], np.int64), "shp")],
              os.path.join(work, "hostnet.onnx"))
    cs = np.cumsum(np.maximum(v, 0), axis=1).reshape(1, 4, 50, 20)
    mp = cs.reshape(1, 4, 25, 2, 10, 2).max(axis=(3, 5))
    cases.append(("hostnet", p, [v], [-mp]))
    # Regressions of review findings: Conv + its own input as the residual (the output must not
    # take the input's buffer), a fused Clip with min > max (max wins), an AveragePool window
    # of padding only (0, not NaN), Pow of an int base by a float exponent; integer Div of MIN
    # by -1 (wraps) and by 0 (0), integer Pow by squaring (int64 3^39 is beyond a double's 53
    # bits; the GPU's pow was also off by an ulp).
    x = f(1, 8, 6, 6)
    i32 = np.iinfo(np.int32).min
    xd, yd = np.array([i32, 3, -2, 7], np.int32), np.array([-1, 0, 3, -1], np.int32)
    xp, ep = np.array([3, -2, 2, 5], np.int32), np.array([4, 3, 30, -1], np.int32)
    xq, eq = np.array([3, -3, 7, -1], np.int64), np.array([39, 3, 0, -5], np.int64)
    w, b, w2 = f(8, 8, 3, 3) * 0.2, f(8), f(8, 8, 1, 1)
    xi, ex = np.array([4, 9, 16, 25], np.int32), np.array([0.5], np.float32)
    p = model([helper.make_node("Relu", ["x"], ["r"]),
               helper.make_node("Conv", ["r", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
               helper.make_node("Add", ["c", "r"], ["a1"]),
               helper.make_node("Neg", ["a1"], ["y1"]),
               helper.make_node("Conv", ["x", "w2"], ["c2"]),
               helper.make_node("Clip", ["c2", "six", "zero"], ["y2"]),
               helper.make_node("AveragePool", ["x"], ["y3"], kernel_shape=[1, 1],
                                pads=[1, 1, 1, 1]),
               helper.make_node("Pow", ["xi", "ex"], ["y4"]),
               helper.make_node("Div", ["xd", "yd"], ["y5"]),
               helper.make_node("Pow", ["xp", "ep"], ["y6"]),
               helper.make_node("Pow", ["xq", "eq"], ["y7"])],
              [vi("x", [1, 8, 6, 6]), vi("xi", [4], TensorProto.INT32),
               vi("xd", [4], TensorProto.INT32), vi("xp", [4], TensorProto.INT32),
               vi("xq", [4], TensorProto.INT64)],
              [vi("y1", [1, 8, 6, 6]), vi("y2", [1, 8, 6, 6]), vi("y3", [1, 8, 8, 8]),
               vi("y4", [4], TensorProto.INT32), vi("y5", [4], TensorProto.INT32),
               vi("y6", [4], TensorProto.INT32), vi("y7", [4], TensorProto.INT64)],
              [numpy_helper.from_array(v, k) for k, v in
               dict(w=w, b=b, w2=w2, six=np.array(6, np.float32),
                    zero=np.array(0, np.float32), ex=ex, yd=yd, ep=ep, eq=eq).items()],
              os.path.join(work, "fixes.onnx"))
    r = np.maximum(x, 0)
    y3 = np.zeros((1, 8, 8, 8))
    y3[:, :, 1:7, 1:7] = x
    cases.append(("fixes", p, [x, xi, xd, xp, xq], [-(conv_ref(r, w, b) + r), np.zeros((1, 8, 6, 6)), y3,
                                        np.array([2, 3, 4, 5], np.int32),
                                        np.array([i32, 0, 0, -7], np.int32),
                                        np.array([81, -8, 1 << 30, 0], np.int32),
                                        np.array([3 ** 39, -27, 1, -1], np.int64)]))
    # Products whose sizes are no multiple of the tiles (64) or of the tensor cores' K steps
    # (8, 16, 32): Gemm with transA (A k-major), MatMul with a transposed weight (B contiguous
    # in k) and a bias, a strided Conv with 20 output channels (K = 216), batched MatMul.
    xa, wg, bg = f(70, 100), f(70, 33) * 0.1, f(33)
    wt, bt = f(40, 33) * 0.2, f(40)
    xc, wc, bc = f(1, 24, 13, 13), f(20, 24, 3, 3) * 0.1, f(20)
    xb, wb = f(3, 37, 45), f(3, 45, 70) * 0.1
    p = model([helper.make_node("Gemm", ["xa", "wg", "bg"], ["g"], transA=1),
               helper.make_node("Relu", ["g"], ["gr"]),
               helper.make_node("Gemm", ["gr", "wt", "bt"], ["y1"], transB=1),
               helper.make_node("Conv", ["xc", "wc", "bc"], ["y2"], pads=[1, 1, 1, 1],
                                strides=[2, 2]),
               helper.make_node("MatMul", ["xb", "wb"], ["y3"])],
              [vi("xa", [70, 100]), vi("xc", [1, 24, 13, 13]), vi("xb", [3, 37, 45])],
              [vi("y1", [100, 40]), vi("y2", [1, 20, 7, 7]), vi("y3", [3, 37, 70])],
              [numpy_helper.from_array(v, k) for k, v in
               dict(wg=wg, bg=bg, wt=wt, bt=bt, wc=wc, bc=bc, wb=wb).items()],
              os.path.join(work, "oddnet.onnx"))
    gr = np.maximum(xa.T.astype(np.float64) @ wg + bg, 0)
    cases.append(("oddnet", p, [xa, xc, xb],
                  [gr @ wt.T + bt, conv_ref(xc, wc, bc, stride=2),
                   xb.astype(np.float64) @ wb]))
    # A product large enough for the tensor cores' 128x128 tiles (528 tiles of 64x64: 4 x 12 x
    # 11), K = 40 (no multiple of the K step), N = 700 (no multiple of 128), followed by a small
    # product that mixes every column of a row (a wrong place within a row shows).
    # And a Gemm with both operands transposed, 1500 x 1400 (24 x 22 tiles of 64; tails in both
    # at 128), K = 24.
    xg, wgb, vg = f(4, 768, 40), f(40, 700) * 0.2, f(700, 3) * 0.05
    xh, wh, vh = f(24, 1500), f(1400, 24) * 0.2, f(1400, 2) * 0.05
    p = model([helper.make_node("MatMul", ["xg", "wgb"], ["h"]),
               helper.make_node("MatMul", ["h", "vg"], ["y"]),
               helper.make_node("Gemm", ["xh", "wh"], ["hh"], transA=1, transB=1),
               helper.make_node("MatMul", ["hh", "vh"], ["y2"])],
              [vi("xg", [4, 768, 40]), vi("xh", [24, 1500])],
              [vi("y", [4, 768, 3]), vi("y2", [1500, 2])],
              [numpy_helper.from_array(v, k) for k, v in
               dict(wgb=wgb, vg=vg, wh=wh, vh=vh).items()],
              os.path.join(work, "bignet.onnx"))
    cases.append(("bignet", p, [xg, xh], [xg.astype(np.float64) @ wgb @ vg,
                                          xh.T.astype(np.float64) @ wh.T @ vh]))
    # Products with enough 64x64 tiles not to split K (>= 132), sizes no multiple of the tiles
    # or of the K steps: Gemm with transA (A k-major) 700x900 over K = 45, MatMul with a
    # transposed weight (B contiguous in k), a Conv with 80 output channels over 4 x 40 x 40
    # pixels (K = 144, its input gathered); each followed by a small product that mixes a
    # row's columns (a wrong place within a row shows).
    xt, wt1, wt2 = f(45, 700), f(45, 900) * 0.2, f(900, 3) * 0.05
    xu, wu1, wu2 = f(2, 600, 70), f(520, 70) * 0.2, f(520, 2) * 0.05
    xc2, wc1, bc1, wc2 = f(4, 16, 40, 40), f(80, 16, 3, 3) * 0.1, f(80), f(2, 80, 3, 3) * 0.05
    wc3, bc3, wc4 = f(160, 8, 3, 3) * 0.15, f(160), f(2, 160, 3, 3) * 0.05
    p = model([helper.make_node("Gemm", ["xt", "wt1"], ["g"], transA=1),
               helper.make_node("MatMul", ["g", "wt2"], ["y1"]),
               helper.make_node("Gemm", ["xu2", "wu1"], ["u"], transB=1),
               helper.make_node("Reshape", ["xu", "s2"], ["xu2"]),
               helper.make_node("MatMul", ["u", "wu2"], ["y2"]),
               helper.make_node("Conv", ["xc2", "wc1", "bc1"], ["c"], pads=[1, 1, 1, 1]),
               helper.make_node("Conv", ["c", "wc2"], ["y3"], pads=[1, 1, 1, 1],
                                strides=[2, 2]),
               # grouped (2 x 80 channels over 8 each, K = 72), strided, Relu in its epilogue
               helper.make_node("Conv", ["xc2", "wc3", "bc3"], ["c3"], pads=[1, 1, 1, 1],
                                strides=[2, 2], group=2),
               helper.make_node("Relu", ["c3"], ["r3"]),
               helper.make_node("Conv", ["r3", "wc4"], ["y4"], pads=[1, 1, 1, 1],
                                strides=[2, 2])],
              [vi("xt", [45, 700]), vi("xu", [2, 600, 70]), vi("xc2", [4, 16, 40, 40])],
              [vi("y1", [700, 3]), vi("y2", [1200, 2]), vi("y3", [4, 2, 20, 20]),
               vi("y4", [4, 2, 10, 10])],
              [numpy_helper.from_array(v, k) for k, v in
               dict(wt1=wt1, wt2=wt2, wu1=wu1, wu2=wu2, wc1=wc1, bc1=bc1, wc2=wc2, wc3=wc3,
                    bc3=bc3, wc4=wc4, s2=np.array([1200, 70], np.int64)).items()],
              os.path.join(work, "tcnet.onnx"))
    c = conv_ref(xc2, wc1, bc1)
    r3 = np.maximum(conv_ref(xc2, wc3, bc3, stride=2, groups=2), 0)
    cases.append(("tcnet", p, [xt, xu, xc2],
                  [xt.T.astype(np.float64) @ wt1 @ wt2,
                   xu.reshape(1200, 70).astype(np.float64) @ wu1.T @ wu2,
                   conv_ref(c, wc2, np.zeros(2), stride=2),
                   conv_ref(r3, wc4, np.zeros(2), stride=2)]))
    cases.append(control_flow_case(work, f))
    return cases


def control_flow_case(work, f):
    """If on a condition the GPU computes, a Loop whose trip count is an input and whose
    condition its body computes (a while loop), and a Scan (a running sum over 6 steps): the run
    reads the conditions and counts back from the GPU (no graph)."""
    x = f(4, 5)
    T = TensorProto.FLOAT
    # If: sum(x) > 0 ? Relu(x) * 2 : -x
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"]),
                                helper.make_node("Mul", ["r", "two"], ["ib"])],
                               "then", [], [vi("ib", [4, 5])])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["ib"])], "else", [],
                               [vi("ib", [4, 5])])
    # Loop: v = v * 0.5 + |x| while the iteration < M and sum(v) < 20 (ends before M = 9)
    body = helper.make_graph(
        [helper.make_node("Mul", ["v_in", "half"], ["vh"]),
         helper.make_node("Add", ["vh", "xa"], ["v_out"]),
         helper.make_node("ReduceSum", ["v_out"], ["sv"], keepdims=0),
         helper.make_node("Less", ["sv", "limit"], ["c_out"])],
        "body", [vi("i", [], TensorProto.INT64), vi("c_in", [], TensorProto.BOOL),
                 vi("v_in", [4, 5])], [vi("c_out", [], TensorProto.BOOL), vi("v_out", [4, 5])])
    # Scan over 6 rows: acc += row; output acc per step
    sbody = helper.make_graph([helper.make_node("Add", ["acc_in", "row"], ["acc_out"]),
                               helper.make_node("Identity", ["acc_out"], ["step"])],
                              "sbody", [vi("acc_in", [3]), vi("row", [3])],
                              [vi("acc_out", [3]), vi("step", [3])])
    xs, acc0 = f(6, 3), np.zeros(3, np.float32)
    nodes = [helper.make_node("ReduceSum", ["x"], ["sx"], keepdims=0),
             helper.make_node("Greater", ["sx", "zero"], ["pos"]),
             helper.make_node("If", ["pos"], ["y1"], then_branch=then_g, else_branch=else_g),
             helper.make_node("Abs", ["x"], ["xa"]),
             helper.make_node("Loop", ["m", "true", "v0"], ["y2"], body=body),
             helper.make_node("Scan", ["acc0", "xs"], ["y3", "y4"], body=sbody,
                              num_scan_inputs=1)]
    inits = dict(two=np.array(2, np.float32), zero=np.array(0, np.float32),
                 half=np.array(0.5, np.float32), limit=np.array(20, np.float32),
                 true=np.array(True), v0=np.zeros((4, 5), np.float32), acc0=acc0)
    p = model(nodes, [vi("x", [4, 5]), vi("m", [], TensorProto.INT64), vi("xs", [6, 3])],
              [vi("y1", [4, 5]), vi("y2", [4, 5]), vi("y3", [3]), vi("y4", [6, 3])],
              [numpy_helper.from_array(v, k) for k, v in inits.items()],
              os.path.join(work, "flownet.onnx"))
    m = np.array(9, np.int64)
    y1 = np.maximum(x, 0) * 2 if x.sum() > 0 else -x
    v = np.zeros((4, 5))
    for _ in range(int(m)):
        v = v * 0.5 + np.abs(x)
        if not v.sum() < 20:
            break
    return ("flownet", p, [x, m, xs], [y1, v, xs.sum(0), np.cumsum(xs, 0)])


# --precision modes: the products on tensor cores with operands rounded to the type; the
# largest error allowed, relative to the output's scale (float32's unit roundoff is 6e-8,
# tf32's and fp16's 4.9e-4, bf16's 3.9e-3).
PRECISIONS = {"tf32": ("kTf32", 1e-2), "fp16": ("kFp16", 1e-2), "bf16": ("kBf16", 5e-2)}
# name -> products on tensor cores: tcnet and bignet's large ones (bignet's in 128x128 tiles);
# oddnet's whose K (<= 70) is too short to split; none of matnet's, whose K is split.
PRECISION_CASES = {"matnet": 0, "oddnet": 3, "tcnet": 4, "bignet": 2}


UNARY_ANY = ["Relu", "Abs", "Neg", "Sign", "Identity"]
UNARY_FLOAT = ["Exp", "Log", "Sqrt", "Tanh", "Erf", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan",
               "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Floor", "Ceil", "Round", "Reciprocal",
               "Sigmoid", "Softplus", "Softsign", "Elu", "Selu", "Celu", "LeakyRelu",
               "ThresholdedRelu", "HardSigmoid", "HardSwish", "Mish", "Gelu", "Shrink", "IsNaN",
               "IsInf"]
BINARY = ["Add", "Sub", "Mul", "Div", "Max", "Min", "Pow", "Equal", "Less", "Greater",
          "LessOrEqual", "GreaterOrEqual", "PRelu", "Mod"]
BINARY_INT = ["Add", "Sub", "Mul", "Div", "Max", "Min", "Equal", "Less", "Greater", "Mod",
              "BitwiseAnd", "BitwiseOr", "BitwiseXor"]


def elementwise_model(work):
    """One node per element-wise op of the CUDA target, on float, double and int32 tensors (the
    float ones broadcasting), so that every u_/b_ template is instantiated for NVRTC."""
    nodes, inputs, outputs = [], [], []
    for t, suffix in ((TensorProto.FLOAT, "f"), (TensorProto.DOUBLE, "d"),
                      (TensorProto.INT32, "i")):
        a, b = "a" + suffix, "b" + suffix
        inputs += [vi(a, [4, 8], t), vi(b, [8] if t != TensorProto.INT32 else [4, 8], t)]
        ops = [(op, [a]) for op in UNARY_ANY]
        if t != TensorProto.INT32:
            ops += [(op, [a]) for op in UNARY_FLOAT]
        ops += [(op, [a, b]) for op in (BINARY if t != TensorProto.INT32 else BINARY_INT)]
        for k, (op, ins) in enumerate(ops):
            out = f"y_{suffix}_{k}_{op}"
            attrs = {"fmod": 1} if op == "Mod" and t != TensorProto.INT32 else {}
            nodes.append(helper.make_node(op, ins, [out], **attrs))
            logical = op in ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
                             "IsNaN", "IsInf")
            shape = [4, 8]
            outputs.append(vi(out, shape, TensorProto.BOOL if logical else t))
    g = helper.make_graph(nodes, "ew", inputs, outputs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    path = os.path.join(work, "elementwise.onnx")
    onnx.save(m, path)
    return path, len(nodes)


def export_case(d, lib, ins, refs, tol=None):
    """The case as tests/cuda/run_exported.py runs it (for a GPU machine without onnxc)."""
    import shutil
    os.makedirs(d, exist_ok=True)
    shutil.copyfile(lib, os.path.join(d, "lib.so"))
    for k, a in enumerate(ins):
        np.save(os.path.join(d, f"input_{k}.npy"), a)
    for k, r in enumerate(refs):
        np.save(os.path.join(d, f"expected_{k}.npy"),
                r if r.dtype.kind in "iu" else r.astype(np.float32))
    scale = max([float(np.max(np.abs(r))) for r in refs if r.dtype.kind not in "iu"] + [1.0])
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump({"source": d, "rtol": tol or 1e-3, "atol": (tol or 1e-4) * max(scale, 1),
                   "inputs": [f"input_{k}.npy" for k in range(len(ins))],
                   "outputs": [f"expected_{k}.npy" for k in range(len(refs))]}, f)


def check_templates(onnxc, work):
    os.makedirs(work, exist_ok=True)
    gpu = gpu_present()
    failed = False
    ew, count = elementwise_model(work)
    code, out = run([onnxc, "compile", ew, "--target", "cuda", "--cuda-arch", "sm_80,sm_90",
                     "-o", os.path.join(work, "elementwise.so")])
    if code != 0 or "run on the host" in out:
        print(f"FAIL elementwise: every op should have a CUDA kernel:\n{out}")
        failed = True
    else:
        print(f"ok elementwise: {count} element-wise kernels NVRTC-compiled for sm_80 and sm_90")
    for name, path, ins, refs in template_models(work):
        lib = os.path.join(work, name + ".so")
        code, out = run([onnxc, "compile", path, "--target", "cuda", "--cuda-arch",
                         "sm_80,sm_90", "-o", lib])
        if code != 0:
            print(f"FAIL {name}: compile failed:\n{out}")
            failed = True
            continue
        if name == "fixes" and "(0 computed in place)" not in out:
            print(f"FAIL {name}: the Conv whose residual is its own input must not write its "
                  f"output over that input:\n{out}")
            failed = True
        if name == "hostnet" and "run on the host" not in out:
            print(f"FAIL {name}: the compile should report a host region:\n{out}")
            failed = True
        print(f"ok {name}: NVRTC compiled it for sm_80 and sm_90")
        export_case(os.path.join(work, "exported", name), lib, ins, refs)
        failed |= not gpu_matches(gpu, name, lib, ins, refs, 1e-4)
        if name not in PRECISION_CASES:
            continue
        for prec, (enum, tol) in PRECISIONS.items():
            tag = f"{name}_{prec}"
            lib = os.path.join(work, tag + ".so")
            src = os.path.join(work, tag + ".cu")
            code, out = run([onnxc, "compile", path, "--target", "cuda", "--cuda-arch",
                             "sm_80,sm_90", "--precision", prec, "--emit-cuda", src, "-o", lib])
            if code != 0:
                print(f"FAIL {tag}: compile failed:\n{out}")
                failed = True
                continue
            with open(src) as f:
                text = f.read()
            calls = text.count(f"onnxc::gemm_tile_tc<onnxc::{enum},")
            if calls != PRECISION_CASES[name] or (name == "bignet") != (", 128, 128>(" in text):
                print(f"FAIL {tag}: {calls} products on tensor cores ({enum}), expected "
                      f"{PRECISION_CASES[name]}; 128x128 tiles: {', 128, 128>(' in text}")
                failed = True
                continue
            print(f"ok {tag}: {calls} products on tensor cores, NVRTC-compiled for sm_80, sm_90")
            export_case(os.path.join(work, "exported", tag), lib, ins, refs, tol)
            failed |= not gpu_matches(gpu, tag, lib, ins, refs, tol)
    return 1 if failed else 0


def gpu_matches(gpu, name, lib, ins, refs, tol):
    """On a GPU: runs the library and compares with the references (max abs error within
    tol x the output's scale, at least 1). Without one: True."""
    if not gpu:
        return True
    got = run_model(lib, ins, [r.shape for r in refs],
                    dtypes=[r.dtype if r.dtype.kind in "iu" else np.float32 for r in refs])
    ok = True
    for g, r in zip(got, refs):
        err = float(np.max(np.abs(g.astype(np.float64) - r))) if r.dtype.kind not in "iu" \
            else float(np.count_nonzero(g != r))  # integers: the number that differ
        scale = float(np.max(np.abs(r)))
        if not err <= tol * max(scale, 1):
            print(f"FAIL {name}: max abs error {err:.3g} (scale {scale:.3g})")
            ok = False
        else:
            print(f"ok {name}: on the GPU, max abs error {err:.3g}")
    return ok


def load_lib(path):
    lib = ctypes.CDLL(os.path.abspath(path))
    lib.onnxc_create.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    lib.onnxc_last_error.restype = ctypes.c_char_p
    lib.onnxc_last_error.argtypes = [ctypes.c_void_p]
    lib.onnxc_backend.restype = ctypes.c_char_p
    lib.onnxc_backend.argtypes = [ctypes.c_void_p]
    lib.onnxc_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(run_exported.Tensor), ctypes.c_int32,
                              ctypes.POINTER(run_exported.Tensor), ctypes.c_int32]
    lib.onnxc_destroy.argtypes = [ctypes.c_void_p]
    return lib


def run_model(path, ins, out_shapes, backend=None, dtypes=None):
    lib = load_lib(path)
    ctx = ctypes.c_void_p()
    if lib.onnxc_create(ctypes.byref(ctx)) != 0:
        raise RuntimeError(lib.onnxc_last_error(None).decode())
    if backend and lib.onnxc_backend(ctx).decode() != backend:
        raise RuntimeError(f"runs on {lib.onnxc_backend(ctx).decode()}, expected {backend}")
    outs = [np.zeros(s, dt) for s, dt in zip(out_shapes, dtypes or [np.float32] * len(out_shapes))]
    tin = (run_exported.Tensor * len(ins))(*[run_exported.tensor(a) for a in ins])
    tout = (run_exported.Tensor * len(outs))(*[run_exported.tensor(a) for a in outs])
    if lib.onnxc_run(ctx, tin, len(ins), tout, len(outs)) != 0:
        raise RuntimeError(lib.onnxc_last_error(ctx).decode())
    lib.onnxc_destroy(ctx)
    return outs


def needed_libs(path):
    for tool in ("llvm-readelf-19", "llvm-readelf", "readelf"):
        code, out = run([tool, "-d", path]) if any(
            os.access(os.path.join(d, tool), os.X_OK) for d in
            os.environ.get("PATH", "").split(":") + ["/usr/lib/llvm-19/bin"]) else (1, "")
        if code == 0:
            return sorted(line.split("[")[1].split("]")[0] for line in out.splitlines()
                          if "(NEEDED)" in line)
    raise RuntimeError("no readelf found")


def check_no_gpu(onnxc, work):
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 8, 16, 16)).astype(np.float32)
    w = (rng.standard_normal((16, 8, 3, 3)) * 0.2).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    path = model([helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                  helper.make_node("Relu", ["c"], ["y"])],
                 [vi("x", [1, 8, 16, 16])], [vi("y", [1, 16, 16, 16])],
                 [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
                 os.path.join(work, "small.onnx"))
    ref = np.maximum(conv_ref(x, w, b), 0)
    failed = False
    for target in ("cuda", "cpu,cuda"):
        lib = os.path.join(work, target.replace(",", "_") + ".so")
        code, out = run([onnxc, "compile", path, "--target", target, "-o", lib])
        if code != 0:
            print(f"FAIL --target {target}: {out}")
            return 1
        needed = needed_libs(lib)
        if not set(needed) <= {"libc.so.6", "libm.so.6"}:
            print(f"FAIL --target {target}: DT_NEEDED {needed}")
            failed = True
        else:
            print(f"ok --target {target}: DT_NEEDED {needed}")
    # onnxc itself starts without a driver: NVRTC only, never libcuda (a regression: the
    # CUDA::nvrtc CMake target also linked the driver, which clang's linker kept)
    if "libcuda.so.1" in needed_libs(onnxc):
        print(f"FAIL: {onnxc} needs libcuda.so.1")
        failed = True
    gpu = gpu_present()
    try:
        got = run_model(os.path.join(work, "cuda.so"), [x], [ref.shape])
        if not gpu:
            print("FAIL: a --target cuda library ran without a GPU")
            failed = True
        elif float(np.max(np.abs(got[0] - ref))) > 1e-4:
            print("FAIL: wrong result on the GPU")
            failed = True
    except RuntimeError as e:
        msg = str(e)
        if gpu:
            print(f"FAIL: with a GPU, onnxc_create failed: {msg}")
            failed = True
        elif "libcuda.so.1" not in msg or "--target cpu,cuda" not in msg:
            print(f"FAIL: unclear message without a GPU: {msg}")
            failed = True
        else:
            print(f"ok: without a GPU onnxc_create says: {msg}")
    got = run_model(os.path.join(work, "cpu_cuda.so"), [x], [ref.shape],
                    backend="cuda" if gpu else "cpu")
    err = float(np.max(np.abs(got[0] - ref)))
    if err > 1e-4:
        print(f"FAIL: --target cpu,cuda result off by {err}")
        failed = True
    else:
        print(f"ok: --target cpu,cuda runs on {'the GPU' if gpu else 'the CPU'}, error {err:.3g}")
    # onnxc_run_device: UNSUPPORTED, with a message, where the model runs on the CPU (a CPU
    # library; a cpu,cuda library without a GPU); NULL buffers are INVALID_ARGUMENT
    cpu_lib = os.path.join(work, "cpu.so")
    code, out = run([onnxc, "compile", path, "-o", cpu_lib])
    checks = [(cpu_lib, 9, "no GPU code")]
    if not gpu:
        checks.append((os.path.join(work, "cpu_cuda.so"), 9, "runs on the CPU"))
    else:
        checks.append((os.path.join(work, "cpu_cuda.so"), 1, "device pointer is NULL"))
    for lib_path, want, text in checks:
        lib = load_lib(lib_path)
        lib.onnxc_run_device.argtypes = [ctypes.c_void_p] * 4
        ctx = ctypes.c_void_p()
        if code != 0 or lib.onnxc_create(ctypes.byref(ctx)) != 0:
            print(f"FAIL: {lib_path}: {out}")
            failed = True
            continue
        nulls = (ctypes.c_void_p * 1)()
        st = lib.onnxc_run_device(ctx, None, nulls, nulls)
        msg = lib.onnxc_last_error(ctx).decode()
        lib.onnxc_destroy(ctx)
        if st != want or text not in msg:
            print(f"FAIL: onnxc_run_device on {os.path.basename(lib_path)}: status {st}, {msg}")
            failed = True
        else:
            print(f"ok: onnxc_run_device on {os.path.basename(lib_path)}: status {st}, {msg}")
    return 1 if failed else 0


def check_flags(onnxc, work):
    os.makedirs(work, exist_ok=True)
    path = model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", [4])], [vi("y", [4])], [],
                 os.path.join(work, "relu.onnx"))
    sym = model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", ["n"])], [vi("y", ["n"])], [],
                os.path.join(work, "relu_sym.onnx"))
    # a Loop with a run-time trip count and a scan output: its length is the run's
    body = helper.make_graph([helper.make_node("Identity", ["c_in"], ["c_out"]),
                              helper.make_node("Cast", ["i"], ["f"], to=TensorProto.FLOAT)],
                             "body", [vi("i", [], TensorProto.INT64),
                                      vi("c_in", [], TensorProto.BOOL)],
                             [vi("c_out", [], TensorProto.BOOL), vi("f", [])])
    loop = model([helper.make_node("Loop", ["m", "t"], ["ys"], body=body)],
                 [vi("m", [], TensorProto.INT64)], [vi("ys", None)],
                 [numpy_helper.from_array(np.array(True), "t")],
                 os.path.join(work, "loop_scan.onnx"))
    lib = os.path.join(work, "x.so")
    expect = [
        ([loop, "--target", "cuda"], "values whose size the run decides (run-scoped data) are "
                                     "not supported with --target cuda"),
        ([path, "--target", "cuda", "--cuda-arch", "sm_20"], "not an architecture"),
        ([path, "--cuda-arch", "sm_90"], "--cuda-arch needs --target cuda"),
        ([path, "--target", "cuda", "--weights-file", os.path.join(work, "w.bin")],
         "--weights-file is not supported with --target cuda"),
        ([path, "--target", "cuda", "--emit", "obj"], "builds a shared library"),
        ([sym, "--target", "cuda"], "bind 'n' with --dim n=N"),
        ([path, "--precision", "fp16"], "--precision needs --target cuda"),
        ([path, "--target", "cuda", "--precision", "fp8"], "is not one of fp32, tf32, fp16, bf16"),
        ([path, "--target", "cuda", "--cuda-arch", "sm_75,sm_90", "--precision", "tf32"],
         "needs tensor cores of sm_80 or newer"),
    ]
    failed = False
    for args, want in expect:
        code, out = run([onnxc, "compile", *args, "-o", lib])
        if code == 0 or want not in out:
            print(f"FAIL {' '.join(args[1:])}: exit {code}, expected '{want}' in: {out.strip()}")
            failed = True
        else:
            print(f"ok {' '.join(args[1:])}: {out.strip().splitlines()[-1]}")
    return 1 if failed else 0


def check_conformance(onnxc, work, testdata):
    if not gpu_present():
        print("no GPU: skipped")
        return SKIP
    out = os.path.join(work, "cases")
    code, text = run([sys.executable, os.path.join(HERE, "export_cases.py"), "--onnxc", onnxc,
                      "--testdata", testdata, "--out", out])
    print(text)
    with open(os.path.join(out, "compile.json")) as f:
        compiled = json.load(f)
    res = os.path.join(work, "results.json")
    run([sys.executable, os.path.join(HERE, "run_exported.py"), out, "--backend", "cuda",
         "--json", res])
    with open(res) as f:
        results = json.load(f)
    cases = {k.split("/")[0] + "/" + k.split("/")[1] for k in results}
    passed = {c for c in cases
              if all(v["status"] == "PASS" for k, v in results.items() if k.startswith(c + "/"))}
    total = len(compiled)
    print(f"{len(passed)} of {total} CPU-passing cases pass on the GPU")
    for k, v in sorted(results.items()):
        if v["status"] != "PASS":
            print(f"  {v['status']} {k}: {v['detail']}")
    return 0 if len(passed) >= 0.9 * total else 1


def main():
    what, onnxc, work = sys.argv[1], sys.argv[2], sys.argv[3]
    if what == "templates":
        return check_templates(onnxc, work)
    if what == "no_gpu":
        return check_no_gpu(onnxc, work)
    if what == "flags":
        return check_flags(onnxc, work)
    if what == "conformance":
        return check_conformance(onnxc, work, sys.argv[4])
    print(f"unknown check {what}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
