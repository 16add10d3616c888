#!/usr/bin/python3
"""Generates docs/SupportedOps.md from the conformance lists. Standard library only.

Reads tests/conformance/case_ops.txt (every ONNX backend node case and the op it tests) and
tests/conformance/known_failures.txt (failing cases and why), both written by
tests/conformance/update_known_failures.py; a case not in known_failures.txt passes. Writes, per
op, how many of its cases pass and why the others fail, plus a summary by failure category.

Usage: scripts/gen_supported_ops.py [--conformance DIR] [--output docs/SupportedOps.md] [--check]
"""
import argparse
import collections
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Failure categories, first match wins: (category, regex on the reason).
CATEGORIES = [
    ("unsupported operator", r"^unsupported op:"),
    ("unsupported operator domain", r"^unsupported domain:"),
    ("output mismatch", r"^mismatch:"),
    ("random draws (the reference holds numpy's; checked statistically instead)", r"^random:"),
    ("timeout", r"^timeout"),
    ("crash", r"^crash"),
    ("input must be a compile-time constant (dynamic shape)", r"compile-time constant"),
    ("test data not readable by onnxc verify", r"test_data_set_\d+/|cannot read a \w+ tensor"),
    ("opset outside the supported range", r"\bopset\b"),
    ("unsupported element type", r"element type|dtype|float16|bfloat16|float8|int4|int2|"
                                 r"float4|string|complex"),
    ("unsupported attribute or input", r"attribute|optional|input"),
]


def category(reason):
    for name, pattern in CATEGORIES:
        if re.search(pattern, reason, re.I):
            return name
    return "other"


def read_pairs(path):
    pairs = {}
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                case, _, rest = line.rstrip("\n").partition(" ")
                pairs[case] = rest.strip()
    return pairs


def is_expanded(case):
    return re.search(r"_expanded(_ver\d+)?$", case) is not None


def md(text):
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def reason_summary(reasons, limit=3):
    """Distinct reasons with counts; mismatches are merged into one entry."""
    counts = collections.Counter("mismatch" if r.startswith("mismatch:") else r for r in reasons)
    parts = [f"{r} ({n})" if n > 1 else r for r, n in counts.most_common(limit)]
    if len(counts) > limit:
        parts.append(f"{len(counts) - limit} more")
    return "; ".join(md(p) for p in parts)


# The ai.onnx.ml section: ops and what limits them. The ONNX backend suite has few ML cases, so
# these are tested by the pipelines in tests/ml (ctest -L ml) against ONNX Runtime.
ML_OPS = [
    ("TreeEnsembleClassifier", "1..5", "int64 class labels only; float/double input"),
    ("TreeEnsembleRegressor", "1..5", "float/double input"),
    ("TreeEnsemble", "5", "float/double input"),
    ("LinearClassifier", "1..5", "int64 class labels only; float/double input"),
    ("LinearRegressor", "1..5", "float/double input"),
    ("Scaler", "1..5", ""),
    ("Normalizer", "1..5", ""),
    ("Binarizer", "1..5", "float/double"),
    ("Imputer", "1..5", "float/int64"),
    ("ArrayFeatureExtractor", "1..5", "int64 indices; no strings"),
    ("ZipMap", "1..5", "returns the [N, C] probability matrix (no map type, docs/runtime-api.md)"),
    ("SVMClassifier", "1..5", "int64 class labels only; all kernel types; prob_a/prob_b "
     "probabilities; labels by one-vs-one votes as ONNX Runtime"),
    ("SVMRegressor", "1..5", "SVR and one-class; post_transform NONE only (ONNX Runtime "
     "ignores it)"),
    ("OneHotEncoder", "1..5", "cats_int64s only; int32/int64/float/double input"),
    ("FeatureVectorizer", "1..5", "int32/int64/float/double inputs"),
    ("LabelEncoder", "2..5", "string and numeric keys and values (int16/int32/int64/float/"
     "double); a repeated key keeps its first value, as ONNX Runtime"),
    ("CategoryMapper", "1..5", "int64 to string and string to int64"),
]
ML_MISSING = ("string categories (OneHotEncoder) and string class labels (the classifiers give "
              "int64 labels), DictVectorizer and CastMap (they read maps, and onnxc has no map "
              "types)")


def ml_section():
    lines = ["", "## ai.onnx.ml (classic ML)", "",
             "Tested by the classic-ML pipelines in `tests/ml` (scikit-learn via skl2onnx, XGBoost",
             "and LightGBM via onnxmltools; `ctest -L ml`), compared with ONNX Runtime's outputs,",
             "and by the `ai_onnx_ml` backend cases above.", "",
             "| Operator | Opsets | Notes |", "|---|---|---|"]
    lines += [f"| ai.onnx.ml.{op} | {opsets} | {md(note)} |" for op, opsets, note in ML_OPS]
    lines += ["", f"Not supported: {ML_MISSING}."]
    return lines


def generate(case_ops, failures, baked):
    per_op = collections.defaultdict(lambda: {"plain": [], "expanded": []})
    for case, op in case_ops.items():
        per_op[op]["expanded" if is_expanded(case) else "plain"].append(case)
    total, failing = len(case_ops), sum(1 for c in case_ops if c in failures)
    plain = [c for c in case_ops if not is_expanded(c)]
    plain_pass = sum(1 for c in plain if c not in failures)

    def passes(cases):
        return sum(1 for c in cases if c not in failures)

    full = sorted(op for op, d in per_op.items() if d["plain"] and passes(d["plain"]) == len(d["plain"]))
    partial = sorted(op for op, d in per_op.items() if 0 < passes(d["plain"]) < len(d["plain"]))
    lines = [
        "# Supported ONNX operators",
        "",
        "<!-- Generated by scripts/gen_supported_ops.py from tests/conformance/case_ops.txt and",
        "     tests/conformance/known_failures.txt; do not edit. Regenerate with:",
        "       tests/conformance/update_known_failures.py --onnxc BUILD/bin/onnxc",
        "       scripts/gen_supported_ops.py -->",
        "",
        "Measured with ONNX's backend node tests (onnx 1.23.0, `../shared/testdata/onnx-backend/node`):",
        "each case is compiled, run and compared with its stored outputs by `onnxc verify`",
        "(ctest `conformance.<case>`, labelled by op). `_expanded` cases run the op's function",
        "body (its decomposition into other ops) and are counted separately.",
        "",
        f"- **{total - failing} of {total}** cases pass ({100.0 * (total - failing) / total:.1f}%);"
        f" {failing} are known failures.",
        (f"- With every graph input given at run time: **{total - failing - len(baked)} of"
         f" {total}** pass; the other {len(baked)} passing cases need some inputs compiled in as"
         " constants (`onnxc verify` bakes inputs the compiler needs at compile time;"
         " tests/conformance/baked_inputs.txt)." if baked else
         "- Every passing case also passes with all its graph inputs given at run time: `onnxc"
         " verify` compiles none of them in (tests/conformance/baked_inputs.txt, the list of"
         " cases that would need it, is empty, and ctest fails any other case where verify"
         " bakes an input)."),
        f"- Direct cases (not `_expanded`): {plain_pass} of {len(plain)} pass.",
        f"- Operators: {len(per_op)} tested, {len(full)} pass all their direct cases, "
        f"{len(partial)} pass some.",
        "",
        "## Known failures by category",
        "",
        "| Category | Cases |",
        "|---|---:|",
    ]
    by_category = collections.Counter(category(failures[c]) for c in case_ops if c in failures)
    for name, n in by_category.most_common():
        lines.append(f"| {name} | {n} |")
    lines += [
        "",
        "## Per operator",
        "",
        "Pass/Cases count the op's direct cases; Baked, those of its passing direct cases that",
        "need inputs compiled in as constants; Expanded counts its `_expanded` variants.",
        "",
        "| Operator | Status | Pass | Cases | Baked | Expanded pass | Why the others fail |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for op in sorted(per_op, key=str.lower):
        d = per_op[op]
        n, p = len(d["plain"]), passes(d["plain"])
        en, ep = len(d["expanded"]), passes(d["expanded"])
        status = "—" if n == 0 else "yes" if p == n else "partial" if p else "no"
        expanded = f"{ep}/{en}" if en else ""
        reasons = reason_summary([failures[c] for c in sorted(d["plain"] + d["expanded"])
                                  if c in failures])
        nb = sum(1 for c in d["plain"] if c in baked)
        lines.append(f"| {md(op)} | {status} | {p} | {n} | {nb or ''} | {expanded} | {reasons} |")
    lines += ml_section()
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--conformance", default=os.path.join(REPO, "tests", "conformance"))
    p.add_argument("--output", default=os.path.join(REPO, "docs", "SupportedOps.md"))
    p.add_argument("--check", action="store_true",
                   help="fail if --output is not what would be generated")
    args = p.parse_args()
    case_ops = read_pairs(os.path.join(args.conformance, "case_ops.txt"))
    failures = read_pairs(os.path.join(args.conformance, "known_failures.txt"))
    unknown = sorted(set(failures) - set(case_ops))
    if unknown:
        sys.exit(f"known_failures.txt lists cases missing from case_ops.txt: {', '.join(unknown[:5])}")
    baked = read_pairs(os.path.join(args.conformance, "baked_inputs.txt"))
    stale = sorted(set(baked) & set(failures) | (set(baked) - set(case_ops)))
    if stale:
        sys.exit(f"baked_inputs.txt lists failing or unknown cases: {', '.join(stale[:5])}")
    text = generate(case_ops, failures, baked)
    if args.check:
        with open(args.output) as f:
            if f.read() != text:
                sys.exit(f"{args.output} is out of date: run {sys.argv[0]}")
        return
    with open(args.output, "w") as f:
        f.write(text)
    print(f"wrote {os.path.relpath(args.output)}")


if __name__ == "__main__":
    main()
