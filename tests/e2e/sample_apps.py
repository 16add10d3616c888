#!/usr/bin/python3
"""e2e.classify_app / e2e.textgen_app: build and run the sample apps (samples/classify.c on the
"mobilenet" model, samples/textgen.c on the "transformer" model) through their run scripts and
check what they print against the numpy references of samples/make_sample_model.py.

    sample_apps.py classify|textgen ONNXC SRC_DIR WORK_DIR

classify: top-5 class indices must equal the reference's, scores within rtol 1e-3 plus 1e-6
(the app prints 7 decimals), on the model's 64x64 sample pattern and on a 150x97 image that the
app resizes. textgen: the argmax next token at every prompt position and the greedily generated
tokens must equal the reference's (one numpy forward pass per generated token).
"""
import os
import re
import subprocess
import sys

import numpy as np


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def run(cmd, expect_ok=True):
    print("+ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sys.stdout.write(r.stdout + r.stderr)
    if expect_ok and r.returncode != 0:
        fail(f"{os.path.basename(cmd[0])} exited with status {r.returncode}")
    return r


def parse_top5(output):
    found = re.findall(r"^\s+\d\. class\s+(\d+)\s+score ([0-9.eE+-]+)$", output, re.M)
    if len(found) != 5:
        fail(f"expected 5 'class N score S' lines, got {len(found)}")
    return [int(i) for i, _ in found], np.array([float(s) for _, s in found])


def check_classify(app_output, rgb, mobilenet, reference, what):
    probs = reference(mobilenet.normalise(mobilenet.resize_nearest(rgb))[None])[0]
    want = list(np.argsort(-probs.astype(np.float64), kind="stable")[:5])
    got, scores = parse_top5(app_output)
    print(f"{what}: app top-5 {got}, reference top-5 {want}", flush=True)
    if got != want:
        fail(f"{what}: top-5 classes differ")
    if not np.all(np.abs(scores - probs[want]) <= 1e-6 + 1e-3 * np.abs(probs[want])):
        fail(f"{what}: scores {scores} but the reference has {probs[want]}")


def case_classify(onnxc, src, work):
    import make_sample_model
    import mobilenet_model as mb
    out = os.path.join(work, "classify")
    r = run(["bash", os.path.join(src, "samples", "run_classify.sh"), onnxc, out])
    ref = make_sample_model.reference_mobilenet
    check_classify(r.stdout, mb.read_ppm(os.path.join(out, "pattern.ppm")), mb, ref, "pattern")
    rgb = np.random.default_rng(7).integers(0, 256, (3, 97, 150), dtype=np.uint8)
    rgb[0, :, :75] //= 3  # some structure, so the classes are not a coin toss
    photo = os.path.join(out, "photo.ppm")
    mb.write_ppm(photo, rgb)
    check_classify(run([os.path.join(out, "classify"), photo]).stdout, rgb, mb, ref, "150x97")
    bad = os.path.join(out, "not_a_ppm.ppm")
    with open(bad, "wb") as f:
        f.write(b"P3\n1 1\n255\n0 0 0\n")
    r = run([os.path.join(out, "classify"), bad], expect_ok=False)
    if r.returncode != 1 or "classify: error:" not in r.stderr:
        fail("a text PPM (P3) must be refused with 'classify: error:' and status 1")


def greedy_reference(tf, prompt, steps):
    tokens = tf.encode(prompt)
    logits = tf.reference(tokens)[0]
    first = [int(i) for i in logits[:len(prompt)].argmax(axis=1)]
    generated = []
    for s in range(steps):
        pos = len(prompt) + s
        tokens[0, pos] = int(logits[pos - 1].argmax())
        generated.append(int(tokens[0, pos]))
        if s + 1 < steps:
            logits = tf.reference(tokens)[0]
    return first, generated


def case_textgen(onnxc, src, work):
    import transformer_model as tf
    prompt = "hello, arm"
    r = run(["bash", os.path.join(src, "samples", "run_textgen.sh"), onnxc,
             os.path.join(work, "textgen"), prompt])
    first = re.search(r"^next-token argmax at each position:([ 0-9]*)$", r.stdout, re.M)
    generated = re.search(r"^generated:([ 0-9]*)$", r.stdout, re.M)
    if not first or not generated:
        fail("textgen printed no 'next-token argmax' or 'generated' line")
    got = ([int(t) for t in first.group(1).split()], [int(t) for t in generated.group(1).split()])
    want = greedy_reference(tf, prompt.encode(), tf.SEQ - len(prompt))
    print(f"app: {got}\nreference: {want}", flush=True)
    if got != want:
        fail("textgen's tokens differ from the numpy reference")


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("classify", "textgen"):
        fail("usage: sample_apps.py classify|textgen ONNXC SRC_DIR WORK_DIR")
    case, onnxc, src, work = sys.argv[1:]
    sys.path.insert(0, os.path.join(src, "samples"))
    os.makedirs(work, exist_ok=True)
    {"classify": case_classify, "textgen": case_textgen}[case](onnxc, src, work)
    print(f"PASS: {case} app agrees with the numpy reference", flush=True)


if __name__ == "__main__":
    main()
