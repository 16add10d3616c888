#!/usr/bin/env python3
"""The GEMM's micro-kernel dispatch folds in a node's code (codegen-cpu.md, specialise-parallel):

  check_dispatch.py ONNXC CASE_DIR WORK_DIR

compiles CASE_DIR/model.onnx (one Conv, MatMul or Gemm node) to LLVM IR, as is and for each
forced tile height (--gemm-tile-rows), and checks that the library defines micro-kernel variants
(gemm::micro<T, rows, vectors, layout>) of one A layout only: the node's A layout is a constant
of its params, so a body that kept the others decides at run time what the compile already knew
and carries every variant's code (resnet50's many-pixel convs, conv_gemm_fused, did until the
dispatch read the Problem's tiling before its first block's calls escaped the Problem). For a
Conv the library must not define gemm::small_m() either (a Conv's B is always packed; the
generic small-M GEMM was in every CNN's library while the check was on a run-time pointer).
"""
import os
import re
import subprocess
import sys


def layouts(onnxc, model, ll, extra):
    r = subprocess.run([onnxc, "compile", model, "-o", ll, "--emit", "llvm"] + extra,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: onnxc compile {' '.join(extra)} exited with {r.returncode}:\n{r.stderr}")
    with open(ll) as f:
        text = f.read()
    variants = set(re.findall(r"^define [^@]*@(_ZN7onnxc_k4gemm5micro[^(\s]*)", text, re.M))
    small_m = re.search(r"^define [^@]*@_ZN7onnxc_k4gemm7small_m", text, re.M) is not None
    return variants, {re.search(r"ALayoutE(\d)", v).group(1) for v in variants}, small_m


def main():
    onnxc, case_dir, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    model = os.path.join(case_dir, "model.onnx")
    with open(model, "rb") as f:
        is_conv = b"Conv" in f.read()
    for extra in ([], ["--gemm-tile-rows", "6"], ["--gemm-tile-rows", "8"]):
        label = " ".join(extra) or "default"
        variants, found, small_m = layouts(onnxc, model, os.path.join(work, "model.ll"), extra)
        if not variants:
            sys.exit(f"FAIL: {label}: no GEMM micro-kernel in the library (the case no longer "
                     "reaches the GEMM)")
        if len(found) != 1:
            sys.exit(f"FAIL: {label}: micro-kernels of A layouts {sorted(found)} in one node's "
                     "library:\n  " + "\n  ".join(sorted(variants)))
        if is_conv and small_m:
            sys.exit(f"FAIL: {label}: a Conv's library defines gemm::small_m()")
        print(f"{label}: {len(variants)} variants, A layout {found.pop()}")
    print("PASS")


if __name__ == "__main__":
    main()
