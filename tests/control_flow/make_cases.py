#!/usr/bin/env python3
"""Generates the control-flow test models (If, Loop, Scan) with test data sets whose expected
outputs come from a numpy reference written beside each model (Debian's python3-onnx 1.12 has no
onnx.reference):

  make_cases.py OUT_DIR

writes OUT_DIR/CASE/model.onnx and OUT_DIR/CASE/test_data_set_K/{input,output}_N.pb. Several data
sets per case take different run-time paths through one compiled library (both If branches,
different run-time trip counts, early exit), so a branch or loop that was unrolled or folded at
compile time fails them.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as h, numpy_helper

F, I64, B = TP.FLOAT, TP.INT64, TP.BOOL


def vi(name, dt, shape):
    return h.make_tensor_value_info(name, dt, shape)


def const(name, arr):
    return h.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(arr), name))


def model(nodes, inputs, outputs, inits=(), opset=17):
    g = h.make_graph(nodes, "g", inputs, outputs, list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def if_runtime():
    """Both branches read outer values (x, y, an initializer); the else branch holds an If."""
    w = numpy_helper.from_array(np.linspace(-1, 1, 12).astype(np.float32).reshape(3, 4), "w")
    then_g = h.make_graph([h.make_node("Mul", ["x", "w"], ["t0"]),
                           h.make_node("Add", ["t0", "y"], ["t_out"])],
                          "then", [], [vi("t_out", F, [3, 4])])
    inner_then = h.make_graph([h.make_node("Sub", ["x", "y"], ["it"])], "it", [],
                              [vi("it", F, [3, 4])])
    inner_else = h.make_graph([h.make_node("Neg", ["w"], ["ie"])], "ie", [], [vi("ie", F, [3, 4])])
    else_g = h.make_graph([h.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
                           const("zero", np.float32(0)),
                           h.make_node("Greater", ["s", "zero"], ["pos"]),
                           h.make_node("If", ["pos"], ["e_out"], then_branch=inner_then,
                                       else_branch=inner_else)],
                          "else", [], [vi("e_out", F, [3, 4])])
    nodes = [h.make_node("If", ["cond"], ["out"], then_branch=then_g, else_branch=else_g),
             h.make_node("Relu", ["out"], ["r"])]
    m = model(nodes, [vi("cond", B, []), vi("x", F, [3, 4]), vi("y", F, [3, 4])],
              [vi("out", F, [3, 4]), vi("r", F, [3, 4])], [w])
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = rng.standard_normal((3, 4)).astype(np.float32)
    sets = [[np.array(c), s * np.abs(x), y] for c, s in ((True, 1), (False, 1), (False, -1))]
    wv = numpy_helper.to_array(w)

    def ref(c, x, y):
        out = x * wv + y if c else (x - y if x.sum() > 0 else -wv)
        return [out, np.maximum(out, 0)]
    return m, sets, ref


def loop_body(nodes, extra_inputs, outputs):
    return h.make_graph(nodes, "body", [vi("i", I64, []), vi("c_in", B, [])] + extra_inputs,
                        outputs)


def loop_runtime():
    """Run-time trip count M, loop-carried s (reads the iteration number and an outer value),
    and two carried values that swap every iteration."""
    body = loop_body([h.make_node("Cast", ["i"], ["fi"], to=F),
                      h.make_node("Mul", ["s", "half"], ["s0"]),
                      h.make_node("Add", ["s0", "fi"], ["s1"]),
                      h.make_node("Add", ["s1", "w"], ["s_out"]),
                      h.make_node("Identity", ["c_in"], ["c_out"])],
                     [vi("s", F, [2, 3]), vi("a", F, [2, 3]), vi("b", F, [2, 3])],
                     [vi("c_out", B, []), vi("s_out", F, [2, 3]), vi("b", F, [2, 3]),
                      vi("a", F, [2, 3])])
    nodes = [const("half", np.float32(0.5)), const("true", np.array(True)),
             h.make_node("Loop", ["M", "true", "x", "x", "w"], ["s_final", "a_final", "b_final"],
                         body=body)]
    m = model(nodes, [vi("M", I64, []), vi("x", F, [2, 3]), vi("w", F, [2, 3])],
              [vi("s_final", F, [2, 3]), vi("a_final", F, [2, 3]), vi("b_final", F, [2, 3])])
    rng = np.random.default_rng(2)
    x, w = (rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2))

    def ref(n, x, w):
        s, a, b = x.copy(), x.copy(), w.copy()
        for i in range(int(n)):
            s, a, b = s * np.float32(0.5) + np.float32(i) + w, b, a
        return [s, a, b]
    return m, [[np.array(n, np.int64), x, w] for n in (0, 1, 3, 8)], ref


def loop_early_exit():
    """No trip count: runs while sum(s) < limit (a run-time condition), doubling s."""
    body = loop_body([h.make_node("Add", ["s", "s"], ["s_out"]),
                      h.make_node("ReduceSum", ["s_out"], ["total"], keepdims=0),
                      h.make_node("Less", ["total", "limit"], ["c_out"])],
                     [vi("s", F, [4])], [vi("c_out", B, []), vi("s_out", F, [4])])
    nodes = [h.make_node("ReduceSum", ["x"], ["t0"], keepdims=0),
             h.make_node("Less", ["t0", "limit"], ["c0"]),
             h.make_node("Loop", ["", "c0", "x"], ["s_final"], body=body)]
    m = model(nodes, [vi("x", F, [4]), vi("limit", F, [])], [vi("s_final", F, [4])])
    x = np.array([0.5, 0.25, 1, 0.125], np.float32)

    def ref(x, limit):
        s = x.copy()
        while s.sum() < limit:
            s = s + s
        return [s]
    return m, [[x, np.float32(v)] for v in (1.0, 100.0, 3000.0)], ref


def loop_scan_outputs():
    """Constant trip count with scan outputs (each iteration's state and iteration number)."""
    body = loop_body([h.make_node("Mul", ["s", "x"], ["s_out"]),
                      h.make_node("Identity", ["s_out"], ["s_scan"]),
                      h.make_node("Identity", ["i"], ["i_out"]),
                      h.make_node("Identity", ["c_in"], ["c_out"])],
                     [vi("s", F, [3])],
                     [vi("c_out", B, []), vi("s_out", F, [3]), vi("s_scan", F, [3]),
                      vi("i_out", I64, [])])
    nodes = [const("M", np.int64(5)),
             h.make_node("Loop", ["M", "", "x"], ["s_final", "states", "iters"], body=body)]
    m = model(nodes, [vi("x", F, [3])],
              [vi("s_final", F, [3]), vi("states", F, [5, 3]), vi("iters", I64, [5])])

    def ref(x):
        s, states = x.copy(), []
        for _ in range(5):
            s = s * x
            states.append(s)
        return [s, np.stack(states), np.arange(5, dtype=np.int64)]
    return m, [[np.array([1.5, -0.5, 1.1], np.float32)], [np.array([0.9, 2, -1], np.float32)]], ref


def running_sum_body():
    """Scan body: acc += row; the sum, and acc * col + bias (bias an outer value)."""
    return h.make_graph([h.make_node("Add", ["acc", "row"], ["acc_out"]),
                         h.make_node("Mul", ["acc_out", "col"], ["prod"]),
                         h.make_node("Add", ["prod", "bias"], ["y"]),
                         h.make_node("Identity", ["acc_out"], ["sum"])],
                        "body", [vi("acc", F, [4]), vi("row", F, [4]), vi("col", F, [4])],
                        [vi("acc_out", F, [4]), vi("sum", F, [4]), vi("y", F, [4])])


def scan_sequence():
    """Scan with a running sum over axis 0, a second scan input read along axis 1 in reverse,
    and scan outputs along axis 0 and (reversed) along axis 1."""
    body = running_sum_body()
    nodes = [h.make_node("Scan", ["init", "seq", "cols"], ["final", "sums", "ys"], body=body,
                         num_scan_inputs=2, scan_input_axes=[0, 1], scan_input_directions=[0, 1],
                         scan_output_axes=[0, 1], scan_output_directions=[0, 1])]
    m = model(nodes, [vi("init", F, [4]), vi("seq", F, [5, 4]), vi("cols", F, [4, 5]),
                      vi("bias", F, [4])],
              [vi("final", F, [4]), vi("sums", F, [5, 4]), vi("ys", F, [4, 5])])
    rng = np.random.default_rng(3)

    def ref(init, seq, cols, bias):
        acc, sums, ys = init.copy(), [], []
        for t in range(5):
            acc = acc + seq[t]
            sums.append(acc)
            ys.append(acc * cols[:, 4 - t] + bias)
        return [acc, np.stack(sums), np.stack(ys[::-1], axis=1)]
    sets = [[rng.standard_normal(s).astype(np.float32) for s in ((4,), (5, 4), (4, 5), (4,))]]
    return m, sets, ref


def scan8_batched():
    """Scan opset 8: a batch of 3 sequences, two scan inputs (the second read in reverse), a
    constant sequence_lens of full lengths, and a body reading an outer value."""
    body = running_sum_body()
    nodes = [const("lens", np.full(3, 5, np.int32)),
             h.make_node("Scan", ["lens", "init", "seq", "cols"], ["final", "sums", "ys"],
                         body=body, num_scan_inputs=2, directions=[0, 1])]
    m = model(nodes, [vi("init", F, [3, 4]), vi("seq", F, [3, 5, 4]), vi("cols", F, [3, 5, 4]),
                      vi("bias", F, [4])],
              [vi("final", F, [3, 4]), vi("sums", F, [3, 5, 4]), vi("ys", F, [3, 5, 4])], opset=8)
    rng = np.random.default_rng(8)

    def ref(init, seq, cols, bias):
        finals, all_sums, all_ys = [], [], []
        for b in range(3):
            acc, sums, ys = init[b].copy(), [], []
            for t in range(5):
                acc = acc + seq[b, t]
                sums.append(acc)
                ys.append(acc * cols[b, 4 - t] + bias)
            finals.append(acc)
            all_sums.append(np.stack(sums))
            all_ys.append(np.stack(ys))
        return [np.stack(finals), np.stack(all_sums), np.stack(all_ys)]
    sets = [[rng.standard_normal(s).astype(np.float32)
             for s in ((3, 4), (3, 5, 4), (3, 5, 4), (4,))] for _ in range(2)]
    return m, sets, ref


def loop_sequence_nested_if():
    """A Loop carrying a sequence (unrolled: its trip count is a constant) whose body holds an If
    on a run-time flag reading the iteration number and an outer value: every unrolled copy
    gets its own copy of the branches."""
    f = lambda name: vi(name, F, [2])  # noqa: E731
    then = h.make_graph([h.make_node("Cast", ["i"], ["fi"], to=F),
                         h.make_node("Mul", ["x", "fi"], ["t"])], "then", [], [f("t")])
    other = h.make_graph([h.make_node("Cast", ["i"], ["fj"], to=F),
                          h.make_node("Add", ["x", "fj"], ["e"])], "else", [], [f("e")])
    body = h.make_graph([h.make_node("Identity", ["c"], ["c_out"]),
                         h.make_node("If", ["flag"], ["v"], then_branch=then, else_branch=other),
                         h.make_node("SequenceInsert", ["s", "v"], ["s_out"])],
                        "body", [vi("i", I64, []), vi("c", B, []),
                                 h.make_tensor_sequence_value_info("s", F, [2])],
                        [vi("c_out", B, []), h.make_tensor_sequence_value_info("s_out", F, [2])])
    nodes = [const("m", np.int64(3)), h.make_node("SequenceEmpty", [], ["s0"], dtype=F),
             h.make_node("Loop", ["m", "", "s0"], ["s_final"], body=body),
             h.make_node("ConcatFromSequence", ["s_final"], ["y"], axis=0, new_axis=1)]
    m = model(nodes, [vi("flag", B, []), vi("x", F, [2])], [vi("y", F, [3, 2])])

    def ref(flag, x):
        return [np.stack([x * i if flag else x + i for i in range(3)]).astype(np.float32)]
    x = np.array([1.5, -2.0], np.float32)
    return m, [[np.array(True), x], [np.array(False), x]], ref


def sequence_run_time_position():
    """SequenceInsert, SequenceErase and SequenceAt with positions given at run time (elements
    of one shape): each element of the result is selected at run time (Where chains), the
    positions checked and normalised (negative ones count from the back). The last data set's
    insert position is out of range: the run must fail (control_flow.sequence_position_range)."""
    t = lambda name: vi(name, F, [2, 3])  # noqa: E731
    nodes = [h.make_node("SequenceConstruct", ["a", "b", "c"], ["s"]),
             h.make_node("SequenceInsert", ["s", "t", "p_ins"], ["s2"]),
             h.make_node("SequenceErase", ["s2", "p_erase"], ["s3"]),
             h.make_node("SequenceAt", ["s3", "p_at"], ["y"]),
             h.make_node("ConcatFromSequence", ["s3"], ["z"], axis=0, new_axis=1)]
    m = model(nodes, [t("a"), t("b"), t("c"), t("t"), vi("p_ins", I64, []),
                      vi("p_erase", I64, []), vi("p_at", TP.INT32, [])],
              [vi("y", F, [2, 3]), vi("z", F, [3, 2, 3])])

    def ref(a, b, c, tt, p_ins, p_erase, p_at):
        s = [a, b, c]
        s.insert(int(p_ins), tt)  # Python's insert and del index as ONNX positions do
        del s[int(p_erase)]
        return [s[int(p_at)], np.stack(s)]
    a, b, c, tt = ((np.arange(6).reshape(2, 3) + v).astype(np.float32) for v in (10, 20, 30, 40))
    sets = [[a, b, c, tt, np.int64(p), np.int64(q), np.int32(r)]
            for p, q, r in ((0, 1, 0), (3, -1, 2), (-1, 0, -1), (-3, 3, -3), (1, -4, 1))]
    return m, sets, ref


def sequence_position_shapes():
    """SequenceInsert, SequenceErase and SequenceAt with run-time positions over elements of
    different shapes (one rank): each element of the result is selected at run time by
    onnxc.SelectShaped and shaped by the run; SequenceAt's result then feeds a Relu."""
    nodes = [h.make_node("SequenceConstruct", ["a", "b", "c"], ["s"]),
             h.make_node("SequenceInsert", ["s", "t", "p_ins"], ["s2"]),
             h.make_node("SequenceErase", ["s2", "p_erase"], ["s3"]),
             h.make_node("SequenceAt", ["s3", "p_at"], ["y"]),
             h.make_node("Neg", ["y"], ["ny"]),
             h.make_node("Relu", ["ny"], ["z"])]
    m = model(nodes, [vi("a", F, [2, 3]), vi("b", F, [1, 3]), vi("c", F, [4, 3]),
                      vi("t", F, [3, 3]), vi("p_ins", I64, []), vi("p_erase", I64, []),
                      vi("p_at", I64, [])],
              [vi("y", F, [None, 3]), vi("z", F, [None, 3])])

    def ref(a, b, c, tt, p_ins, p_erase, p_at):
        s = [a, b, c]
        s.insert(int(p_ins), tt)
        del s[int(p_erase)]
        return [s[int(p_at)], np.maximum(-s[int(p_at)], 0)]
    a, b, c, tt = (np.linspace(-1, 1, 3 * r).reshape(r, 3).astype(np.float32) + v
                   for r, v in ((2, 0), (1, 0.5), (4, -0.5), (3, 0.25)))
    sets = [[a, b, c, tt, np.int64(p), np.int64(q), np.int64(r)]
            for p, q, r in ((0, 1, 0), (3, -1, 2), (-1, 0, -1), (1, 2, 1))]
    return m, sets, ref


def if_shape_of_slice():
    """Regression: the Shape of a Slice with run-time bounds inside an If branch reads the
    Slice's shape from the run (the body's calls compute their shape words too)."""
    c = numpy_helper.from_array(np.arange(1, 9, dtype=np.float32), "c")
    then_g = h.make_graph([h.make_node("Slice", ["c", "s", "e"], ["b"]),
                           h.make_node("Shape", ["b"], ["sh"])], "then", [],
                          [vi("sh", I64, [1])])
    else_g = h.make_graph([const("k", np.array([-1], np.int64))], "else", [], [vi("k", I64, [1])])
    m = model([h.make_node("If", ["cond"], ["out"], then_branch=then_g, else_branch=else_g)],
              [vi("cond", B, []), vi("s", I64, [1]), vi("e", I64, [1])],
              [vi("out", I64, [1])], [c])

    def ref(cond, s, e):
        return [np.array([len(range(8)[int(s[0]):int(e[0])])] if cond else [-1], np.int64)]
    return m, [[np.array(v), np.array([a], np.int64), np.array([b], np.int64)]
               for v, a, b in ((True, 2, 6), (True, 0, 8), (False, 1, 2), (True, -3, 100))], ref


def loop_declared_body_shape():
    """Regression (test_loop11): body outputs whose shape a Slice with run-time bounds decides,
    declared static in the body: compiled with the declared shape [2], checked when the body
    runs (onnxc.CheckShape). The carried s becomes the slice c[2i:2i+2] plus the sum of s;
    the scan output is an Identity of it (an element-wise op of a value shaped at run time
    inside a body copies its shape from the run). M up to 3 keeps the slices inside c."""
    c = numpy_helper.from_array(np.arange(1, 7, dtype=np.float32), "c")
    body = loop_body([const("two", np.array([2], np.int64)),
                      h.make_node("Unsqueeze", ["i", "zero"], ["i1"]),
                      h.make_node("Mul", ["i1", "two"], ["start"]),
                      h.make_node("Add", ["start", "two"], ["end"]),
                      h.make_node("Slice", ["c", "start", "end"], ["piece"]),
                      h.make_node("ReduceSum", ["s"], ["total"], keepdims=0),
                      h.make_node("Add", ["piece", "total"], ["s_out"]),
                      h.make_node("Identity", ["s_out"], ["scan"]),
                      h.make_node("Identity", ["c_in"], ["c_out"])],
                     [vi("s", F, [2])],
                     [vi("c_out", B, []), vi("s_out", F, [2]), vi("scan", F, [2])])
    nodes = [const("zero", np.array([0], np.int64)),
             h.make_node("Loop", ["M", "", "x"], ["s_final", "scans"], body=body)]
    m = model(nodes, [vi("M", I64, []), vi("x", F, [2])],
              [vi("s_final", F, [2]), vi("scans", F, [None, 2])], [c])
    cv = numpy_helper.to_array(c)

    def ref(n, x):
        s, scans = x.copy(), []
        for i in range(int(n)):
            s = cv[2 * i:2 * i + 2] + s.sum()
            scans.append(s)
        return [s, np.array(scans, np.float32).reshape(-1, 2)]
    x = np.array([0.5, -1.5], np.float32)
    return m, [[np.array(n, np.int64), x] for n in (0, 1, 3)], ref


def if_declared_branch_shape():
    """A run-time If whose then_branch slices c by run-time bounds to the shape both branches
    declare ([2]): checked when the branch runs."""
    c = numpy_helper.from_array(np.arange(1, 9, dtype=np.float32), "c")
    then_g = h.make_graph([h.make_node("Slice", ["c", "s", "e"], ["b"])], "then", [],
                          [vi("b", F, [2])])
    else_g = h.make_graph([h.make_node("Neg", ["x"], ["n"])], "else", [], [vi("n", F, [2])])
    m = model([h.make_node("If", ["cond"], ["out"], then_branch=then_g, else_branch=else_g)],
              [vi("cond", B, []), vi("s", I64, [1]), vi("e", I64, [1]), vi("x", F, [2])],
              [vi("out", F, [2])], [c])
    cv = numpy_helper.to_array(c)

    def ref(cond, s, e, x):
        return [cv[int(s[0]):int(e[0])] if cond else -x]
    x = np.array([3.0, -4.0], np.float32)
    return m, [[np.array(v), np.array([a], np.int64), np.array([b], np.int64), x]
               for v, a, b in ((True, 2, 4), (False, 0, 8), (True, -2, 100))], ref


def sequence_run_time_split():
    """SplitToSequence by a scalar split given at run time: the sequence's length is decided
    by the run (ceil(6 / split)); the library gives seq.length, then one output per element it
    can have (6), those past the length empty. split 7 or 2**62 (k * split would overflow
    unclamped) gives one element of all 6 columns."""
    seq_t = h.make_sequence_type_proto(h.make_tensor_type_proto(F, None))
    m = model([h.make_node("SplitToSequence", ["x", "split"], ["seq"], axis=1)],
              [vi("x", F, [2, 6]), vi("split", I64, [])], [h.make_value_info("seq", seq_t)])
    x = np.arange(12, dtype=np.float32).reshape(2, 6) - 3

    def ref(x, split):
        k = int(split)
        return [[x[:, i:i + k] for i in range(0, 6, k)]]
    return m, [[x, np.array(k, np.int64)] for k in (1, 2, 4, 6, 7, 2**62)], ref


def sequence_run_time_split_used():
    """Error: a sequence whose length the run decides read by SequenceAt (graph outputs only)."""
    seq_t = h.make_sequence_type_proto(h.make_tensor_type_proto(F, None))
    nodes = [h.make_node("SplitToSequence", ["x", "split"], ["seq"], axis=1),
             const("first", np.int64(0)),
             h.make_node("SequenceAt", ["seq", "first"], ["y"])]
    return model(nodes, [vi("x", F, [2, 6]), vi("split", I64, [])], [vi("y", F, [2, None])])


def loop_run_time_sequence():
    """A Loop carrying a sequence whose trip count M and condition are given at run time (the
    body's condition computed too: sum of the new element < limit): onnxc copies the body for
    16 iterations and each element of the result is there only if its iteration ran (seq.length
    then 17 outputs, those past the length empty). The sequence starts with x; iteration i
    appends x[:i+1] * i. Data sets: M = 5; M = 0; cond false; stopped by the body's condition
    after 3 iterations; M = 16 (every copy runs)."""
    seq_t = h.make_sequence_type_proto(h.make_tensor_type_proto(F, None))
    body = loop_body([const("zero", np.array([0], np.int64)),
                      const("one", np.int64(1)),
                      const("axis0", np.array([0], np.int64)),
                      h.make_node("Add", ["i", "one"], ["i1"]),
                      h.make_node("Unsqueeze", ["i1", "axis0"], ["end"]),
                      h.make_node("Slice", ["x", "zero", "end"], ["head"]),
                      h.make_node("Cast", ["i"], ["fi"], to=F),
                      h.make_node("Mul", ["head", "fi"], ["e"]),
                      h.make_node("SequenceInsert", ["s_in", "e"], ["s_out"]),
                      h.make_node("ReduceSum", ["e"], ["total"], keepdims=0),
                      h.make_node("Less", ["total", "limit"], ["c_out"])],
                     [h.make_value_info("s_in", seq_t)],
                     [vi("c_out", B, []), h.make_value_info("s_out", seq_t)])
    m = model([h.make_node("SequenceConstruct", ["x"], ["s0"]),
               h.make_node("Loop", ["M", "c0", "s0"], ["seq"], body=body)],
              [vi("M", I64, []), vi("c0", B, []), vi("limit", F, []), vi("x", F, [4])],
              [h.make_value_info("seq", seq_t)])
    x = np.array([1, 2, 3, 4], np.float32)

    def ref(m, c0, limit, x):
        seq, cond, i = [x], bool(c0), 0
        while i < int(m) and cond:
            e = x[:i + 1] * np.float32(i)
            seq.append(e)
            cond = bool(e.sum() < limit)
            i += 1
        return [seq]
    sets = [[np.array(mm, np.int64), np.array(c), np.array(lim, np.float32), x]
            for mm, c, lim in ((5, True, 1e9), (0, True, 1e9), (4, False, 1e9), (100, True, 10),
                               (16, True, 1e9))]
    return m, sets, ref


def loop_run_time_carried_tensor():
    """Error: a Loop with a run-time trip count carrying a sequence and a tensor it changes."""
    seq_t = h.make_sequence_type_proto(h.make_tensor_type_proto(F, None))
    body = loop_body([h.make_node("SequenceInsert", ["s_in", "t_in"], ["s_out"]),
                      h.make_node("Add", ["t_in", "t_in"], ["t_out"]),
                      h.make_node("Identity", ["c_in"], ["c_out"])],
                     [h.make_value_info("s_in", seq_t), vi("t_in", F, [2])],
                     [vi("c_out", B, []), h.make_value_info("s_out", seq_t), vi("t_out", F, [2])])
    return model([h.make_node("SequenceEmpty", [], ["s0"], dtype=F),
                  h.make_node("Loop", ["M", "", "s0", "x"], ["seq", "y"], body=body)],
                 [vi("M", I64, []), vi("x", F, [2])],
                 [h.make_value_info("seq", seq_t), vi("y", F, [2])])


def if_branch_ranks():
    """A run-time If whose branches give one value as a scalar and as a 1-element vector (as
    AffineGrid's function body does): onnxc gives it rank 1 (a Reshape at the end of the
    scalar's branch), which is exact for the broadcasting ops that read it (Mul with x [3],
    then Neg of it, Add with x)."""
    then_g = h.make_graph([h.make_node("Mul", ["k", "k"], ["t"])], "t", [], [vi("t", F, [])])
    else_g = h.make_graph([h.make_node("Div", ["one", "v"], ["e"])], "e", [],
                          [vi("e", F, [1])])
    nodes = [const("one", np.array([1.0], np.float32)),
             h.make_node("If", ["c"], ["s"], then_branch=then_g, else_branch=else_g),
             h.make_node("Mul", ["x", "s"], ["y"]),
             h.make_node("Neg", ["s"], ["ns"]),
             h.make_node("Add", ["ns", "x"], ["z"])]
    m = model(nodes, [vi("c", B, []), vi("k", F, []), vi("v", F, [1]), vi("x", F, [3])],
              [vi("y", F, [3]), vi("z", F, [3])])

    def ref(c, k, v, x):
        s = k * k if c else 1.0 / v
        return [(x * s).astype(np.float32), (-s + x).astype(np.float32)]
    x = np.array([1, -2, 3], np.float32)
    return m, [[np.array(c), np.array(3, np.float32), np.array([4], np.float32), x]
               for c in (True, False)], ref


def if_branch_ranks_output():
    """Error: the If output with two ranks is a graph output (its rank would be the run's)."""
    then_g = h.make_graph([h.make_node("Identity", ["k"], ["t"])], "t", [], [vi("t", F, [])])
    else_g = h.make_graph([h.make_node("Identity", ["v"], ["e"])], "e", [], [vi("e", F, [1])])
    return model([h.make_node("If", ["c"], ["s"], then_branch=then_g, else_branch=else_g)],
                 [vi("c", B, []), vi("k", F, []), vi("v", F, [1])], [vi("s", F, [None])])


def if_branch_ranks_reduced():
    """Error: the If output with two ranks feeds a ReduceSum (whose result rank would differ)."""
    then_g = h.make_graph([h.make_node("Identity", ["k"], ["t"])], "t", [], [vi("t", F, [])])
    else_g = h.make_graph([h.make_node("Identity", ["v"], ["e"])], "e", [], [vi("e", F, [1])])
    return model([h.make_node("If", ["c"], ["s"], then_branch=then_g, else_branch=else_g),
                  h.make_node("ReduceSum", ["s"], ["y"], keepdims=1, name="sum")],
                 [vi("c", B, []), vi("k", F, []), vi("v", F, [1])], [vi("y", F, [None])])


class Opt:
    """An optional reference output: its element (an array) or None (absent)."""

    def __init__(self, value):
        self.value = value


def if_optional_presence():
    """A run-time If whose then_branch gives an optional holding x * 2 and whose else_branch
    gives an empty optional (declared optional(float [3])): the library's outputs are
    out.present, then out, empty when absent. Data sets: present, absent."""
    opt_t = h.make_optional_type_proto(h.make_tensor_type_proto(F, [3]))
    then_g = h.make_graph([h.make_node("Mul", ["x", "x"], ["sq"]),
                           h.make_node("Optional", ["sq"], ["o_then"])], "t", [],
                          [h.make_value_info("o_then", opt_t)])
    else_g = h.make_graph([h.make_node("Optional", [], ["o_else"],
                                       type=h.make_tensor_type_proto(F, [3]))], "e", [],
                          [h.make_value_info("o_else", opt_t)])
    m = model([h.make_node("If", ["c"], ["out"], then_branch=then_g, else_branch=else_g)],
              [vi("c", B, []), vi("x", F, [3])], [h.make_value_info("out", opt_t)])
    x = np.array([1, -2, 3], np.float32)
    return m, [[np.array(c), x] for c in (True, False)], \
        lambda c, x: [Opt(x * x if c else None)]


def loop_run_time_scalars():
    """Error: a Loop with a run-time trip count appending scalars to a sequence (an element
    absent in the run would need 0 rows)."""
    seq_t = h.make_sequence_type_proto(h.make_tensor_type_proto(I64, []))
    body = loop_body([h.make_node("Identity", ["c_in"], ["c_out"]),
                      h.make_node("SequenceInsert", ["s_in", "i"], ["s_out"])],
                     [h.make_value_info("s_in", seq_t)],
                     [vi("c_out", B, []), h.make_value_info("s_out", seq_t)])
    return model([h.make_node("SequenceEmpty", [], ["s0"], dtype=I64),
                  h.make_node("Loop", ["M", "", "s0"], ["seq"], body=body)],
                 [vi("M", I64, [])], [h.make_value_info("seq", seq_t)])


def if_branch_ranks_both():
    """Error: an op whose inputs both have two ranks (an If output and its Neg): the result's rank
    would be the run's."""
    then_g = h.make_graph([h.make_node("Identity", ["k"], ["t"])], "t", [], [vi("t", F, [])])
    else_g = h.make_graph([h.make_node("Identity", ["v"], ["e"])], "e", [], [vi("e", F, [1])])
    return model([h.make_node("If", ["c"], ["s"], then_branch=then_g, else_branch=else_g),
                  h.make_node("Neg", ["s"], ["ns"]),
                  h.make_node("Mul", ["s", "ns"], ["y"], name="both")],
                 [vi("c", B, []), vi("k", F, []), vi("v", F, [1])], [vi("y", F, [None])])


def if_constant():
    """An If on a condition known at compile time (from a Shape): folded away (the chosen
    branch is inlined), checked by test.py; the branch reads an outer value."""
    then_g = h.make_graph([h.make_node("Mul", ["x", "x"], ["sq"])], "t", [], [vi("sq", F, [2, 3])])
    else_g = h.make_graph([h.make_node("Neg", ["x"], ["ng"])], "e", [], [vi("ng", F, [2, 3])])
    nodes = [h.make_node("Shape", ["x"], ["shape"]),
             h.make_node("ReduceProd", ["shape"], ["numel"], keepdims=0),
             const("six", np.int64(6)),
             h.make_node("Equal", ["numel", "six"], ["is6"]),
             h.make_node("If", ["is6"], ["out"], then_branch=then_g, else_branch=else_g)]
    m = model(nodes, [vi("x", F, [2, 3])], [vi("out", F, [2, 3])])
    return m, [[np.arange(6, dtype=np.float32).reshape(2, 3) - 2]], lambda x: [x * x]


def loop_shape_change():
    """Error: the loop-carried value doubles in length every iteration (run-time shapes)."""
    body = loop_body([h.make_node("Concat", ["s", "s"], ["s_out"], axis=0),
                      h.make_node("Identity", ["c_in"], ["c_out"])],
                     [vi("s", F, [2])], [vi("c_out", B, []), vi("s_out", F, [None])])
    return model([h.make_node("Loop", ["M", "", "x"], ["y"], body=body)],
                 [vi("M", I64, []), vi("x", F, [2])], [vi("y", F, [None])])


def loop_runtime_scan():
    """Run-time trip count M with scan outputs, shaped by the run (their buffers grow as the
    iterations append): each iteration's x * i and i; the first then doubled by an element-wise
    op of it. M = 0 gives empty outputs."""
    body = loop_body([h.make_node("Cast", ["i"], ["fi"], to=F),
                      h.make_node("Mul", ["x", "fi"], ["x_scan"]),
                      h.make_node("Identity", ["i"], ["i_scan"]),
                      h.make_node("Identity", ["c_in"], ["c_out"])],
                     [], [vi("c_out", B, []), vi("x_scan", F, [2]), vi("i_scan", I64, [])])
    nodes = [h.make_node("Loop", ["M", ""], ["ys", "is"], body=body), const("two", np.float32(2)),
             h.make_node("Mul", ["ys", "two"], ["ys2"])]
    m = model(nodes, [vi("M", I64, []), vi("x", F, [2])],
              [vi("ys2", F, [None, 2]), vi("is", I64, [None])])

    def ref(M, x):
        ys = np.array([x * np.float32(i) for i in range(int(M))], np.float32).reshape(-1, 2)
        return [ys * 2, np.arange(int(M), dtype=np.int64)]
    x = np.array([1.5, -2], np.float32)
    return m, [[np.int64(v), x] for v in (3, 0, 1, 300)], ref


def loop_scan_early_exit():
    """A while loop as exporters write it (M = INT64_MAX, a run-time condition) with a scan
    output: s doubles while sum(s) < limit, and every iteration's s is scanned."""
    body = loop_body([h.make_node("Add", ["s", "s"], ["s_out"]),
                      h.make_node("ReduceSum", ["s_out"], ["total"], keepdims=0),
                      h.make_node("Less", ["total", "limit"], ["c_out"]),
                      h.make_node("Identity", ["s_out"], ["s_scan"])],
                     [vi("s", F, [3])],
                     [vi("c_out", B, []), vi("s_out", F, [3]), vi("s_scan", F, [3])])
    nodes = [const("M", np.int64(2**63 - 1)),
             h.make_node("ReduceSum", ["x"], ["t0"], keepdims=0),
             h.make_node("Less", ["t0", "limit"], ["c0"]),
             h.make_node("Loop", ["M", "c0", "x"], ["s_final", "history"], body=body)]
    m = model(nodes, [vi("x", F, [3]), vi("limit", F, [])],
              [vi("s_final", F, [3]), vi("history", F, [None, 3])])

    def ref(x, limit):
        s, hist = x.copy(), []
        while s.sum() < limit:
            s = s + s
            hist.append(s)
        return [s, np.array(hist, np.float32).reshape(-1, 3)]
    x = np.array([0.5, 0.25, 1], np.float32)
    return m, [[x, np.float32(v)] for v in (1.0, 100.0, 1e30)], ref


def loop_scan_no_trip_count():
    """Error: scan outputs of a Loop with neither M nor cond (only the body's condition)."""
    body = loop_body([h.make_node("Identity", ["x"], ["x_scan"]),
                      h.make_node("Identity", ["c_in"], ["c_out"])],
                     [], [vi("c_out", B, []), vi("x_scan", F, [2])])
    return model([h.make_node("Loop", ["", ""], ["ys"], body=body)],
                 [vi("x", F, [2])], [vi("ys", F, [None, 2])])


def if_shape_mismatch():
    """Error: a run-time If whose branches produce different shapes."""
    then_g = h.make_graph([h.make_node("Identity", ["x"], ["t"])], "t", [], [vi("t", F, [2, 3])])
    else_g = h.make_graph([h.make_node("Transpose", ["x"], ["e"])], "e", [],
                          [vi("e", F, [3, 2])])
    return model([h.make_node("If", ["c"], ["out"], then_branch=then_g, else_branch=else_g)],
                 [vi("c", B, []), vi("x", F, [2, 3])], [vi("out", F, [None, None])])


ERROR_CASES = {f.__name__: f for f in (loop_shape_change, loop_scan_no_trip_count,
                                        if_shape_mismatch, sequence_run_time_split_used,
                                        loop_run_time_carried_tensor, if_branch_ranks_output,
                                        if_branch_ranks_reduced, loop_run_time_scalars,
                                        if_branch_ranks_both)}

CASES = {f.__name__: f for f in (if_runtime, if_constant, if_shape_of_slice, loop_runtime,
                                 loop_early_exit,
                                 loop_scan_outputs, loop_runtime_scan, loop_scan_early_exit,
                                 scan_sequence, scan8_batched, sequence_position_shapes,
                                 loop_sequence_nested_if, sequence_run_time_position,
                                 loop_declared_body_shape, if_declared_branch_shape,
                                 sequence_run_time_split, loop_run_time_sequence,
                                 if_branch_ranks, if_optional_presence)}


def write_case(out, name, m, sets, ref):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    onnx.save(m, os.path.join(d, "model.onnx"))
    names_in = [i.name for i in m.graph.input]
    names_out = [o.name for o in m.graph.output]
    for k, inputs in enumerate(sets):
        sd = os.path.join(d, f"test_data_set_{k}")
        os.makedirs(sd, exist_ok=True)
        outs = ref(*inputs)
        for kind, names, arrays in (("input", names_in, inputs), ("output", names_out, outs)):
            for j, (n, a) in enumerate(zip(names, arrays)):
                if isinstance(a, Opt):
                    t = numpy_helper.from_optional(
                        None if a.value is None else np.asarray(a.value), n,
                        onnx.OptionalProto.TENSOR)
                elif isinstance(a, list):
                    t = numpy_helper.from_list([np.asarray(e) for e in a], n)
                else:
                    t = numpy_helper.from_array(np.asarray(a), n)
                with open(os.path.join(sd, f"{kind}_{j}.pb"), "wb") as f:
                    f.write(t.SerializeToString())


def main(out):
    for name, make in CASES.items():
        write_case(out, name, *make())
    # An insert position beyond the sequence's end: the run fails (no reference).
    m, sets, ref = sequence_run_time_position()
    bad = sets[0][:4] + [np.int64(4), np.int64(0), np.int32(0)]
    write_case(os.path.join(out, "sequence_position_range"), "set", m, [bad],
               lambda *x: [np.zeros((2, 3), np.float32), np.zeros((3, 2, 3), np.float32)])
    # Body outputs whose run-time shape differs from the declared one: the run fails.
    m, _, ref = loop_declared_body_shape()
    write_case(os.path.join(out, "loop_declared_shape_differs"), "set", m,
               [[np.array(4, np.int64), np.zeros(2, np.float32)]],
               lambda *x: [np.zeros(2, np.float32), np.zeros((4, 2), np.float32)])
    m, _, ref = if_declared_branch_shape()
    write_case(os.path.join(out, "if_declared_shape_differs"), "set", m,
               [[np.array(True), np.array([1], np.int64), np.array([4], np.int64),
                 np.zeros(2, np.float32)]], lambda *x: [np.zeros(2, np.float32)])
    # A split below 1 at run time: the run fails (the split sizes do not add up).
    m, _, ref = sequence_run_time_split()
    write_case(os.path.join(out, "sequence_run_time_split_zero"), "set", m,
               [[np.zeros((2, 6), np.float32), np.array(0, np.int64)]],
               lambda *x: [[np.zeros((2, 6), np.float32)]])
    # A Loop carrying a sequence that the run takes past the 16 copies of its body: the run fails.
    m, sets, ref = loop_run_time_sequence()
    write_case(os.path.join(out, "loop_run_time_sequence_too_long"), "set", m,
               [[np.array(17, np.int64), np.array(True), np.array(1e9, np.float32), sets[0][3]]],
               ref)
    for name, make in ERROR_CASES.items():
        os.makedirs(os.path.join(out, name), exist_ok=True)
        onnx.save(make(), os.path.join(out, name, "model.onnx"))
    print(f"wrote {len(CASES)} cases and {len(ERROR_CASES)} error cases to {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_cases.py OUT_DIR")
    main(sys.argv[1])
