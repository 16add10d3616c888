#!/usr/bin/python3
"""Writes LSTM/GRU/RNN test cases with numpy reference outputs, in the ONNX backend-test layout.

For each case: OUT/<case>/model.onnx and OUT/<case>/test_data_set_0/{input,output}_N.pb, for
`onnxc verify`. The cases cover what the ONNX backend node cases do not: reverse and
bidirectional directions, layout=1, sequence_lens (including 0 and full lengths), initial states,
peepholes, clip, LSTM's input_forget, GRU's linear_before_reset, every activation with
activation_alpha/beta, omitted outputs, batches and sequences long enough for the packed GEMM
path (those named *packed* also with every forced --gemm-tile-rows), multi-threaded runs (the
GEMMs and the gate pass split over threads), and double precision. The reference is a plain
per-time-step numpy implementation of the ONNX operator definitions, computed in float64.
With --verify, each *packed* case is also compiled to a library whose GEMM micro-kernels are
counted (nm): one tile height's, at most MAX_MICRO_KERNELS, not every height and A layout.

Usage: make_cases.py OUT_DIR [--cell lstm|gru|rnn] [--verify ONNXC]
Writes the cases of one cell (default: all) and prints their names; with --verify, runs
`ONNXC verify` on each and exits 1 if any fails (the ctests recurrent.lstm/gru/rnn).
"""
import argparse
import os
import subprocess
import sys
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
DEFAULT_ACTS = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"], "RNN": ["Tanh"]}
# (number of attributes taken from activation_alpha/beta, default alpha, default beta)
ACT_ARGS = {"affine": (2, 1.0, 0.0), "leakyrelu": (1, 0.01, 0.0), "thresholdedrelu": (1, 1.0, 0.0),
            "scaledtanh": (2, 1.0, 1.0), "hardsigmoid": (2, 0.2, 0.5), "elu": (1, 1.0, 0.0)}


def act_fn(name, alpha, beta):
    n = name.lower()
    table = {
        "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
        "tanh": np.tanh,
        "relu": lambda x: np.maximum(x, 0.0),
        "affine": lambda x: alpha * x + beta,
        "leakyrelu": lambda x: np.where(x < 0, alpha * x, x),
        "thresholdedrelu": lambda x: np.where(x > alpha, x, 0.0),
        "scaledtanh": lambda x: alpha * np.tanh(beta * x),
        "hardsigmoid": lambda x: np.clip(alpha * x + beta, 0.0, 1.0),
        "elu": lambda x: np.where(x < 0, alpha * (np.exp(np.minimum(x, 0)) - 1.0), x),
        "softsign": lambda x: x / (1.0 + np.abs(x)),
        "softplus": lambda x: np.log1p(np.exp(x)),
    }
    return table[n]


def activations(op, attrs, dirs):
    """Per direction, the list of activation callables (alpha/beta consumed in order by the
    functions that take them, ONNX Runtime's reading of the spec)."""
    names = attrs.get("activations") or DEFAULT_ACTS[op] * dirs
    alphas = list(attrs.get("activation_alpha", []))
    betas = list(attrs.get("activation_beta", []))
    fns = []
    for name in names:
        uses, alpha, beta = ACT_ARGS.get(name.lower(), (0, 0.0, 0.0))
        if uses >= 1 and alphas:
            alpha = alphas.pop(0)
        if uses >= 2 and betas:
            beta = betas.pop(0)
        fns.append(act_fn(name, alpha, beta))
    per = len(DEFAULT_ACTS[op])
    return [fns[d * per:(d + 1) * per] for d in range(dirs)]


def reference(op, attrs, X, W, R, B=None, lens=None, h0=None, c0=None, P=None):
    """Y, Y_h, Y_c of the ONNX operator, in float64. Where the spec is silent this follows ONNX
    Runtime: Y_h and Y_c of a batch entry with sequence_lens 0 are zeros."""
    layout = attrs.get("layout", 0)
    X = X.astype(np.float64)
    if layout:
        X = X.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    S, N, _ = X.shape
    dirs, gh, H = R.shape
    clip = attrs.get("clip")
    cl = (lambda v: np.clip(v, -clip, clip)) if clip is not None else (lambda v: v)
    lens = np.full(N, S) if lens is None else lens
    Y = np.zeros((S, dirs, N, H))
    Yh = np.zeros((dirs, N, H))
    Yc = np.zeros((dirs, N, H))
    acts = activations(op, attrs, dirs)
    for d in range(dirs):
        f = acts[d][0]
        g = acts[d][1] if len(acts[d]) > 1 else None
        hf = acts[d][2] if len(acts[d]) > 2 else None
        Wd, Rd = W[d].astype(np.float64), R[d].astype(np.float64)
        bd = np.zeros(2 * gh) if B is None else B[d].astype(np.float64)
        wb, rb = bd[:gh], bd[gh:]
        h = np.zeros((N, H)) if h0 is None else h0[d].astype(np.float64).copy()
        c = np.zeros((N, H)) if c0 is None else c0[d].astype(np.float64).copy()
        rev = attrs.get("direction") == "reverse" or d == 1
        for t in (range(S - 1, -1, -1) if rev else range(S)):
            live = (t < lens)[:, None]
            xw = X[t] @ Wd.T + wb
            if op == "LSTM":
                hr = h @ Rd.T + rb
                pre = xw + hr
                p = np.zeros(3 * H) if P is None else P[d].astype(np.float64)
                i = f(cl(pre[:, :H] + p[:H] * c))
                ff = 1.0 - i if attrs.get("input_forget") else f(cl(pre[:, 2 * H:3 * H] + p[2 * H:] * c))
                cn = ff * c + i * g(cl(pre[:, 3 * H:]))
                o = f(cl(pre[:, H:2 * H] + p[H:2 * H] * cn))
                hn = o * hf(cn)
                c = np.where(live, cn, c)
            elif op == "GRU":
                z = f(cl(xw[:, :H] + h @ Rd[:H].T + rb[:H]))
                r = f(cl(xw[:, H:2 * H] + h @ Rd[H:2 * H].T + rb[H:2 * H]))
                if attrs.get("linear_before_reset"):
                    hh = g(cl(xw[:, 2 * H:] + r * (h @ Rd[2 * H:].T + rb[2 * H:])))
                else:
                    hh = g(cl(xw[:, 2 * H:] + (r * h) @ Rd[2 * H:].T + rb[2 * H:]))
                hn = (1.0 - z) * hh + z * h
            else:
                hn = f(cl(xw + h @ Rd.T + rb))
            h = np.where(live, hn, h)
            Y[t, d] = np.where(live, hn, 0.0)
        empty = (lens == 0)[:, None]  # ONNX Runtime: no last state, zeros
        Yh[d], Yc[d] = np.where(empty, 0.0, h), np.where(empty, 0.0, c)
    if layout:
        return Y.transpose(2, 0, 1, 3), Yh.transpose(1, 0, 2), Yc.transpose(1, 0, 2)
    return Y, Yh, Yc


def case(name, op, S=3, N=2, I=4, H=5, dtype=np.float32, opset=14, inputs=("B",), outputs=(0, 1, 2),
         lens=None, threads=1, const=False, **attrs):
    """const=True: W and R are initializers (the pack-weights pass packs them at compile time);
    the case is then also verified with --disable-pass=pack-weights (packed by the kernel)."""
    return dict(name=name, op=op, S=S, N=N, I=I, H=H, dtype=dtype, opset=opset, inputs=inputs,
                outputs=outputs, lens=lens, threads=threads, const=const, attrs=attrs)


BI = "bidirectional"
ALL_IN = ("B", "lens", "h0", "c0", "P")
CASES = [
    # LSTM
    case("lstm_forward_all_inputs", "LSTM", inputs=ALL_IN, lens=[3, 2]),
    case("lstm_reverse", "LSTM", direction="reverse", inputs=("B", "h0", "c0")),
    case("lstm_bidirectional_seq_lens", "LSTM", S=5, N=3, direction=BI, inputs=ALL_IN,
         lens=[5, 0, 3]),
    case("lstm_layout1_bidirectional", "LSTM", N=3, layout=1, direction=BI, inputs=ALL_IN,
         lens=[1, 3, 2]),
    case("lstm_clip_input_forget", "LSTM", clip=0.7, input_forget=1, inputs=("B", "P", "h0")),
    case("lstm_activations", "LSTM", direction=BI,
         activations=["HardSigmoid", "Elu", "Softsign", "Sigmoid", "ScaledTanh", "Affine"],
         activation_alpha=[0.3, 0.8, 0.9, 1.1], activation_beta=[0.4, 0.7, 0.2]),
    # H above 16: the gates of 16 units at a time (vector code) and the rest one by one
    case("lstm_clip_input_forget_h20", "LSTM", N=3, I=6, H=20, clip=0.7, input_forget=1,
         inputs=("B", "P", "h0", "c0")),
    case("lstm_activations_h18", "LSTM", N=2, I=5, H=18, direction=BI,
         activations=["HardSigmoid", "Elu", "Softsign", "Sigmoid", "ScaledTanh", "Affine"],
         activation_alpha=[0.3, 0.8, 0.9, 1.1], activation_beta=[0.4, 0.7, 0.2]),
    case("lstm_packed_batch7", "LSTM", S=6, N=7, I=20, H=19, direction=BI, inputs=ALL_IN,
         lens=[6, 5, 0, 1, 6, 3, 2]),
    case("lstm_threads_batch40", "LSTM", S=4, N=40, I=8, H=48, direction=BI, threads=4,
         inputs=ALL_IN, lens=[4, 3, 2, 1, 0] * 8),
    # constant W and R, batch <= 4: the fused step by blocks of 16 units (a partial last block),
    # W^T and R^T by units packed at compile time or by the kernel
    case("lstm_const_fused_bidirectional", "LSTM", S=20, N=1, I=24, H=40, direction=BI,
         inputs=ALL_IN, lens=[15], threads=2, const=True),
    case("lstm_const_fused_batch3", "LSTM", S=5, N=3, I=7, H=33, clip=0.9, inputs=ALL_IN,
         lens=[5, 0, 2], threads=4, const=True),
    # one thread, five unit blocks (a partial last one): odd steps walk the blocks backwards
    case("lstm_const_fused_one_thread", "LSTM", S=7, N=1, I=9, H=72, direction=BI,
         inputs=("B", "h0", "c0"), const=True),
    case("lstm_const_fused_few_rows", "LSTM", S=2, N=2, I=5, H=16, inputs=("B", "h0", "c0"),
         threads=2, const=True),
    case("lstm_only_y_h", "LSTM", S=4, outputs=(1,), inputs=("B", "h0")),
    case("lstm_only_y_c_no_bias", "LSTM", outputs=(2,), inputs=()),
    case("lstm_double", "LSTM", dtype=np.float64, direction=BI, inputs=ALL_IN, lens=[2, 3]),
    case("lstm_opset7", "LSTM", opset=7, direction="reverse", inputs=("B", "lens"), lens=[1, 3]),
    # GRU
    case("gru_linear_before_reset", "GRU", linear_before_reset=1, inputs=("B", "h0")),
    case("gru_reverse_seq_lens", "GRU", direction="reverse", inputs=("B", "lens", "h0"),
         lens=[2, 3]),
    case("gru_bidirectional_lbr", "GRU", S=4, N=3, direction=BI, linear_before_reset=1,
         inputs=("B", "lens", "h0"), lens=[4, 1, 0]),
    case("gru_layout1", "GRU", layout=1, direction=BI, inputs=("B", "h0")),
    case("gru_activations_clip", "GRU", clip=1.5,
         activations=["LeakyRelu", "ThresholdedRelu"], activation_alpha=[0.2, 0.1]),
    case("gru_packed_batch6", "GRU", S=5, N=6, I=17, H=33, direction=BI, inputs=("B", "lens", "h0"),
         lens=[5, 4, 3, 2, 1, 5]),
    case("gru_packed_batch6_lbr", "GRU", S=5, N=6, I=9, H=21, linear_before_reset=1,
         inputs=("B", "h0")),
    case("gru_threads_batch40", "GRU", S=3, N=40, I=8, H=64, threads=4, inputs=("B", "lens", "h0"),
         lens=[3, 2, 1, 0] * 10),
    case("gru_only_y", "GRU", outputs=(0,), inputs=()),
    case("gru_double", "GRU", dtype=np.float64, direction=BI, inputs=("B", "lens", "h0"),
         lens=[3, 1]),
    # RNN
    case("rnn_reverse", "RNN", direction="reverse", inputs=("B", "h0")),
    case("rnn_bidirectional_seq_lens", "RNN", S=4, N=3, direction=BI, inputs=("B", "lens", "h0"),
         lens=[0, 4, 2]),
    case("rnn_layout1", "RNN", layout=1, inputs=("B", "lens", "h0"), lens=[3, 1]),
    case("rnn_activations", "RNN", direction=BI, activations=["Relu", "Softplus"]),
    case("rnn_affine_clip", "RNN", clip=0.5, activations=["Affine"], activation_alpha=[0.5],
         activation_beta=[0.25]),
    case("rnn_thresholded_relu", "RNN", activations=["ThresholdedRelu"], activation_alpha=[0.3]),
    case("rnn_packed_batch5", "RNN", S=7, N=5, I=16, H=40, direction=BI, inputs=("B", "h0")),
    case("rnn_threads_batch40", "RNN", S=3, N=40, I=8, H=128, threads=4, direction=BI,
         inputs=("B", "h0")),
    case("rnn_double", "RNN", dtype=np.float64, inputs=("B", "lens"), lens=[1, 3]),
]


def make(c, out_dir, rng):
    op, S, N, I, H, dt = c["op"], c["S"], c["N"], c["I"], c["H"], c["dtype"]
    attrs = dict(c["attrs"])
    dirs = 2 if attrs.get("direction") == BI else 1
    gh = GATES[op] * H
    layout = attrs.get("layout", 0)
    state = (N, dirs, H) if layout else (dirs, N, H)
    wk = min(0.5, 1.0 / np.sqrt(H))  # PyTorch's initialisation range, at most 0.5
    vals = {"X": rng.uniform(-1, 1, (N, S, I) if layout else (S, N, I)).astype(dt),
            "W": rng.uniform(-wk, wk, (dirs, gh, I)).astype(dt),
            "R": rng.uniform(-wk, wk, (dirs, gh, H)).astype(dt)}
    extra = {"B": lambda: rng.uniform(-wk, wk, (dirs, 2 * gh)).astype(dt),
             "lens": lambda: np.array(c["lens"], dtype=np.int32),
             "h0": lambda: rng.uniform(-1, 1, state).astype(dt),
             "c0": lambda: rng.uniform(-1, 1, state).astype(dt),
             "P": lambda: rng.uniform(-wk, wk, (dirs, 3 * H)).astype(dt)}
    for k in c["inputs"]:
        vals[k] = extra[k]()
    order = ["X", "W", "R", "B", "lens", "h0", "c0", "P"][:8 if op == "LSTM" else 6]
    while order[-1] not in vals:
        order.pop()
    ref = reference(op, attrs, vals["X"], vals["W"], vals["R"], vals.get("B"), vals.get("lens"),
                    vals.get("h0"), vals.get("c0"), vals.get("P"))
    out_names = [("Y", "Y_h", "Y_c")[i] if i in c["outputs"] else "" for i in range(3)]
    while not out_names[-1]:
        out_names.pop()
    if op != "LSTM":
        out_names = out_names[:2]
    elem = TensorProto.DOUBLE if dt == np.float64 else TensorProto.FLOAT
    consts = ("W", "R") if c["const"] else ()
    graph_in = [helper.make_tensor_value_info(k, TensorProto.INT32 if k == "lens" else elem,
                                              vals[k].shape)
                for k in order if k in vals and k not in consts]
    graph_out = [helper.make_tensor_value_info(nm, elem, ref[i].shape)
                 for i, nm in enumerate(out_names) if nm]
    node = helper.make_node(op, [k if k in vals else "" for k in order], out_names, hidden_size=H,
                            **attrs)
    graph = helper.make_graph([node], c["name"], graph_in, graph_out,
                              initializer=[numpy_helper.from_array(vals[k], k) for k in consts])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", c["opset"])])
    onnx.checker.check_model(model)
    data = os.path.join(out_dir, c["name"], "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(out_dir, c["name"], "model.onnx"))
    for i, k in enumerate(k for k in order if k in vals and k not in consts):
        onnx.save_tensor(numpy_helper.from_array(vals[k], k), os.path.join(data, f"input_{i}.pb"))
    for j, (i, nm) in enumerate((i, nm) for i, nm in enumerate(out_names) if nm):
        onnx.save_tensor(numpy_helper.from_array(ref[i].astype(dt), nm),
                         os.path.join(data, f"output_{j}.pb"))


# A node's GEMM micro-kernels: the tiles of its one tile height (full, and the 4-, 2- and 1-row
# tails) for row-major A, up to three vector widths each (8-row tiles). Compiling every height
# and A layout, as the recurrent kernel once did, gave ~70 and 3-4 s of codegen per node.
MAX_MICRO_KERNELS = 12


def check_micro_kernels(onnxc, case_dir):
    """Compiles the case and counts the gemm::micro instantiations in the library; returns an
    error message, or None."""
    lib = os.path.join(case_dir, "libcase.so")
    r = subprocess.run([onnxc, "compile", os.path.join(case_dir, "model.onnx"), "-o", lib],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        return f"onnxc compile exited {r.returncode}: {r.stdout}"
    nm = subprocess.run(["nm", "-C", lib], stdout=subprocess.PIPE, text=True, check=True)
    micro = [line for line in nm.stdout.splitlines() if "gemm::micro<" in line]
    if not micro:
        return "no gemm::micro symbol in the library (the check no longer sees the kernels)"
    if len(micro) > MAX_MICRO_KERNELS:
        return f"{len(micro)} micro-kernels (at most {MAX_MICRO_KERNELS})"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--cell", choices=["lstm", "gru", "rnn"])
    ap.add_argument("--verify", metavar="ONNXC", help="run ONNXC verify on each case")
    args = ap.parse_args()
    failed = []
    for c in CASES:
        if args.cell and c["op"] != args.cell.upper():
            continue
        make(c, args.out_dir, np.random.default_rng(zlib.crc32(c["name"].encode())))
        if not args.verify:
            print(c["name"])
            continue
        case_dir = os.path.join(args.out_dir, c["name"])
        # float32 runs accumulate rounding over the steps; the reference is float64
        atol = "1e-6" if c["dtype"] == np.float32 else "1e-12"
        variants = [[]]
        if c["const"]:
            variants.append(["--disable-pass", "pack-weights"])
        if "packed" in c["name"]:  # the GEMM's micro-kernels at every tile height (kTileRows)
            variants += [["--gemm-tile-rows", str(rows)] for rows in (1, 2, 4, 6, 8)]
        for extra in variants:
            r = subprocess.run([args.verify, "verify", os.path.join(case_dir, "model.onnx"),
                                os.path.join(case_dir, "test_data_set_0"), "--atol", atol,
                                "--rtol", "1e-4" if c["dtype"] == np.float32 else "1e-10",
                                "--threads", str(c["threads"])] + extra,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            name = " ".join([c["name"]] + extra)
            print(f"{'PASS' if r.returncode == 0 else 'FAIL'} {name}", flush=True)
            if r.returncode != 0:
                print(r.stdout)
                failed.append(name)
        if "packed" in c["name"]:
            err = check_micro_kernels(args.verify, case_dir)
            print(f"{'FAIL' if err else 'PASS'} {c['name']} micro-kernels{': ' + err if err else ''}")
            if err:
                failed.append(c["name"] + " micro-kernels")
    if failed:
        print(f"{len(failed)} case(s) failed: {' '.join(failed)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
