#!/usr/bin/python3
"""String tensors and the string ops beyond the ONNX backend cases, against references computed
here with numpy and Python's `re` (for the patterns used, RE2 and Python agree).

Writes OUT/<case>/model.onnx and OUT/<case>/test_data_set_0/{input,output}_N.pb and runs
`onnxc verify` on each: StringConcat broadcasting with UTF-8 and with a constant operand, a
constant string graph output, Equal broadcasting, the data-movement ops on strings (Transpose,
Gather, Concat, Slice, Reshape, Expand, Unsqueeze, Flatten, Identity), RegexFullMatch on
patterns that need translating to POSIX ERE (\\d, \\w in brackets, escaped '-', (?:...), lazy
quantifiers, '.', \\b), StringNormalizer lower/upper of ASCII letters in UTF-8 text, LabelEncoder
with string keys (string and float values, defaults), integer keys with string values and at
opset 1, CategoryMapper both ways, TfIdfVectorizer with a string pool
(TFIDF, weights, skips, 2-D) and with an int pool (IDF), Cast and CastLike between strings and
float / double / int32 / int64 (the shortest %g text, NaN / INF spelling), a StringConcat of
constants that onnxc folds. Then models `onnxc compile` must
refuse with exit status 1 and a message naming the node.

Usage: make_cases.py OUT_DIR --onnxc ONNXC
Exits 1 if any case fails.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

S, B, F, I64 = TensorProto.STRING, TensorProto.BOOL, TensorProto.FLOAT, TensorProto.INT64
ELEM = {np.object_: S, np.bool_: B, np.float32: F, np.int64: I64, np.int32: TensorProto.INT32,
        np.float64: TensorProto.DOUBLE}


def strs(values, shape=None):
    a = np.array(values, dtype=object)
    return a.reshape(shape) if shape is not None else a


def save_case(out_dir, name, nodes, inputs, outputs, opset=20, ml=None, inits=()):
    """inputs/outputs: [(name, array)]."""
    def info(nm, a):
        return helper.make_tensor_value_info(nm, ELEM[a.dtype.type], a.shape)
    graph = helper.make_graph(nodes, name, [info(k, v) for k, v in inputs],
                              [info(k, v) for k, v in outputs], initializer=list(inits))
    opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid("ai.onnx.ml", ml)]
                                                 if ml else [])
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    data = os.path.join(out_dir, name, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(out_dir, name, "model.onnx"))
    for prefix, items in (("input", inputs), ("output", outputs)):
        for i, (k, v) in enumerate(items):
            onnx.save_tensor(numpy_helper.from_array(v, k), os.path.join(data, f"{prefix}_{i}.pb"))


def concat_cases(out):
    x = strs(["a", "h\u00e9", "", "\u65e5\u672c", "x y", "\U0001F600"], (2, 3))
    y = strs(["-1", "", "\u00fc"])
    save_case(out, "concat_broadcast", [helper.make_node("StringConcat", ["x", "y"], ["z"])],
              [("x", x), ("y", y)], [("z", np.char.add(x.astype(str), y.astype(str)).astype(object))])
    k = numpy_helper.from_array(strs(["_p", "_\u00e7", "_r"]), "k")
    nodes = [helper.make_node("StringConcat", ["x", "k"], ["z"]),
             helper.make_node("Constant", [], ["c"], value_strings=["const", "\u00e0"]),
             helper.make_node("StringConcat", ["c", "k2"], ["folded"])]  # evaluated by onnxc
    k2 = numpy_helper.from_array(strs(["!", "?"]), "k2")
    save_case(out, "concat_constant", nodes, [("x", x)],
              [("z", np.char.add(x.astype(str), ["_p", "_\u00e7", "_r"]).astype(object)),
               ("c", strs(["const", "\u00e0"])), ("folded", strs(["const!", "\u00e0?"]))],
              inits=[k, k2])


def equal_and_movement_cases(out):
    x = strs(["a", "b", "c", "dd", "\u00e9", ""], (2, 3))
    y = strs(["a", "x", ""], (1, 3))
    save_case(out, "equal_broadcast", [helper.make_node("Equal", ["x", "y"], ["e"])],
              [("x", x), ("y", y)], [("e", (x == y).astype(np.bool_))])
    i64 = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)  # noqa: E731
    inits = [i64("idx", [2, 0, 2]), i64("starts", [1]), i64("ends", [3]), i64("axes", [1]),
             i64("shape", [3, 2]), i64("eshape", [2, 2, 3]), i64("uaxes", [0])]
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
             helper.make_node("Gather", ["x", "idx"], ["g"], axis=1),
             helper.make_node("Concat", ["x", "x"], ["c"], axis=0),
             helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["s"]),
             helper.make_node("Reshape", ["x", "shape"], ["r"]),
             helper.make_node("Expand", ["x", "eshape"], ["ex"]),
             helper.make_node("Unsqueeze", ["x", "uaxes"], ["u"]),
             helper.make_node("Flatten", ["t"], ["f"], axis=0),
             helper.make_node("Identity", ["x"], ["i"])]
    outs = [("t", x.T.copy()), ("g", x[:, [2, 0, 2]]), ("c", np.concatenate([x, x])),
            ("s", x[:, 1:3].copy()), ("r", x.reshape(3, 2)),
            ("ex", np.broadcast_to(x, (2, 2, 3)).copy()), ("u", x[None]),
            ("f", x.T.reshape(1, 6)), ("i", x)]
    save_case(out, "data_movement", nodes, [("x", x)], outs, opset=13, inits=inits)


REGEXES = [r"\bx\w*\b", r"\d{3}-\d{4}", r"[\w.\-]{1,25}@(yahoo|gmail)\.com", r"(?:ab)+c?",
           r"a.*?b", r"\S+\s\S+", r"[\]a-]+", r"(\W|^)x[^\d]*"]
TEXTS = ["555-1234", "55-12345", "john.doe@gmail.com", "a-b@yahoo.com", "x@hotmail.com",
         "ababc", "abab", "ac", "a\nb", "axxb", "hello world", "hello  world", "]a-]", "-x--",
         "x", "xyz", "x1", ""]


def regex_cases(out):
    x = strs(TEXTS)
    for i, pattern in enumerate(REGEXES):
        want = np.array([re.fullmatch(pattern, t) is not None for t in TEXTS], np.bool_)
        save_case(out, f"regex_{i}",
                  [helper.make_node("RegexFullMatch", ["x"], ["y"], pattern=pattern)],
                  [("x", x)], [("y", want)])


def ascii_case(s, upper):
    return "".join(c.upper() if upper and "a" <= c <= "z" else
                   c.lower() if not upper and "A" <= c <= "Z" else c for c in s)


def normalizer_cases(out):
    words = ["Hello", "\u00dcBER caf\u00e9", "MiXeD 123", "", "\u65e5\u672cABC"]
    for action, upper in (("LOWER", False), ("UPPER", True)):
        for shape in ((5,), (1, 5)):
            x = strs(words, shape)
            y = strs([ascii_case(w, upper) for w in words], shape)
            node = helper.make_node("StringNormalizer", ["x"], ["y"], case_change_action=action,
                                    locale="en_US")
            save_case(out, f"normalizer_{action.lower()}_{len(shape)}d", [node], [("x", x)],
                      [("y", y)], opset=10)


def normalizer_stopword_cases(out):
    """Stopwords on strings given at run time: the output's shape is decided by the run
    ([kept] or [1, kept]; one empty string when every string is a stopword)."""
    stops = ["the", "Monday", "caf\u00e9"]
    cases = (("mixed", ["The", "cat", "on", "monday", "the", "CAF\u00e9", "Mondays"], 0, "UPPER"),
             ("sensitive", ["The", "cat", "the", "Monday", "monday"], 1, "NONE"),
             ("all_stopwords", ["the", "THE", "monday"], 0, "LOWER"))
    for name, words, sensitive, action in cases:
        key = (lambda w: w) if sensitive else (lambda w: ascii_case(w, False))
        skip = {key(w) for w in stops}
        kept = [w for w in words if key(w) not in skip] or [""]
        kept = [w if action == "NONE" else ascii_case(w, action == "UPPER") for w in kept]
        for rank in (1, 2):
            shape = (len(words),) if rank == 1 else (1, len(words))
            node = helper.make_node("StringNormalizer", ["x"], ["y"], stopwords=stops,
                                    is_case_sensitive=sensitive, case_change_action=action)
            y = strs(kept, (len(kept),) if rank == 1 else (1, len(kept)))
            save_case(out, f"normalizer_stopwords_{name}_{rank}d", [node],
                      [("x", strs(words, shape))], [("y", y)], opset=10)


def split_cases(out):
    """StringSplit on strings given at run time (the output's width, the most parts of a
    string, has no bound: the result goes to run-scoped memory) against Python's str.split."""
    words = ["a,b,,c", "", "\u65e5\u672c,\u00e9", ",", "no comma here", "x,y,z,w,v,u,t"]
    for name, delim, maxsplit, shape in (("comma", ",", None, (2, 3)),
                                         ("comma_maxsplit", ",", 2, (6,)),
                                         ("whitespace", None, None, (3, 2)),
                                         ("whitespace_maxsplit", "", 1, (6,))):
        texts = words if delim else ["  two  words ", "", "one", " a\tb\nc ", "  ", "x y z "]
        sep = delim or None
        parts = [t.split(sep) if maxsplit is None else t.split(sep, maxsplit) for t in texts]
        width = max(len(q) for q in parts)
        y = strs([q[k] if k < len(q) else "" for q in parts for k in range(width)],
                 shape + (width,))
        z = np.array([len(q) for q in parts], np.int64).reshape(shape)
        attrs = {} if delim is None else {"delimiter": delim}
        if maxsplit is not None:
            attrs["maxsplit"] = maxsplit
        node = helper.make_node("StringSplit", ["x"], ["y", "z"], **attrs)
        save_case(out, f"split_{name}", [node], [("x", strs(texts, shape))], [("y", y), ("z", z)])


def shaped_string_output_cases(out):
    """A string graph output shaped at run time that passes strings through (Reshape to a
    shape given at run time): copied into the context's memory (onnxc.StringCopy) for the
    elements of the shape the run recorded, which the output gets (a ShapeCopy region; before,
    the run reported no shape for it)."""
    x = strs(["a", "bb", "ccc", "dddd", "eeeee", "ffffff"])
    node = helper.make_node("Reshape", ["x", "shape"], ["y"])
    save_case(out, "reshape_run_time_shape", [node],
              [("x", x), ("shape", np.array([3, -1], np.int64))], [("y", x.reshape(3, 2))],
              opset=13)


def label_encoder_cases(out):
    keys, x = ["cat", "dog", "\u00e9l\u00e8ve", "cat"], strs(["dog", "cat", "bird", "\u00e9l\u00e8ve"])
    node = helper.make_node("LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml", keys_strings=keys,
                            values_strings=["C", "D", "E", "X"], default_string="?")
    save_case(out, "label_encoder_str_str", [node], [("x", x)],
              [("y", strs(["D", "C", "?", "E"]))], ml=2)
    node = helper.make_node("LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml", keys_strings=keys,
                            values_floats=[0.5, 1.5, 2.5, 9.0], default_float=-1.0)
    save_case(out, "label_encoder_str_float", [node], [("x", x)],
              [("y", np.array([1.5, 0.5, -1.0, 2.5], np.float32))], ml=2)
    ints = np.array([[3, -1, 7], [3, 0, 9]], np.int64)
    node = helper.make_node("LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml",
                            keys_int64s=[7, 3, 9, 3], values_strings=["seven", "three", "nine", "x"])
    save_case(out, "label_encoder_int_str", [node], [("x", ints)],
              [("y", strs(["three", "_Unused", "seven", "three", "_Unused", "nine"], (2, 3)))],
              ml=2)
    classes = ["zero", "one", "two"]
    node = helper.make_node("LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml",
                            classes_strings=classes, default_int64=-5)
    save_case(out, "label_encoder_opset1", [node], [("x", strs(["two", "zero", "none"]))],
              [("y", np.array([2, 0, -5], np.int64))], ml=1)
    cats_i, cats_s = [10, 20, 30], ["ten", "twenty", "thirty"]
    mapper = lambda: helper.make_node("CategoryMapper", ["x"], ["y"],  # noqa: E731
                                      domain="ai.onnx.ml", cats_int64s=cats_i,
                                      cats_strings=cats_s, default_string="?", default_int64=-1)
    save_case(out, "category_mapper_to_int", [mapper()], [("x", strs(["twenty", "ten", "x"]))],
              [("y", np.array([20, 10, -1], np.int64))], ml=1)
    save_case(out, "category_mapper_to_str", [mapper()], [("x", np.array([30, 5, 10], np.int64))],
              [("y", strs(["thirty", "?", "ten"]))], ml=1)


def tfidf_reference(rows, pool, counts, indexes, min_n, max_n, skip, mode, weights, cols):
    grams, g = {}, 0
    for k in range(1, len(counts) + 1):
        end = counts[k] if k < len(counts) else len(pool)
        for at in range(counts[k - 1], end, k):
            grams.setdefault(tuple(pool[at:at + k]), indexes[g])
            g += 1
    y = np.zeros((len(rows), cols), np.float32)
    for r, row in enumerate(rows):
        for s in range(skip + 1):  # unigrams do not depend on the skip: counted at s = 0
            for start in range(len(row)):
                for k in range(max(min_n, 1 if s == 0 else 2), max_n + 1):
                    pos = [start + j * (s + 1) for j in range(k)]
                    if pos[-1] >= len(row):
                        continue
                    col = grams.get(tuple(row[p] for p in pos))
                    if col is not None:
                        y[r, col] += 1
    w = np.ones(cols, np.float32)
    for g, col in zip(range(len(indexes)), indexes):
        if weights:
            w[col] = weights[g]
    if mode == "IDF":
        return np.where(y > 0, w, 0).astype(np.float32)
    return (y * w).astype(np.float32) if mode == "TFIDF" else y


def tfidf_cases(out):
    pool = ["the", "cat", "sat", "the", "cat", "cat", "sat", "on", "mat"]
    counts, idx, weights = [0, 3], [0, 1, 2, 3, 4, 5], [0.5, 2.0, 1.0, 3.0, 0.25, 1.5]
    rows = [["the", "cat", "sat", "on", "the", "mat"], ["cat", "cat", "sat", "the", "x", "cat"]]
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], min_gram_length=1, max_gram_length=2,
                            max_skip_count=1, mode="TFIDF", ngram_counts=counts,
                            ngram_indexes=idx, pool_strings=pool, weights=weights)
    want = tfidf_reference(rows, pool, counts, idx, 1, 2, 1, "TFIDF", weights, 6)
    save_case(out, "tfidf_strings", [node], [("x", strs(rows))], [("y", want)], opset=9)
    ipool, icounts, iidx = [7, 3, 9, 3, 7, 7, 9, 1, 3, 7], [0, 4], [6, 5, 4, 3, 2, 1, 0]
    irows = [[7, 3, 7, 9, 3, 7, 1, 3], [1, 1, 9, 9, 7, 3, 7, 9]]
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], min_gram_length=1, max_gram_length=2,
                            max_skip_count=2, mode="IDF", ngram_counts=icounts,
                            ngram_indexes=iidx, pool_int64s=ipool)
    want = tfidf_reference(irows, ipool, icounts, iidx, 1, 2, 2, "IDF", [], 7)
    save_case(out, "tfidf_int_idf", [node], [("x", np.array(irows, np.int32))], [("y", want)],
              opset=9)


def shortest_g(v, digits):
    """The ONNX Cast text of a float: NaN / INF / -INF, else the shortest %g that reads back."""
    if np.isnan(v):
        return "NaN"
    if np.isinf(v):
        return "INF" if v > 0 else "-INF"
    kind = type(v)
    for p in range(1, digits + 1):
        text = "%.*g" % (p, float(v))
        if kind(float(text)) == v:
            return text
    raise AssertionError(v)


def cast_cases(out):
    f = np.array([0.5, 1e10, -3.1415927, np.nan, np.inf, -np.inf, 1.0 / 3, 123456789.0,
                  1e-7, 0.0], np.float32)
    d = np.array([0.1, 2.0 / 3, -1e300, 5e-324], np.float64)
    i = np.array([0, -1, 9223372036854775807, -9223372036854775808], np.int64)
    to_s = lambda name: helper.make_node("Cast", [name], [name + "_s"], to=S)  # noqa: E731
    save_case(out, "cast_to_string", [to_s("f"), to_s("d"), to_s("i")],
              [("f", f), ("d", d), ("i", i)],
              [("f_s", strs([shortest_g(v, 9) for v in f])),
               ("d_s", strs([shortest_g(v, 17) for v in d])), ("i_s", strs([str(v) for v in i]))],
              opset=19)
    texts = ["3.14", "1e-5", "-2.5E3", "INF", "+inf", "-INF", "NaN", "0", "  42", "7"]
    x = strs(texts)
    want_f = np.array([float(t) for t in texts], np.float32)
    ints = ["12", "-7", "+3", "2147483647", "0"]
    nodes = [helper.make_node("Cast", ["x"], ["y"], to=F),
             helper.make_node("Cast", ["n"], ["m"], to=TensorProto.INT32),
             helper.make_node("CastLike", ["x", "like"], ["z"])]
    save_case(out, "cast_from_string", nodes,
              [("x", x), ("n", strs(ints)), ("like", np.zeros(1, np.float32))],
              [("y", want_f), ("m", np.array([int(t) for t in ints], np.int32)), ("z", want_f)],
              opset=19)


def error_models():
    """(name, model, expected message part, extra compile args) onnxc must refuse."""
    vi = helper.make_tensor_value_info

    def model(node, out_type=B, opset=20):
        g = helper.make_graph([node], "bad", [vi("x", S, [3])], [vi("y", out_type, None)])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 8
        return m
    cond = helper.make_tensor_value_info("c", B, [])
    branch = lambda v: helper.make_graph(  # noqa: E731
        [helper.make_node("Constant", [], ["k"], value_strings=[v]),
         helper.make_node("StringConcat", ["x", "k"], ["o"])], "b", [],
        [helper.make_tensor_value_info("o", S, [3])])
    if_model = helper.make_model(helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], then_branch=branch("a"), else_branch=branch("b"))],
        "bad", [cond, vi("x", S, [3])], [vi("y", S, [3])]),
        opset_imports=[helper.make_opsetid("", 20)])
    if_model.ir_version = 8
    return [
        ("string_constant_in_body", if_model, "inside an If/Loop/Scan body is not supported", []),
        ("regex_lookahead", model(helper.make_node("RegexFullMatch", ["x"], ["y"],
                                                   pattern="a(?=b)")),
         "cannot be expressed as a POSIX extended regular expression", []),
        ("regex_unicode_class", model(helper.make_node("RegexFullMatch", ["x"], ["y"],
                                                       pattern=r"\pLword")),
         "the escape \"\\p\"", []),
        ("string_on_armv7",
         model(helper.make_node("StringConcat", ["x", "x"], ["y"]), S),
         "supports only on 64-bit targets", ["--target", "armv7-unknown-linux-gnueabihf"]),
    ]


def run_errors(onnxc, out):
    failed = []
    os.makedirs(out, exist_ok=True)
    for name, m, want, extra in error_models():
        path = os.path.join(out, f"error_{name}.onnx")
        onnx.save(m, path)
        res = subprocess.run([onnxc, "compile", path, "-o", path + ".so"] + extra,
                             capture_output=True, text=True)
        named = "node #0" in res.stderr or "tensor 'x'" in res.stderr or "constant 'k" in res.stderr
        ok = res.returncode == 1 and want in res.stderr and named and \
            res.stderr.startswith("onnxc: error:") and not os.path.exists(path + ".so")
        print(f"{'ok' if ok else 'FAIL'} error_{name}")
        if not ok:
            print(res.stdout + res.stderr)
            failed.append(name)
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--onnxc", required=True)
    args = ap.parse_args()
    for make in (concat_cases, equal_and_movement_cases, regex_cases, normalizer_cases,
                 normalizer_stopword_cases, split_cases, shaped_string_output_cases,
                 label_encoder_cases,
                 tfidf_cases, cast_cases):
        make(args.out)
    failed = run_errors(args.onnxc, args.out.rstrip("/") + "_errors")
    for case in sorted(os.listdir(args.out)):
        d = os.path.join(args.out, case)
        cmd = [args.onnxc, "verify", os.path.join(d, "model.onnx"),
               os.path.join(d, "test_data_set_0"), "--threads", "2"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        # every input is given at run time: nothing may be compiled in
        ok = res.returncode == 0 and "compiling in" not in res.stdout + res.stderr
        print(f"{'ok' if ok else 'FAIL'} {case}")
        if not ok:
            print(res.stdout + res.stderr)
            failed.append(case)
    print(f"{len(failed)} cases failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
