#!/usr/bin/python3
"""Writes attention-family test cases with numpy reference outputs, in the ONNX backend-test
layout, and verifies them with onnxc at 1 and 2 threads.

The ONNX backend node cases are tiny (a few heads, sequences of 2-6); these are larger, so the
kernels' parallel loops split across threads, and combine what the suite keeps apart: grouped
query attention with is_causal and a KV cache (past_key/past_value, present_* outputs),
3-D inputs with a short boolean mask and softcap, nonpad_kv_seqlen decoding with fully masked
rows, double precision with a 4-D additive mask and the softmax as qk_matmul_output,
RotaryEmbedding (3-D, interleaved, partial rotary dim, position ids), LinearAttention
(gated_delta with GQA, erase_gate and a past state), CausalConvWithState (double, SiLU, past
state) and FlexAttention (GQA; with score_mod/prob_mod subgraphs). The reference is a plain per-head float64 numpy implementation
of the ONNX operator definitions, written here independently of the kernels.

A second group checks that malformed nodes are refused with a clear `onnxc: error:` message.

Usage: make_cases.py OUT_DIR --onnxc ONNXC [--group cases|errors]
Exits 1 if any case fails.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

NP_TO_ONNX = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE,
              np.int64: TensorProto.INT64, np.bool_: TensorProto.BOOL}


def softmax_rows(s):
    """Row softmax in float64; a row with every entry -inf gives zeros."""
    out = np.zeros_like(s)
    for idx in np.ndindex(s.shape[:-1]):
        row = s[idx]
        m = row.max()
        if m == -np.inf:
            continue
        e = np.exp(row - m)
        out[idx] = e / e.sum()
    return out


def ref_attention(q, k, v, mask=None, past_k=None, past_v=None, nonpad=None, scale=None,
                  causal=False, q_heads=None, kv_heads=None, softcap=0.0, qk_mode=0):
    """Y, present_key, present_value, qk_matmul_output (float64) of ONNX Attention."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    three_d = q.ndim == 3
    if three_d:  # [B, S, H*D] -> [B, H, S, D]
        q = q.reshape(q.shape[0], q.shape[1], q_heads, -1).transpose(0, 2, 1, 3)
        k = k.reshape(k.shape[0], k.shape[1], kv_heads, -1).transpose(0, 2, 1, 3)
        v = v.reshape(v.shape[0], v.shape[1], kv_heads, -1).transpose(0, 2, 1, 3)
    if past_k is not None:
        k = np.concatenate([past_k.astype(np.float64), k], axis=2)
        v = np.concatenate([past_v.astype(np.float64), v], axis=2)
    B, Hq, L, D = q.shape
    Hkv, T = k.shape[1], k.shape[2]
    P = 0 if past_k is None else past_k.shape[2]
    scale = 1.0 / np.sqrt(D) if scale is None else scale
    y = np.zeros((B, Hq, L, v.shape[3]))
    qk = np.zeros((B, Hq, L, T))
    for b in range(B):
        offset = P if past_k is not None else (nonpad[b] - L if nonpad is not None else 0)
        for h in range(Hq):
            g = h // (Hq // Hkv)
            s = scale * (q[b, h] @ k[b, g].T)
            if softcap > 0:
                s = softcap * np.tanh(s / softcap)
            raw = s.copy()
            bias = np.zeros((L, T))
            if mask is not None:
                m4 = mask.reshape((1,) * (4 - mask.ndim) + mask.shape)
                mb = m4[b if m4.shape[0] > 1 else 0, h if m4.shape[1] > 1 else 0]
                mb = np.broadcast_to(mb, (L, mb.shape[-1]))
                full = np.full((L, T), -np.inf)
                full[:, :mb.shape[1]] = np.where(mb, 0.0, -np.inf) if mb.dtype == bool else mb
                bias += full
            for i in range(L):
                for j in range(T):
                    if (causal and j > i + offset) or (nonpad is not None and j >= nonpad[b]):
                        bias[i, j] = -np.inf
            s = s + bias
            p = softmax_rows(s)
            qk[b, h] = {0: raw, 1: raw, 2: s, 3: p}[qk_mode]
            y[b, h] = p @ v[b, g]
    if three_d:
        y = y.transpose(0, 2, 1, 3).reshape(B, L, -1)
    return y, k, v, qk


def ref_rotary(x, cos, sin, pos=None, interleaved=0, rot_dim=0, num_heads=0):
    x = x.astype(np.float64)
    three_d = x.ndim == 3
    xs = x.reshape(x.shape[0], x.shape[1], num_heads, -1) if three_d else x.transpose(0, 2, 1, 3)
    Dh = xs.shape[3]
    R = rot_dim or Dh
    c = cos[pos] if pos is not None else cos  # [B, L, R/2]
    s = sin[pos] if pos is not None else sin
    out = xs.copy()
    for i in range(R // 2):
        i1, i2 = (2 * i, 2 * i + 1) if interleaved else (i, i + R // 2)
        ci, si = c[:, :, None, i], s[:, :, None, i]
        out[..., i1] = ci * xs[..., i1] - si * xs[..., i2]
        out[..., i2] = si * xs[..., i1] + ci * xs[..., i2]
    return out.reshape(x.shape) if three_d else out.transpose(0, 2, 1, 3)


def ref_linear_attention(q, k, v, past, decay, beta, erase, hq, hkv, scale=None):
    """gated_delta LinearAttention, float64, token by token."""
    B, T, _ = q.shape
    dk, dv = q.shape[2] // hq, v.shape[2] // hkv
    scale = 1.0 / np.sqrt(dk) if scale is None else scale
    state = past.astype(np.float64).copy()
    y = np.zeros((B, T, hq * dv))
    for b in range(B):
        for t in range(T):
            for g in range(hkv):
                kt = k[b, t, g * dk:(g + 1) * dk].astype(np.float64)
                vt = v[b, t, g * dv:(g + 1) * dv].astype(np.float64)
                st = state[b, g] * np.exp(decay[b, t, g * dk:(g + 1) * dk])[:, None]
                ke = kt * erase[b, t, g * dk:(g + 1) * dk]
                w = beta[b, t, g] * (vt - st.T @ ke)
                state[b, g] = st + np.outer(kt, w)
            for h in range(hq):
                g = h // (hq // hkv)
                y[b, t, h * dv:(h + 1) * dv] = scale * (q[b, t, h * dk:(h + 1) * dk] @ state[b, g])
    return y, state


def ref_causal_conv(x, w, bias, past, silu):
    K = w.shape[2]
    padded = np.concatenate([past, x], axis=2).astype(np.float64)
    out = np.zeros(x.shape)
    for l in range(x.shape[2]):
        out[:, :, l] = (padded[:, :, l:l + K] * w[None, :, 0, :]).sum(-1) + bias[None, :]
    if silu:
        out = out / (1.0 + np.exp(-out))
    return out, padded[:, :, padded.shape[2] - (K - 1):]


def write_case(out_dir, name, op, inputs, outputs, attrs, domain="", opset=None):
    """inputs: list of (name, array or None); outputs: list of (name, array or None)."""
    d = os.path.join(out_dir, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    node = helper.make_node(op, [n if a is not None else "" for n, a in inputs],
                            [n if a is not None else "" for n, a in outputs], domain=domain,
                            **attrs)
    vi = lambda n, a: helper.make_tensor_value_info(n, NP_TO_ONNX[a.dtype.type], a.shape)
    graph = helper.make_graph([node], name, [vi(n, a) for n, a in inputs if a is not None],
                              [vi(n, a) for n, a in outputs if a is not None])
    imports = [helper.make_opsetid("", opset or 24)]
    if domain:
        imports.append(helper.make_opsetid(domain, 1))
    model = helper.make_model(graph, opset_imports=imports)
    model.ir_version = 10
    onnx.save(model, os.path.join(d, "model.onnx"))
    for kind, items in (("input", inputs), ("output", outputs)):
        for i, (n, a) in enumerate([(n, a) for n, a in items if a is not None]):
            with open(os.path.join(d, "test_data_set_0", f"{kind}_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())
    return d


def attention_cases(out, rng):
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    cases = []
    # GQA (8 query heads on 2 kv heads) + causal + KV cache, qk_matmul_output after the mask.
    q, k, v = f32(2, 8, 5, 32), f32(2, 2, 5, 32), f32(2, 2, 5, 24)
    pk, pv = f32(2, 2, 27, 32), f32(2, 2, 27, 24)
    y, prk, prv, qk = ref_attention(q, k, v, past_k=pk, past_v=pv, causal=True, qk_mode=2)
    qk = np.where(np.isinf(qk), -np.inf, qk)
    cases.append(write_case(out, "attention_gqa_causal_kvcache", "Attention",
                            [("Q", q), ("K", k), ("V", v), ("attn_mask", None), ("past_key", pk),
                             ("past_value", pv)],
                            [("Y", y.astype(np.float32)), ("present_key", prk.astype(np.float32)),
                             ("present_value", prv.astype(np.float32)),
                             ("qk_matmul_output", qk.astype(np.float32))],
                            {"is_causal": 1, "qk_matmul_output_mode": 2}))
    # 3-D GQA, boolean mask shorter than the keys (the rest masked out), softcap and scale.
    q, k, v = f32(3, 7, 6 * 16), f32(3, 9, 2 * 16), f32(3, 9, 2 * 8)
    mask = rng.random((7, 6)) > 0.3
    mask[:, 0] = True
    y, _, _, _ = ref_attention(q, k, v, mask=mask, q_heads=6, kv_heads=2, scale=0.3, softcap=4.0)
    cases.append(write_case(out, "attention_3d_gqa_boolmask_short_softcap", "Attention",
                            [("Q", q), ("K", k), ("V", v), ("attn_mask", mask)],
                            [("Y", y.astype(np.float32))],
                            {"q_num_heads": 6, "kv_num_heads": 2, "scale": 0.3, "softcap": 4.0}))
    # Decode step with nonpad_kv_seqlen (one batch has no valid key: a fully masked row).
    q, k, v = f32(3, 4, 1, 16), f32(3, 4, 20, 16), f32(3, 4, 20, 16)
    nonpad = np.array([20, 7, 0], dtype=np.int64)
    y, _, _, _ = ref_attention(q, k, v, nonpad=nonpad, causal=True)
    cases.append(write_case(out, "attention_nonpad_decode_empty_row", "Attention",
                            [("Q", q), ("K", k), ("V", v), ("attn_mask", None), ("past_key", None),
                             ("past_value", None), ("nonpad_kv_seqlen", nonpad)],
                            [("Y", y.astype(np.float32))], {"is_causal": 1}))
    # Double, 4-D additive mask broadcast over heads, softmax as qk_matmul_output.
    q, k, v = (rng.standard_normal(s) for s in ((2, 3, 6, 8), (2, 3, 10, 8), (2, 3, 10, 8)))
    mask = rng.standard_normal((2, 1, 6, 10))
    y, _, _, qk = ref_attention(q, k, v, mask=mask, qk_mode=3)
    cases.append(write_case(out, "attention_double_mask4d_softmax_out", "Attention",
                            [("Q", q), ("K", k), ("V", v), ("attn_mask", mask)],
                            [("Y", y), ("", None), ("", None), ("qk_matmul_output", qk)],
                            {"qk_matmul_output_mode": 3}))
    return cases


def other_cases(out, rng):
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    cases = []
    x = f32(2, 9, 4 * 32)
    ang = rng.random((64, 12)) * 6.0
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    pos = rng.integers(0, 64, (2, 9)).astype(np.int64)
    y = ref_rotary(x, cos, sin, pos, interleaved=1, rot_dim=24, num_heads=4)
    cases.append(write_case(out, "rotary_3d_interleaved_partial", "RotaryEmbedding",
                            [("input", x), ("cos_cache", cos), ("sin_cache", sin),
                             ("position_ids", pos)], [("output", y.astype(np.float32))],
                            {"interleaved": 1, "rotary_embedding_dim": 24, "num_heads": 4},
                            opset=23))
    hq, hkv, dk, dv, B, T = 8, 2, 16, 12, 2, 6
    q, k, v = f32(B, T, hq * dk) * 0.3, f32(B, T, hkv * dk) * 0.3, f32(B, T, hkv * dv)
    past = f32(B, hkv, dk, dv)
    decay = -rng.random((B, T, hkv * dk)).astype(np.float32)
    beta = rng.random((B, T, hkv)).astype(np.float32)
    erase = rng.random((B, T, hkv * dk)).astype(np.float32)
    y, st = ref_linear_attention(q, k, v, past, decay, beta, erase, hq, hkv)
    cases.append(write_case(out, "linear_attention_gated_delta_gqa_erase", "LinearAttention",
                            [("query", q), ("key", k), ("value", v), ("past_state", past),
                             ("decay", decay), ("beta", beta), ("erase_gate", erase)],
                            [("output", y.astype(np.float32)),
                             ("present_state", st.astype(np.float32))],
                            {"q_num_heads": hq, "kv_num_heads": hkv}, opset=27))
    x, w, bias, past = (rng.standard_normal(s) for s in ((3, 40, 50), (40, 1, 5), (40,),
                                                           (3, 40, 4)))
    y, pres = ref_causal_conv(x, w, bias, past, silu=True)
    cases.append(write_case(out, "causal_conv_double_silu_past", "CausalConvWithState",
                            [("input", x), ("weight", w), ("bias", bias), ("past_state", past)],
                            [("output", y), ("present_state", pres)], {"activation": "silu"},
                            opset=27))
    q, k, v = f32(2, 8, 12, 16), f32(2, 2, 20, 16), f32(2, 2, 20, 8)
    y, _, _, _ = ref_attention(q, k, v, scale=0.2)
    cases.append(write_case(out, "flexattention_gqa_scaled", "FlexAttention",
                            [("Q", q), ("K", k), ("V", v)], [("Y", y.astype(np.float32))],
                            {"scale": 0.2}, domain="ai.onnx.preview", opset=26))
    # Modifier subgraphs (expanded into standard ops): a tanh soft cap on the scores and a
    # constant factor on the probabilities, with grouped-query heads.
    cap, factor = 2.5, 0.5
    y, _, _, _ = ref_attention(q, k, v, softcap=cap)
    cases.append(write_case(out, "flexattention_gqa_modifiers", "FlexAttention",
                            [("Q", q), ("K", k), ("V", v)], [("Y", (factor * y).astype(np.float32))],
                            {"score_mod": scalar_graph("scores", [("Div", cap), ("Tanh", None),
                                                                  ("Mul", cap)]),
                             "prob_mod": scalar_graph("probs", [("Mul", factor)])},
                            domain="ai.onnx.preview", opset=26))
    return cases


def scalar_graph(name, steps):
    """A one-input subgraph applying `steps` (op, scalar constant operand or None) in turn."""
    nodes, inits, cur = [], [], name
    for i, (op, c) in enumerate(steps):
        ins = [cur]
        if c is not None:
            inits.append(numpy_helper.from_array(np.array(c, dtype=np.float32), f"c{i}"))
            ins.append(f"c{i}")
        nodes.append(helper.make_node(op, ins, [f"t{i}"]))
        cur = f"t{i}"
    nodes.append(helper.make_node("Identity", [cur], [name + "_out"]))
    t = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, None)  # noqa: E731
    return helper.make_graph(nodes, name + "_mod", [t(name)], [t(name + "_out")], inits)


def error_cases(out):
    """(case dir, expected message part) for nodes onnxc must refuse."""
    z = lambda *s: np.zeros(s, dtype=np.float32)
    return [
        (write_case(out, "err_head_size", "Attention", [("Q", z(1, 2, 3, 8)), ("K", z(1, 2, 4, 6)),
                                                         ("V", z(1, 2, 4, 6))], [("Y", z(1, 2, 3, 6))], {}),
         "inconsistent Q 1x2x3x8, K 1x2x4x6"),
        (write_case(out, "err_gqa_heads", "Attention", [("Q", z(1, 3, 3, 8)), ("K", z(1, 2, 4, 8)),
                                                         ("V", z(1, 2, 4, 8))], [("Y", z(1, 3, 3, 8))], {}),
         "Q's heads must be a multiple of K's"),
        (write_case(out, "err_3d_no_heads", "Attention", [("Q", z(1, 3, 8)), ("K", z(1, 4, 8)),
                                                           ("V", z(1, 4, 8))], [("Y", z(1, 3, 8))], {}),
         "needs q_num_heads/kv_num_heads attributes"),
        (write_case(out, "err_mask_shape", "Attention",
                    [("Q", z(1, 2, 3, 8)), ("K", z(1, 2, 4, 8)), ("V", z(1, 2, 4, 8)),
                     ("attn_mask", z(5, 4))], [("Y", z(1, 2, 3, 8))], {}),
         "attn_mask of shape 5x4 does not broadcast to 1x2x3x4"),
        (write_case(out, "err_rotary_dim", "RotaryEmbedding",
                    [("input", z(1, 2, 3, 8)), ("cos_cache", z(1, 3, 2)), ("sin_cache", z(1, 3, 2))],
                    [("output", z(1, 2, 3, 8))], {"rotary_embedding_dim": 5}, opset=23),
         "rotary_embedding_dim 5 must be even"),
        (write_case(out, "err_linear_rule", "LinearAttention",
                    [("query", z(1, 2, 8)), ("key", z(1, 2, 8)), ("value", z(1, 2, 8))],
                    [("output", z(1, 2, 8)), ("present_state", z(1, 1, 8, 8))],
                    {"q_num_heads": 1, "kv_num_heads": 1, "update_rule": "delta"}, opset=27),
         "update_rule 'delta' requires the beta input"),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--onnxc", required=True)
    ap.add_argument("--group", choices=["cases", "errors"], default="cases")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    failed = 0
    if args.group == "cases":
        rng = np.random.default_rng(1234)
        for d in attention_cases(args.out, rng) + other_cases(args.out, rng):
            for threads in (1, 2):
                r = subprocess.run([args.onnxc, "verify", os.path.join(d, "model.onnx"),
                                    os.path.join(d, "test_data_set_0"), "--threads", str(threads),
                                    "--rtol", "1e-4", "--atol", "1e-5"],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                ok = r.returncode == 0
                failed += not ok
                print(f"{'PASS' if ok else 'FAIL'} {os.path.basename(d)} threads={threads}")
                if not ok:
                    print(r.stdout)
    else:
        for d, want in error_cases(args.out):
            r = subprocess.run([args.onnxc, "compile", os.path.join(d, "model.onnx"), "-o",
                                os.path.join(d, "libm.so")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            ok = r.returncode == 1 and "onnxc: error:" in r.stdout and want in r.stdout
            failed += not ok
            print(f"{'PASS' if ok else 'FAIL'} {os.path.basename(d)}: {r.stdout.strip()}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
