#!/usr/bin/python3
"""DFT and STFT on larger signals than the ONNX backend cases, against numpy.fft (float64).

Writes OUT/<case>/model.onnx and OUT/<case>/test_data_set_0/{input,output}_N.pb (the backend-test
layout; the constant inputs — axis, dft_length, frame_step — are initializers) and runs
`onnxc verify --threads 2` on each. Covered: complex forward / inverse DFT of odd and composite
lengths (1000, 999, 240) along the middle and an inner axis, float and double, the one-sided
real transform with zero padding (dft_length > n) and truncation (dft_length < n), the real
inverse of a one-sided spectrum (numpy.fft.irfft, even and odd lengths), opset 17's axis
attribute, an axis given at run time (one library, a data set per axis, the output shaped by
it), STFT with frame_step / frame_length and MelWeightMatrix with every input given at run time
(likewise), test_dft_inverse's
input against the exact result, STFT with a Hann window (one-sided) and a complex STFT without a window.

Usage: make_cases.py OUT_DIR --onnxc ONNXC
Exits 1 if any case fails.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ELEM = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE,
        np.int64: TensorProto.INT64}


def save_case(out_dir, name, node, inputs, consts, output, opset):
    """inputs: [(name, array)] graph inputs; consts: [(name, array)] initializers."""
    def info(nm, a):
        return helper.make_tensor_value_info(nm, ELEM[a.dtype.type], a.shape)
    graph = helper.make_graph([node], name, [info(k, v) for k, v in inputs],
                              [info("y", output)],
                              initializer=[numpy_helper.from_array(v, k) for k, v in consts])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    data = os.path.join(out_dir, name, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(out_dir, name, "model.onnx"))
    for i, (k, v) in enumerate(inputs):
        onnx.save_tensor(numpy_helper.from_array(v, k), os.path.join(data, f"input_{i}.pb"))
    onnx.save_tensor(numpy_helper.from_array(output, "y"), os.path.join(data, "output_0.pb"))


def to_complex(x):
    return x[..., 0].astype(np.float64) + (1j * x[..., 1] if x.shape[-1] == 2 else 0)


def split(c, dtype):
    return np.stack([c.real, c.imag], axis=-1).astype(dtype)


def dft_case(out, name, x, axis, dtype, inverse=0, onesided=0, length=None, opset=20):
    """x: real ([..., 1]) or complex ([..., 2]); axis counts x's dims."""
    c = to_complex(x.astype(np.float64))
    ax = axis if axis >= 0 else axis + x.ndim
    if inverse and onesided:
        y = np.fft.irfft(c, n=length, axis=ax)[..., None]
    elif inverse:
        y = split(np.fft.ifft(c, n=length, axis=ax), np.float64)
    elif onesided:
        y = split(np.fft.rfft(c.real, n=length, axis=ax), np.float64)
    else:
        y = split(np.fft.fft(c, n=length, axis=ax), np.float64)
    names, consts = ["x", "", ""], []
    if length is not None:
        names[1] = "dft_length"
        consts.append(("dft_length", np.array(length, np.int64)))
    attrs = dict(inverse=inverse, onesided=onesided)
    if opset >= 20:
        names[2] = "axis"
        consts.append(("axis", np.array(axis, np.int64)))
    else:
        attrs["axis"] = axis
    while names[-1] == "":
        names.pop()
    node = helper.make_node("DFT", names, ["y"], **attrs)
    save_case(out, name, node, [("x", x.astype(dtype))], consts, y.astype(dtype), opset)


def dft_run_time_axis_case(out, name, x, axes, dtype, inverse=0, onesided=0):
    """One model whose axis is a graph input, a data set per axis (test_data_set_<k>): one
    library computes the DFT along the axis each run gives, its output shaped by it."""
    node = helper.make_node("DFT", ["x", "", "axis"], ["y"], inverse=inverse, onesided=onesided)
    graph = helper.make_graph(
        [node], name, [helper.make_tensor_value_info("x", ELEM[dtype], x.shape),
                       helper.make_tensor_value_info("axis", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", ELEM[dtype], None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    os.makedirs(os.path.join(out, name), exist_ok=True)
    onnx.save(model, os.path.join(out, name, "model.onnx"))
    c = to_complex(x.astype(np.float64))
    for k, axis in enumerate(axes):
        ax = axis if axis >= 0 else axis + x.ndim
        if inverse and onesided:
            y = np.fft.irfft(c, axis=ax)[..., None]
        elif onesided:
            y = split(np.fft.rfft(c.real, axis=ax), np.float64)
        else:
            y = split(np.fft.fft(c, axis=ax), np.float64)
        data = os.path.join(out, name, f"test_data_set_{k}")
        os.makedirs(data, exist_ok=True)
        onnx.save_tensor(numpy_helper.from_array(x.astype(dtype), "x"),
                         os.path.join(data, "input_0.pb"))
        onnx.save_tensor(numpy_helper.from_array(np.array(axis, np.int64), "axis"),
                         os.path.join(data, "input_1.pb"))
        onnx.save_tensor(numpy_helper.from_array(y.astype(dtype), "y"),
                         os.path.join(data, "output_0.pb"))


def stft_case(out, name, x, step, window, frame_len, onesided, dtype):
    c = to_complex(x.astype(np.float64))
    frames = (x.shape[1] - frame_len) // step + 1
    w = np.ones(frame_len) if window is None else window.astype(np.float64)
    segs = np.stack([c[:, f * step:f * step + frame_len] * w for f in range(frames)], axis=1)
    spec = np.fft.fft(segs, axis=2)
    if onesided:
        spec = spec[:, :, :frame_len // 2 + 1]
    inputs, consts, names = [("signal", x.astype(dtype))], [("frame_step", np.array(step))], \
        ["signal", "frame_step", "", ""]
    if window is not None:
        names[2] = "window"
        inputs.append(("window", window.astype(dtype)))
    else:
        names[3] = "frame_length"
        consts.append(("frame_length", np.array(frame_len, np.int64)))
    while names[-1] == "":
        names.pop()
    node = helper.make_node("STFT", names, ["y"], onesided=onesided)
    save_case(out, name, node, inputs, consts, split(spec, dtype), 17)


def stft_run_time_case(out, name, x, steps_lengths, window, onesided, dtype):
    """One STFT model whose frame_step (and frame_length, without a window) are graph inputs,
    a data set per (step, length): one library, the output's shape decided by the run."""
    names = ["signal", "frame_step", "", ""]
    infos = [helper.make_tensor_value_info("signal", ELEM[dtype], x.shape),
             helper.make_tensor_value_info("frame_step", TensorProto.INT64, [])]
    if window is not None:
        names[2] = "window"
        infos.append(helper.make_tensor_value_info("window", ELEM[dtype], window.shape))
    else:
        names[3] = "frame_length"
        infos.append(helper.make_tensor_value_info("frame_length", TensorProto.INT64, []))
    while names[-1] == "":
        names.pop()
    node = helper.make_node("STFT", names, ["y"], onesided=onesided)
    graph = helper.make_graph([node], name, infos,
                              [helper.make_tensor_value_info("y", ELEM[dtype], None)])
    os.makedirs(os.path.join(out, name), exist_ok=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(out, name, "model.onnx"))
    c = to_complex(x.astype(np.float64))
    for k, (step, frame_len) in enumerate(steps_lengths):
        frames = (x.shape[1] - frame_len) // step + 1
        w = np.ones(frame_len) if window is None else window.astype(np.float64)
        segs = np.stack([c[:, f * step:f * step + frame_len] * w for f in range(frames)], axis=1)
        spec = np.fft.fft(segs, axis=2)[:, :, :frame_len // 2 + 1 if onesided else frame_len]
        ins = [x.astype(dtype), np.array(step, np.int64)]
        ins.append(window.astype(dtype) if window is not None else np.array(frame_len, np.int64))
        data = os.path.join(out, name, f"test_data_set_{k}")
        os.makedirs(data, exist_ok=True)
        for i, (info, v) in enumerate(zip(infos, ins)):
            onnx.save_tensor(numpy_helper.from_array(v, info.name),
                             os.path.join(data, f"input_{i}.pb"))
        onnx.save_tensor(numpy_helper.from_array(split(spec, dtype), "y"),
                         os.path.join(data, "output_0.pb"))


def mel_ref(bins, dft, rate, lo_hz, hi_hz):
    """MelWeightMatrix as the ONNX reference computes it, in float64."""
    lo, hi = (2595.0 * np.log10(1.0 + f / 700.0) for f in (lo_hz, hi_hz))
    step = (hi - lo) / (bins + 2)
    hz = 700.0 * (10.0 ** ((np.arange(bins + 2) * step + lo) / 2595.0) - 1.0)
    edges = np.floor((dft + 1) * hz / rate).astype(np.int64)
    w = np.zeros((dft // 2 + 1, bins))
    for i in range(bins):
        l, c, h = edges[i:i + 3]
        if c == l:
            w[c, i] = 1.0
        else:
            w[l:c + 1, i] = (np.arange(l, c + 1) - l) / (c - l)
        w[c:h, i] = (h - np.arange(c, h)) / (h - c)
    return w


def mel_run_time_case(out, name, values):
    """MelWeightMatrix with every input given at run time: one library, a data set per
    (num_mel_bins, dft_length, sample_rate, lower_edge_hertz, upper_edge_hertz)."""
    names = ["num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"]
    types = [TensorProto.INT64] * 3 + [TensorProto.FLOAT] * 2
    node = helper.make_node("MelWeightMatrix", names, ["y"])
    graph = helper.make_graph([node], name, [helper.make_tensor_value_info(k, t, [])
                                             for k, t in zip(names, types)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    os.makedirs(os.path.join(out, name), exist_ok=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              os.path.join(out, name, "model.onnx"))
    for k, v in enumerate(values):
        data = os.path.join(out, name, f"test_data_set_{k}")
        os.makedirs(data, exist_ok=True)
        arrays = [np.array(x, np.int64) for x in v[:3]] + [np.array(x, np.float32) for x in v[3:]]
        for i, (nm, a) in enumerate(zip(names, arrays)):
            onnx.save_tensor(numpy_helper.from_array(a, nm), os.path.join(data, f"input_{i}.pb"))
        y = mel_ref(*[float(a) if i >= 3 else int(a) for i, a in enumerate(arrays)])
        onnx.save_tensor(numpy_helper.from_array(y.astype(np.float32), "y"),
                         os.path.join(data, "output_0.pb"))


def make_all(out):
    rng = np.random.default_rng(7)
    r = lambda *s: rng.uniform(-1, 1, s)
    f32, f64 = np.float32, np.float64
    dft_case(out, "dft_c2c_1000", r(3, 1000, 2), 1, f32)
    dft_case(out, "dft_c2c_inner_axis", r(2, 5, 240, 3, 2), 2, f64)
    dft_case(out, "dft_inverse_999", r(2, 999, 2), -2, f64, inverse=1)
    dft_case(out, "dft_rfft_padded", r(4, 300, 3, 1), 1, f32, onesided=1, length=512)
    dft_case(out, "dft_truncated", r(2, 700, 2), 1, f64, length=333)
    dft_case(out, "dft_irfft_even", r(2, 129, 2), 1, f64, inverse=1, onesided=1)
    dft_case(out, "dft_irfft_odd", r(2, 100, 2), 1, f64, inverse=1, onesided=1, length=199)
    dft_case(out, "dft_opset17_axis_attr", r(2, 400, 1), 1, f32, opset=17)
    # The ONNX backend case test_dft_inverse's input (its stored output is float32 FFT noise,
    # 1.9e-7 where the exact result is 0): onnxc must give the exact result within atol 1e-7.
    backend = np.zeros((1, 10, 10, 2))
    backend[0, :, :, 0] = np.arange(100).reshape(10, 10)
    dft_case(out, "dft_inverse_backend_input", backend, 1, f32, inverse=1)
    # The axis given at run time: one library, the output's shape decided by the axis.
    dft_run_time_axis_case(out, "dft_run_time_axis_rfft", r(3, 40, 17, 1), [1, -3, 2, 0], f32,
                           onesided=1)
    dft_run_time_axis_case(out, "dft_run_time_axis_c2c", r(5, 36, 2), [0, 1, -2], f64)
    dft_run_time_axis_case(out, "dft_run_time_axis_irfft", r(1, 9, 12, 2), [1, 2], f64,
                           inverse=1, onesided=1)
    mel_run_time_case(out, "mel_run_time_inputs", [(8, 16, 8192, 0.0, 4096.0),
                                                    (20, 512, 16000, 125.0, 7600.0),
                                                    (3, 40, 22050, 300.0, 3000.0)])
    hann = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(256) / 256)
    stft_run_time_case(out, "stft_run_time_step_length", r(2, 1000, 1),
                       [(100, 256), (37, 200), (1000, 1000), (5, 16)], None, 1, f64)
    stft_run_time_case(out, "stft_run_time_step_window", r(1, 900, 2), [(64, 256), (300, 256)],
                       hann, 0, f32)
    stft_case(out, "stft_hann", r(2, 4000, 1), 100, hann, 256, 1, f32)
    stft_case(out, "stft_complex_no_window", r(1, 1500, 2), 64, None, 200, 0, f64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--onnxc", required=True)
    args = ap.parse_args()
    make_all(args.out)
    failed = []
    for case in sorted(os.listdir(args.out)):
        d = os.path.join(args.out, case)
        # float32 outputs are sums of up to 1000 terms of magnitude 1: an absolute tolerance of
        # 1e-5 covers float32 rounding of results near 0; the relative one is onnxc verify's.
        # The backend input's 100 integers sum exactly: the suite's own atol 1e-7 applies.
        atol = "1e-7" if case == "dft_inverse_backend_input" else "1e-5"
        sets = sorted(os.path.join(d, s) for s in os.listdir(d) if s.startswith("test_data_set"))
        cmd = [args.onnxc, "verify", os.path.join(d, "model.onnx")] + sets + \
            ["--threads", "2", "--atol", atol]
        res = subprocess.run(cmd, capture_output=True, text=True)
        # every data set of a run-time axis case runs on the one library, no input compiled in
        ok = res.returncode == 0 and "compiling in" not in res.stdout + res.stderr
        status = "ok" if ok else "FAIL"
        print(f"{status} {case}")
        if not ok:
            print(res.stdout + res.stderr)
            failed.append(case)
    # A run-time axis the DFT cannot take (the complex parts' dim) fails the run, naming it.
    d = os.path.join(args.out, "dft_run_time_axis_c2c")
    bad = os.path.join(args.out + "_bad_axis", "test_data_set_0")
    os.makedirs(bad, exist_ok=True)
    for f in ("input_0.pb", "output_0.pb"):
        with open(os.path.join(d, "test_data_set_0", f), "rb") as src, \
                open(os.path.join(bad, f), "wb") as dst:
            dst.write(src.read())
    onnx.save_tensor(numpy_helper.from_array(np.array(-1, np.int64), "axis"),
                     os.path.join(bad, "input_1.pb"))
    res = subprocess.run([args.onnxc, "verify", os.path.join(d, "model.onnx"), bad],
                         capture_output=True, text=True)
    text = res.stdout + res.stderr
    ok = res.returncode != 0 and "DFT" in text and "axis is out of range" in text
    print(f"{'ok' if ok else 'FAIL'} dft_run_time_axis_c2c with axis -1 fails: {text.strip()}")
    if not ok:
        failed.append("dft_run_time_axis_c2c axis -1")
    print(f"{len(failed)} of {len(os.listdir(args.out))} cases failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
