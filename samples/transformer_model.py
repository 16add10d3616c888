"""The "transformer" sample model of make_sample_model.py: a tiny byte-level text transformer.

Input 'tokens' int64 1x16 (byte values 0..255), output 'logits' float 1x16x256: at position i
the scores of the byte that follows tokens[0..i]. Opset 17. Gather token embedding + learned
positional embedding, then LAYERS pre-norm blocks: LayerNormalization -> multi-head causal
self-attention (MatMul/Reshape/Transpose, scores scaled by 1/sqrt(head dim), causal mask added,
Softmax) -> residual Add -> LayerNormalization -> FFN with GELU written out with Erf
(x * 0.5 * (1 + erf(x / sqrt 2))) -> residual Add; final LayerNormalization and projection to
the 256-byte vocabulary. Weights come from numpy with a fixed seed. reference() evaluates the
model with numpy alone (float64).
"""
import math

import numpy as np
from onnx import TensorProto, helper, numpy_helper

SEED = 20240603
SEQ, VOCAB, DIM, HEADS, FFN, LAYERS = 16, 256, 64, 4, 128, 2
HEAD_DIM = DIM // HEADS
SAMPLE_TEXT = b"onnxc on aarch64"  # SEQ bytes


def erf(x):
    """Vectorised math.erf (numpy has none)."""
    return np.vectorize(math.erf)(x)


def make_weights():
    rng = np.random.default_rng(SEED)

    def mat(rows, cols):
        return rng.normal(0, 1 / np.sqrt(rows), (rows, cols)).astype(np.float32)

    def vec(n, scale=0.05, offset=0.0):
        return (offset + rng.normal(0, scale, n)).astype(np.float32)

    w = {"embed": rng.normal(0, 1, (VOCAB, DIM)).astype(np.float32),
         "pos": rng.normal(0, 0.5, (1, SEQ, DIM)).astype(np.float32)}
    for layer in range(LAYERS):
        p = f"l{layer}_"
        for ln in ("ln1", "ln2"):
            w[p + ln + "_g"], w[p + ln + "_b"] = vec(DIM, 0.1, 1.0), vec(DIM)
        for m in ("q", "k", "v", "o"):
            w[p + m + "_w"], w[p + m + "_b"] = mat(DIM, DIM), vec(DIM)
        w[p + "ff1_w"], w[p + "ff1_b"] = mat(DIM, FFN), vec(FFN)
        w[p + "ff2_w"], w[p + "ff2_b"] = mat(FFN, DIM), vec(DIM)
    w["lnf_g"], w["lnf_b"] = vec(DIM, 0.1, 1.0), vec(DIM)
    w["out_w"], w["out_b"] = mat(DIM, VOCAB) * np.float32(2), vec(VOCAB, 0.1)
    return w


def constants():
    mask = np.triu(np.full((SEQ, SEQ), -1e9, np.float32), k=1)
    return {"heads_shape": np.array([1, SEQ, HEADS, HEAD_DIM], np.int64),
            "model_shape": np.array([1, SEQ, DIM], np.int64),
            "scale": np.array(1 / np.sqrt(HEAD_DIM), np.float32),
            "causal_mask": mask, "half": np.array(0.5, np.float32),
            "one": np.array(1, np.float32), "sqrt2": np.array(np.sqrt(2), np.float32)}


class Graph:
    """Collects nodes; each helper returns its output's name."""

    def __init__(self):
        self.nodes = []

    def op(self, op_type, inputs, name, **attrs):
        self.nodes.append(helper.make_node(op_type, inputs, [name], name=name, **attrs))
        return name

    def linear(self, x, p, name):
        return self.op("Add", [self.op("MatMul", [x, p + "_w"], name + "_mm"), p + "_b"], name)

    def layer_norm(self, x, p, name):
        return self.op("LayerNormalization", [x, p + "_g", p + "_b"], name, axis=-1,
                       epsilon=1e-5)

    def attention(self, x, p):
        def heads(m, perm):
            h = self.op("Reshape", [self.linear(x, p + m, p + m), "heads_shape"], p + m + "_heads")
            return self.op("Transpose", [h], p + m + "_t", perm=perm)

        q = heads("q", [0, 2, 1, 3])
        k = heads("k", [0, 2, 3, 1])
        v = heads("v", [0, 2, 1, 3])
        s = self.op("Mul", [self.op("MatMul", [q, k], p + "scores"), "scale"], p + "scaled")
        s = self.op("Add", [s, "causal_mask"], p + "masked")
        a = self.op("Softmax", [s], p + "attn", axis=-1)
        c = self.op("Transpose", [self.op("MatMul", [a, v], p + "ctx")], p + "ctx_t",
                    perm=[0, 2, 1, 3])
        c = self.op("Reshape", [c, "model_shape"], p + "ctx_merged")
        return self.linear(c, p + "o", p + "attn_out")

    def gelu(self, x, p):
        e = self.op("Erf", [self.op("Div", [x, "sqrt2"], p + "gelu_div")], p + "gelu_erf")
        e = self.op("Add", [e, "one"], p + "gelu_add")
        return self.op("Mul", [self.op("Mul", [x, e], p + "gelu_mul"), "half"], p + "gelu")


def build():
    w, c = make_weights(), constants()
    g = Graph()
    x = g.op("Gather", ["embed", "tokens"], "embedded", axis=0)
    x = g.op("Add", [x, "pos"], "x0")
    for layer in range(LAYERS):
        p = f"l{layer}_"
        x = g.op("Add", [x, g.attention(g.layer_norm(x, p + "ln1", p + "ln1"), p)], p + "res1")
        h = g.gelu(g.linear(g.layer_norm(x, p + "ln2", p + "ln2"), p + "ff1", p + "ff1"), p)
        x = g.op("Add", [x, g.linear(h, p + "ff2", p + "ff2")], p + "res2")
    x = g.layer_norm(x, "lnf", "lnf")
    g.linear(x, "out", "logits")
    inits = [numpy_helper.from_array(a, n) for n, a in list(w.items()) + list(c.items())]
    graph = helper.make_graph(
        g.nodes, "sample_transformer",
        [helper.make_tensor_value_info("tokens", TensorProto.INT64, [1, SEQ])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, SEQ, VOCAB])], inits)
    return graph


def encode(text):
    """Byte tokens of `text`, truncated or padded with spaces to SEQ, as textgen.c does."""
    ids = list(text[:SEQ]) + [ord(" ")] * max(0, SEQ - len(text))
    return np.array([ids], np.int64)


def sample_input():
    return encode(SAMPLE_TEXT)


def reference(tokens):
    """The model evaluated with numpy alone (float64)."""
    w = {k: v.astype(np.float64) for k, v in make_weights().items()}
    mask = constants()["causal_mask"].astype(np.float64)

    def ln(x, p):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-5) * w[p + "_g"] + w[p + "_b"]

    def lin(x, p):
        return x @ w[p + "_w"] + w[p + "_b"]

    x = w["embed"][tokens[0]][None] + w["pos"]
    for layer in range(LAYERS):
        p = f"l{layer}_"
        h = ln(x, p + "ln1")
        q, k, v = (lin(h, p + m).reshape(SEQ, HEADS, HEAD_DIM).transpose(1, 0, 2) for m in "qkv")
        s = q @ k.transpose(0, 2, 1) / np.sqrt(HEAD_DIM) + mask
        a = np.exp(s - s.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        ctx = (a @ v).transpose(1, 0, 2).reshape(1, SEQ, DIM)
        x = x + lin(ctx, p + "o")
        f = lin(ln(x, p + "ln2"), p + "ff1")
        f = f * 0.5 * (1 + erf(f / np.sqrt(2)))
        x = x + lin(f, p + "ff2")
    return lin(ln(x, "lnf"), "out").astype(np.float32)
