#!/usr/bin/python3
"""Writes the malformed models of tests/errors into OUT_DIR, one file per case (CASE.onnx).

    /usr/bin/python3 tests/errors/make_error_models.py OUT_DIR

Every model is built with the onnx helper API (Debian's python3-onnx) without running the ONNX
checker, since most of them are invalid on purpose. tests/errors/CMakeLists.txt lists the cases,
the onnxc arguments and the message each must produce.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def vi(name, shape, dtype=F):
    return helper.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs, outputs, inits=(), opset=13, extra_opsets=(), value_info=()):
    graph = helper.make_graph(nodes, "bad", inputs, outputs, list(inits),
                              value_info=list(value_info))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    m = helper.make_model(graph, producer_name="onnxc-tests-errors", opset_imports=opsets)
    m.ir_version = 8
    return m.SerializeToString()


def unary(op, in_shape=(2, 3), out_shape=None, **attrs):
    """x -> op -> y."""
    return model([helper.make_node(op, ["x"], ["y"], name="n0", **attrs)],
                 [vi("x", list(in_shape))], [vi("y", out_shape)])


def binary(op, a, b):
    """a, b -> op -> y."""
    return model([helper.make_node(op, ["a", "b"], ["y"], name="n0")],
                 [vi("a", list(a)), vi("b", list(b))], [vi("y", None)])


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def external(location):
    """A Relu model whose weight w lives in external data at `location`."""
    w = TensorProto(name="w", data_type=F, dims=[2, 3])
    w.data_location = TensorProto.EXTERNAL
    for k, v in [("location", location), ("offset", "0"), ("length", "24")]:
        e = w.external_data.add()
        e.key, e.value = k, v
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [vi("x", [2, 3])], [vi("y", [2, 3])], [w])


def valid():
    return unary("Relu", out_shape=[2, 3])


def add_weight(w):
    """x + w -> y, with the initializer w built by hand (possibly malformed)."""
    return model([helper.make_node("Add", ["x", w.name], ["y"], name="add")],
                 [vi("x", [2, 3])], [vi("y", None)], [w])


def raw_tensor(dims, raw, dtype=F, name="w"):
    t = TensorProto(name=name, data_type=dtype, dims=list(dims))
    t.raw_data = raw
    return t


def external_at(location, offset, length):
    w = TensorProto(name="w", data_type=F, dims=[2, 3])
    w.data_location = TensorProto.EXTERNAL
    for k, v in [("location", location), ("offset", str(offset)), ("length", str(length))]:
        e = w.external_data.add()
        e.key, e.value = k, v
    return add_weight(w)


def with_consts(op, consts, x_shape=(2, 3), **attrs):
    """x plus constant inputs (name, array) -> op (named n0) -> y."""
    return model([helper.make_node(op, ["x"] + [n for n, _ in consts], ["y"], name="n0", **attrs)],
                 [vi("x", list(x_shape))], [vi("y", None)], [const(n, a) for n, a in consts])


def subgraph_outer_name():
    """An If whose then-branch reads 'nowhere', defined in no enclosing scope."""
    then_g = helper.make_graph([helper.make_node("Relu", ["nowhere"], ["t"], name="then_relu")],
                               "then", [], [vi("t", [2])])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"], name="else_neg")],
                               "else", [], [vi("e", [2])])
    node = helper.make_node("If", ["c"], ["y"], name="if0", then_branch=then_g,
                            else_branch=else_g)
    return model([node], [vi("c", [], TensorProto.BOOL), vi("x", [2])], [vi("y", None)])


def big_intermediate():
    """Relu(Relu(x)) on 256x256 floats: a 256 KiB intermediate in the arena."""
    return model([helper.make_node("Relu", ["x"], ["h"], name="r0"),
                  helper.make_node("Relu", ["h"], ["y"], name="r1")],
                 [vi("x", [256, 256])], [vi("y", [256, 256])])


def big_weights():
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [vi("x", [64, 64])], [vi("y", None)], [const("w", np.ones((64, 64), np.float32))])


CASES = {
    # Operators and opsets.
    "unsupported_op": lambda: unary("ImageDecoder", (3,)),
    # A sequence whose length a run-time input decides, with more possible elements than
    # onnxc gives outputs to (SplitToSequence of 100 rows by a run-time split).
    "data_dependent_runtime_input": lambda: model(
        [helper.make_node("SplitToSequence", ["x", "split"], ["s"], name="n0"),
         helper.make_node("SequenceAt", ["s", "zero"], ["y"], name="n1")],
        [vi("x", [100, 2]), vi("split", [], TensorProto.INT64)], [vi("y", None)],
        [const("zero", np.array(0, np.int64))]),
    # Values shaped at run time (ReduceSum over run-time axes, Range) may feed element-wise ops
    # with single values and values of the same run-time shape only (one with no bound also
    # the N-D ops of compiler/ops/run_time_data_ops.h: not Max), and at most 64.
    "shaped_broadcast": lambda: model(
        [helper.make_node("ReduceSum", ["x", "axes"], ["r"], name="n0"),
         helper.make_node("Add", ["r", "b"], ["y"], name="n1")],
        [vi("x", [2, 3]), vi("axes", [1], TensorProto.INT64)], [vi("y", None)],
        [const("b", np.ones([3], np.float32))]),
    "shaped_unbounded": lambda: model(
        [helper.make_node("Range", ["s", "l", "d"], ["r"], name="n0"),
         helper.make_node("Range", ["s", "l", "d"], ["q"], name="n2"),
         helper.make_node("Max", ["r", "q"], ["y"], name="n1")],
        [vi("s", [], TensorProto.FLOAT), vi("l", [], TensorProto.FLOAT),
         vi("d", [], TensorProto.FLOAT)], [vi("y", None)]),
    # ... counting the values in If/Loop/Scan bodies (here 63 Slices in a branch, plus a Range
    # and its square outside).
    "shaped_too_many_in_body": lambda: model(
        [helper.make_node("Range", ["z0", "n", "o1"], ["r"], name="n0"),
         helper.make_node("If", ["cond"], ["out"], name="n1", then_branch=helper.make_graph(
             [helper.make_node("Slice", ["c", "s", "e"], [f"b{i}"]) for i in range(63)]
             + [helper.make_node("Shape", [f"b{i}"], [f"h{i}"]) for i in range(63)]
             + [helper.make_node("Sum", [f"h{i}" for i in range(63)], ["sh"])], "then", [],
             [vi("sh", [1], TensorProto.INT64)]), else_branch=helper.make_graph(
             [helper.make_node("Identity", ["s"], ["k"])], "else", [],
             [vi("k", [1], TensorProto.INT64)])),
         helper.make_node("Mul", ["r", "r"], ["y"], name="n2")],
        [vi("n", [], TensorProto.INT64), vi("cond", [], TensorProto.BOOL),
         vi("s", [1], TensorProto.INT64), vi("e", [1], TensorProto.INT64)],
        [vi("out", [1], TensorProto.INT64), vi("y", None, TensorProto.INT64)],
        [const("c", np.arange(8, dtype=np.float32)), const("z0", np.array(0, np.int64)),
         const("o1", np.array(1, np.int64))]),
    "shaped_too_many": lambda: model(
        [helper.make_node("Reshape", ["w", "s"], [f"z{i}"], name=f"r{i}") for i in range(65)]
        + [helper.make_node("Relu", ["z0"], ["y"], name="n0")],
        [vi("w", [2, 3]), vi("s", [2], TensorProto.INT64)],
        [vi(f"z{i}", None) for i in range(1, 65)] + [vi("y", None)]),
    # Run-time counts (NonZero with a run-time input): two counts, a count over run-time input
    # dims, and an output dim that is an expression of the count.
    "two_run_time_counts": lambda: model(
        [helper.make_node("NonZero", ["x"], ["y"], name="n0"),
         helper.make_node("NonZero", ["x"], ["z"], name="n1")],
        [vi("x", [2, 3])], [vi("y", None), vi("z", None)]),
    "count_over_run_time_dims": lambda: model(
        [helper.make_node("NonZero", ["x"], ["y"], name="n0")], [vi("x", [2, "w"])],
        [vi("y", None)]),
    # A Reshape to a shape given at run time, in a model with a run-time batch.
    "shaped_output_with_batch": lambda: model(
        [helper.make_node("Relu", ["x"], ["y"], name="n0"),
         helper.make_node("Reshape", ["w", "s"], ["z"], name="n1")],
        [vi("x", ["batch", 3]), vi("w", [2, 3]), vi("s", [2], TensorProto.INT64)],
        [vi("y", None), vi("z", None)]),
    "count_output_expression": lambda: model(
        [helper.make_node("NonZero", ["x"], ["nz"], name="n0"),
         helper.make_node("Reshape", ["nz", "flat"], ["y"], name="n1")],
        [vi("x", [2, 3])], [vi("y", None)], [const("flat", np.array([-1], np.int64))]),
    "unknown_op": lambda: unary("NoSuchOperator"),
    "unknown_domain": lambda: model(
        [helper.make_node("Relu", ["x"], ["y"], name="n0", domain="com.example")],
        [vi("x", [2, 3])], [vi("y", None)], extra_opsets=[("com.example", 1)]),
    "unsupported_ml_op": lambda: _ml_node("DictVectorizer", int64_vocabulary=[1, 2]),
    "ml_category_mapper": lambda: _ml_node("CategoryMapper", x_type=TensorProto.INT64,
                                           cats_int64s=[1, 2], cats_strings=["a"],
                                           default_string="?"),
    "ml_onehot_strings": lambda: _ml_node("OneHotEncoder", x_type=TensorProto.INT64,
                                          cats_strings=["a", "b"]),
    "ml_label_encoder_strings": lambda: _ml_node("LabelEncoder", keys_floats=[1.0, 2.0],
                                                 values_strings=["a", "b"]),
    "ml_label_encoder_opset1": lambda: model(
        [helper.make_node("LabelEncoder", ["x"], ["y"], name="n0", domain="ai.onnx.ml",
                          classes_strings=["a", "b"], default_string="?")],
        [vi("x", [2, 3], TensorProto.FLOAT)], [vi("y", None)], extra_opsets=[("ai.onnx.ml", 1)]),
    "ml_label_encoder_key_type": lambda: _ml_node("LabelEncoder", x_type=TensorProto.INT32,
                                                  keys_int64s=[1, 2], values_int64s=[3, 4]),
    "ml_svm_support_vectors": lambda: _ml_node(
        "SVMClassifier", outputs=("label", "scores"), x_shape=[2, 4], classlabels_ints=[0, 1],
        vectors_per_class=[1, 1], support_vectors=[0.5] * 7, coefficients=[1.0, -1.0],
        rho=[0.0], kernel_type="RBF", kernel_params=[0.5, 0.0, 3.0]),
    "ml_svm_kernel_type": lambda: _ml_node("SVMRegressor", kernel_type="CUBIC", n_supports=0,
                                           coefficients=[1.0, 2.0, 3.0], rho=[0.0]),
    "ml_feature_vectorizer_dims": lambda: model(
        [helper.make_node("FeatureVectorizer", ["a", "b"], ["y"], name="n0", domain="ai.onnx.ml",
                          inputdimensions=[3])],
        [vi("a", [2, 3]), vi("b", [2, 1])], [vi("y", None)], extra_opsets=[("ai.onnx.ml", 3)]),
    # A constant input: folding runs the kernel at compile time, and its failure is reported.
    "ml_onehot_unknown_category": lambda: model(
        [helper.make_node("OneHotEncoder", ["c"], ["y"], name="n0", domain="ai.onnx.ml",
                          cats_int64s=[1, 2], zeros=0)],
        [], [vi("y", None)], [const("c", np.array([1, 5], np.int64))],
        extra_opsets=[("ai.onnx.ml", 3)]),
    "ml_string_labels": lambda: _tree_classifier(classlabels_strings=["a", "b"]),
    "ml_tree_cycle": lambda: _tree_classifier(classlabels_int64s=[0, 1], cycle=True),
    "opset_too_new": lambda: model([helper.make_node("Relu", ["x"], ["y"], name="n0")],
                                   [vi("x", [2, 3])], [vi("y", None)], opset=99),
    "missing_opset_import": lambda: model(
        [helper.make_node("Relu", ["x"], ["y"], name="n0", domain="com.example")],
        [vi("x", [2, 3])], [vi("y", None)]),
    # Files that are not models.
    "truncated_file": lambda: valid()[: len(valid()) // 2],
    "not_protobuf": lambda: b"this is not an ONNX model, just text\n" * 4,
    "empty_file": lambda: b"",
    # Graph structure.
    "missing_input_definition": lambda: model(
        [helper.make_node("Add", ["x", "undefined_value"], ["y"], name="n0")],
        [vi("x", [2, 3])], [vi("y", None)]),
    "cycle": lambda: model(
        [helper.make_node("Add", ["x", "b"], ["a"], name="n0"),
         helper.make_node("Relu", ["a"], ["b"], name="n1")],
        [vi("x", [2, 3])], [vi("a", None)]),
    "duplicate_output_name": lambda: model(
        [helper.make_node("Relu", ["x"], ["y"], name="n0"),
         helper.make_node("Neg", ["x"], ["y"], name="n1")],
        [vi("x", [2, 3])], [vi("y", None)]),
    "undefined_graph_output": lambda: model(
        [helper.make_node("Relu", ["x"], ["y"], name="n0")],
        [vi("x", [2, 3])], [vi("nowhere", None)]),
    # Shapes.
    "matmul_shape_mismatch": lambda: binary("MatMul", (2, 3), (4, 5)),
    "add_broadcast_mismatch": lambda: binary("Add", (2, 3), (4,)),
    "reshape_bad_size": lambda: model(
        [helper.make_node("Reshape", ["x", "s"], ["y"], name="n0")],
        [vi("x", [2, 3])], [vi("y", None)], [const("s", np.array([4, 2], np.int64))]),
    "reshape_two_inferred_dims": lambda: model(
        [helper.make_node("Reshape", ["x", "s"], ["y"], name="n0")],
        [vi("x", [2, 3])], [vi("y", None)], [const("s", np.array([-1, -1], np.int64))]),
    "transpose_perm_repeats": lambda: unary("Transpose", perm=[0, 0]),
    "transpose_perm_length": lambda: unary("Transpose", perm=[1, 0, 2]),
    "conv_channel_mismatch": lambda: model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="n0")],
        [vi("x", [1, 3, 8, 8])], [vi("y", None)],
        [const("w", np.zeros((4, 2, 3, 3), np.float32))]),
    # Quantisation: a per-axis scale that does not fit the axis; a per-row zero point of the
    # wrong length.
    "quantize_scale_shape": lambda: with_consts(
        "QuantizeLinear", [("s", np.ones(2, np.float32)), ("z", np.zeros(2, np.uint8))]),
    "matmulinteger_zero_point": lambda: model(
        [helper.make_node("MatMulInteger", ["x", "b", "z"], ["y"], name="n0")],
        [vi("x", [2, 3], TensorProto.UINT8)], [vi("y", None, TensorProto.INT32)],
        [const("b", np.ones((3, 4), np.uint8)), const("z", np.zeros(3, np.uint8))]),
    "string_input": lambda: model([helper.make_node("Neg", ["x"], ["y"], name="n0")],
                                  [vi("x", [2], TensorProto.STRING)],
                                  [vi("y", None, TensorProto.STRING)]),
    # External data.
    "external_data_dotdot": lambda: external("../outside.bin"),
    "external_data_absolute": lambda: external("/etc/passwd"),
    "external_data_missing": lambda: external("no_such_weights.bin"),
    # Symbolic dims (compiled without --dim / with bad bindings).
    # A symbolic dim that is not a leading batch: compile needs --dim.
    "unbound_symbolic_dim": lambda: model([helper.make_node("Relu", ["x"], ["y"], name="n0")],
                                          [vi("x", [3, "batch"])], [vi("y", None)]),
    # More inputs than the op's ONNX schema allows (the kernel would read one as its output).
    "extra_input": lambda: model([helper.make_node("Exp", ["x", "x"], ["y"], name="n0")],
                                 [vi("x", [2, 3])], [vi("y", None)]),
    # A required input given as '' (the count is right): found by fuzz.smoke, Slice's shape rule
    # read the missing data input (tests/fuzz/regressions/slice_empty_required_input.onnx).
    "empty_required_input": lambda: model(
        [helper.make_node("Slice", ["", "s", "e"], ["y"], name="n0")],
        [vi("x", [4]), vi("s", [1], TensorProto.INT64), vi("e", [1], TensorProto.INT64)],
        [vi("y", None)]),
    # The same at an opset newer than libonnx's schemas (found by fuzz.smoke in CI at opset 23):
    # the op's newest schema libonnx has says which inputs are required.
    "empty_required_input_new_opset": lambda: model(
        [helper.make_node("Slice", ["", "s", "e"], ["y"], name="n0")],
        [vi("x", [4]), vi("s", [1], TensorProto.INT64), vi("e", [1], TensorProto.INT64)],
        [vi("y", None)], opset=23),
    # If's condition given as '': the node has subgraphs, whose counts are not checked, but its
    # required inputs are (it compiled and ran one branch before).
    "empty_if_condition": lambda: model(
        [helper.make_node("If", [""], ["y"], name="n0",
                          then_branch=helper.make_graph([helper.make_node("Identity", ["x"], ["t"])],
                                                        "then", [], [vi("t", [2])]),
                          else_branch=helper.make_graph([helper.make_node("Neg", ["x"], ["e"])],
                                                        "else", [], [vi("e", [2])]))],
        [vi("x", [2])], [vi("y", [2])]),
    # A variadic input given as '': onnx.checker allows it, no operator gives it a meaning.
    "empty_variadic_input": lambda: model(
        [helper.make_node("Concat", ["x", ""], ["y"], name="n0", axis=0)], [vi("x", [2])],
        [vi("y", None)]),
    # A required attribute missing (SequenceMap's body reached the desugaring pass as null).
    "missing_required_attribute": lambda: model(
        [helper.make_node("LRN", ["x"], ["y"], name="n0")], [vi("x", [1, 2, 3, 3])],
        [vi("y", None)]),
    # Strides that overflowed the window arithmetic (found by fuzz.op_sweep under UBSan).
    "conv_huge_stride": lambda: model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="n0", strides=[2, 2**63 - 1])],
        [vi("x", [1, 1, 4, 4])], [vi("y", None)], [const("w", np.ones((1, 1, 3, 3), np.float32))]),
    # The same at an opset newer than libonnx's schemas: onnxc's own bound (OpDef::max_inputs).
    "extra_input_new_opset": lambda: model(
        [helper.make_node("Exp", ["x", "x"], ["y"], name="n0")], [vi("x", [2, 3])],
        [vi("y", None)], opset=22),
    # Two run-time dims, neither a batch: onnxc runs one (besides a per-sample batch).
    "two_runtime_dims": lambda: model([helper.make_node("Relu", ["x"], ["y"], name="n0")],
                                      [vi("x", [3, "h", "w"])], [vi("y", None)]),
    # A leading batch that a node mixes (softmax across the batch), with a sequence length: the
    # batch cannot run per sample and the sequence takes the one run-time extent.
    "batch_not_sample_wise": lambda: model(
        [helper.make_node("Softmax", ["x"], ["y"], name="n0", axis=0)],
        [vi("x", ["batch", "seq"])], [vi("y", None)]),
    # The same batch alone becomes the run-time extent (1..N values: the range is bounded).
    "softmax_over_batch": lambda: model(
        [helper.make_node("Softmax", ["x"], ["y"], name="n0", axis=0)],
        [vi("x", ["batch", 3])], [vi("y", None)]),
    # A graph output whose dim is an expression of the run-time dim (len/2).
    "output_derived_dim": lambda: model(
        [helper.make_node("MaxPool", ["x"], ["y"], name="n0", kernel_shape=[2], strides=[2])],
        [vi("x", [1, 1, "len"])], [vi("y", None)]),
    # Tensor validation (initializers).
    "tensor_raw_data_too_short": lambda: add_weight(raw_tensor([2, 3], b"\0" * 20)),
    "tensor_typed_count_mismatch": lambda: add_weight(
        TensorProto(name="w", data_type=F, dims=[2, 3], float_data=[1.0] * 5)),
    "tensor_raw_and_typed": lambda: add_weight(_raw_and_typed()),
    "tensor_negative_dim": lambda: add_weight(raw_tensor([-2, 3], b"")),
    "tensor_dims_overflow": lambda: add_weight(raw_tensor([1 << 40, 1 << 40], b"")),
    "tensor_unknown_dtype": lambda: add_weight(raw_tensor([2, 3], b"\0" * 24, dtype=99)),
    "tensor_no_dtype": lambda: add_weight(raw_tensor([2, 3], b"\0" * 24, dtype=0)),
    # Graph validation.
    "self_cycle": lambda: model([helper.make_node("Add", ["x", "y"], ["y"], name="n0")],
                                [vi("x", [2, 3])], [vi("y", None)]),
    "unsorted_cycle": lambda: model(
        [helper.make_node("Relu", ["c"], ["y"], name="last"),
         helper.make_node("Neg", ["b"], ["c"], name="middle"),
         helper.make_node("Add", ["x", "c"], ["b"], name="first")],
        [vi("x", [2, 3])], [vi("y", None)]),
    "missing_initializer": lambda: model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        [vi("x", [2, 3])], [vi("y", None)], value_info=[vi("w", [2, 3])]),
    "output_overwrites_input": lambda: model(
        [helper.make_node("Relu", ["a"], ["x"], name="n0")], [vi("x", [2, 3]), vi("a", [2, 3])],
        [vi("x", None)]),
    "duplicate_initializer": lambda: model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")], [vi("x", [2, 3])],
        [vi("y", None)], [const("w", np.ones((2, 3), np.float32)),
                          const("w", np.ones((2, 3), np.float32))]),
    "duplicate_graph_input": lambda: model(
        [helper.make_node("Relu", ["x"], ["y"], name="n0")], [vi("x", [2, 3]), vi("x", [2, 3])],
        [vi("y", None)]),
    "subgraph_undefined_outer_name": subgraph_outer_name,
    "node_without_op_type": lambda: model([helper.make_node("", ["x"], ["y"], name="n0")],
                                          [vi("x", [2, 3])], [vi("y", None)]),
    "no_graph": lambda: _no_graph(),
    "graph_without_outputs": lambda: _graph_without_outputs(),
    # Attribute types that contradict the op's schema.
    "transpose_perm_floats": lambda: model(
        [helper.make_node("Transpose", ["x"], ["y"], name="n0", perm=[1.0, 0.0])],
        [vi("x", [2, 3])], [vi("y", None)]),
    "gemm_alpha_string": lambda: model(
        [helper.make_node("Gemm", ["a", "b"], ["y"], name="n0", alpha="two")],
        [vi("a", [2, 3]), vi("b", [3, 4])], [vi("y", None)]),
    # Opset bounds.
    "opset_too_old": lambda: model([helper.make_node("Reshape", ["x", "s"], ["y"], name="n0")],
                                   [vi("x", [2, 3]), vi("s", [2], TensorProto.INT64)],
                                   [vi("y", None)], opset=4),
    # External data: a symlink leaving the directory, data files too short.
    "external_data_symlink": lambda: external("escape_link.bin"),
    "external_data_past_end": lambda: external_at("short_weights.bin", 0, 24),
    "external_data_offset_past_end": lambda: external_at("short_weights.bin", 4096, 24),
    "external_data_bad_offset": lambda: external_at("short_weights.bin", "-8", 24),
    # Compile-time shape errors.
    "concat_shape_mismatch": lambda: model(
        [helper.make_node("Concat", ["a", "b"], ["y"], name="n0", axis=0)],
        [vi("a", [2, 3]), vi("b", [2, 4])], [vi("y", None)]),
    "gemm_shape_mismatch": lambda: binary("Gemm", (2, 3), (4, 5)),
    "lstm_weight_shape": lambda: with_consts(
        "LSTM", [("w", np.zeros((1, 16, 4), np.float32)), ("r", np.zeros((1, 12, 3), np.float32))],
        x_shape=(3, 2, 4)),
    "gru_unknown_activation": lambda: with_consts(
        "GRU", [("w", np.zeros((1, 9, 4), np.float32)), ("r", np.zeros((1, 9, 3), np.float32))],
        x_shape=(3, 2, 4), activations=["Sigmoid", "Swish"]),
    "conv_kernel_too_big": lambda: model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="n0")],
        [vi("x", [1, 1, 2, 2])], [vi("y", None)],
        [const("w", np.zeros((1, 1, 5, 5), np.float32))]),
    "reshape_negative_size": lambda: with_consts("Reshape", [("s", np.array([-2, 3], np.int64))]),
    "transpose_perm_out_of_range": lambda: unary("Transpose", perm=[0, 5]),
    "slice_zero_step": lambda: with_consts(
        "Slice", [("st", np.array([0], np.int64)), ("en", np.array([2], np.int64)),
                  ("ax", np.array([1], np.int64)), ("sp", np.array([0], np.int64))]),
    "gather_index_out_of_range": lambda: with_consts(
        "Gather", [("i", np.array([5], np.int64))], axis=1),
    "split_sizes_mismatch": lambda: model(
        [helper.make_node("Split", ["x", "sp"], ["y", "z"], name="n0", axis=1)],
        [vi("x", [2, 3])], [vi("y", None), vi("z", None)], [const("sp", np.array([1, 1], np.int64))]),
    "axis_out_of_range": lambda: unary("Softmax", axis=5),
    # Limits (--max-arena-bytes / --max-weight-bytes).
    "arena_limit": big_intermediate,
    "weight_limit": big_weights,
    # Sequences (desugared at compile time: lengths and positions must be known).
    "seq_input": lambda: model(
        [helper.make_node("SequenceAt", ["x", "pos"], ["y"], name="n0")],
        [helper.make_tensor_sequence_value_info("x", F, None), vi("pos", [], TensorProto.INT64)],
        [vi("y", [2])]),
    "seq_concat_empty": lambda: model(
        [helper.make_node("SequenceEmpty", [], ["s"], name="n0"),
         helper.make_node("Identity", ["s"], ["t"], name="n1"),
         helper.make_node("ConcatFromSequence", ["t"], ["y"], name="n2", axis=0)],
        [vi("x", [2])], [vi("y", [2])]),
    # A valid model, for the cases about bad command lines.
    "valid": valid,
}


def _ml_node(op, outputs=("y",), x_shape=(2, 3), x_type=F, **attrs):
    """x -> one ai.onnx.ml node -> outputs."""
    node = helper.make_node(op, ["x"], list(outputs), name="n0", domain="ai.onnx.ml", **attrs)
    return model([node], [vi("x", list(x_shape), x_type)], [vi(o, None) for o in outputs],
                 extra_opsets=[("ai.onnx.ml", 3)])


def _tree_classifier(cycle=False, **labels):
    """A one-split TreeEnsembleClassifier; `cycle` makes node 1 a branch back to node 0."""
    modes = ["BRANCH_LEQ", "BRANCH_LEQ" if cycle else "LEAF", "LEAF"]
    node = helper.make_node(
        "TreeEnsembleClassifier", ["x"], ["label", "scores"], name="n0", domain="ai.onnx.ml",
        nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[0, 0, 0],
        nodes_modes=modes, nodes_values=[0.5, 0.0, 0.0], nodes_truenodeids=[1, 0, 0],
        nodes_falsenodeids=[2, 0, 0], class_treeids=[0], class_nodeids=[2], class_ids=[1],
        class_weights=[1.0], **labels)
    return model([node], [vi("x", [2, 3])], [vi("label", None, TensorProto.INT64),
                                             vi("scores", None)],
                 extra_opsets=[("ai.onnx.ml", 3)])


def _raw_and_typed():
    t = raw_tensor([2, 3], b"\0" * 24)
    t.float_data.extend([1.0] * 6)
    return t


def _no_graph():
    m = helper.make_model(helper.make_graph([], "g", [], []),
                          opset_imports=[helper.make_opsetid("", 13)])
    m.ClearField("graph")
    return m.SerializeToString()


def _graph_without_outputs():
    """A graph with an input and a node but no graph outputs (regression: compiled to an empty
    library that did nothing)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "nothing_out", [x], [])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def write_data_files(out):
    """Files the external-data cases refer to: a 16-byte weight file (too short for 2x3 floats)
    and, in a sibling directory, a file a symlink in the models directory points to."""
    with open(os.path.join(out, "short_weights.bin"), "wb") as f:
        f.write(b"\0" * 16)
    outside = os.path.join(os.path.dirname(os.path.abspath(out)), "outside_models_dir")
    os.makedirs(outside, exist_ok=True)
    with open(os.path.join(outside, "weights.bin"), "wb") as f:
        f.write(b"\0" * 24)
    link = os.path.join(out, "escape_link.bin")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.join(outside, "weights.bin"), link)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    write_data_files(out)
    for name, make in CASES.items():
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(make())


if __name__ == "__main__":
    main()
