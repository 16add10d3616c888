"""FLOP counts of an ONNX model, from its graph: the direct FLOPs of the compute-bound operators
(2 per multiply-accumulate) — Conv, ConvTranspose, Gemm, MatMul, LSTM/GRU/RNN. Element-wise ops,
normalisation, pooling and softmax are not counted (they are memory-bound and small next to
these), so effective GFLOP/s = counted FLOPs / latency is a lower bound on the work done.

Shapes come from ONNX shape inference after binding the symbolic input dims.
"""
import math

import onnx
from onnx import shape_inference


def _bind_dims(model, dims):
    for value in model.graph.input:
        for d in value.type.tensor_type.shape.dim:
            if d.HasField("dim_param") and d.dim_param in dims:
                d.dim_value = int(dims[d.dim_param])


def _shapes(model):
    shapes = {}
    for init in model.graph.initializer:
        shapes[init.name] = list(init.dims)
    for value in [*model.graph.input, *model.graph.value_info, *model.graph.output]:
        dims = value.type.tensor_type.shape.dim
        if all(d.HasField("dim_value") for d in dims):
            shapes[value.name] = [d.dim_value for d in dims]
    return shapes


def _attr(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _recurrent(node, s, gates):
    x, w, r = s(node.input[0]), s(node.input[1]), s(node.input[2])
    seq, batch = (x[1], x[0]) if _attr(node, "layout", 0) == 1 else (x[0], x[1])
    dirs, gh, inp = w
    hidden = r[2]
    assert gh == gates * hidden
    return 2 * seq * batch * dirs * gh * (inp + hidden)


def _node_flops(node, s):
    """FLOPs of one node; s(name) is the static shape of a value (KeyError if unknown)."""
    op = node.op_type
    if op == "Conv":
        return 2 * math.prod(s(node.output[0])) * math.prod(s(node.input[1])[1:])
    if op == "ConvTranspose":
        return 2 * math.prod(s(node.input[0])) * math.prod(s(node.input[1])[1:])
    if op == "Gemm":
        a = s(node.input[0])
        k = a[0] if _attr(node, "transA", 0) else a[1]
        return 2 * math.prod(s(node.output[0])) * k
    if op == "MatMul":
        return 2 * math.prod(s(node.output[0])) * s(node.input[0])[-1]
    if op in ("LSTM", "GRU", "RNN"):
        return _recurrent(node, s, {"LSTM": 4, "GRU": 3, "RNN": 1}[op])
    return 0


def count_flops(model_path, dims):
    """(FLOPs, None) or (None, reason) for the model with symbolic dims bound to `dims`."""
    model = onnx.load(model_path)
    _bind_dims(model, dims)
    try:
        model = shape_inference.infer_shapes(model, data_prop=True)
    except Exception as e:  # onnx raises several types
        return None, f"shape inference failed: {str(e).splitlines()[0]}"
    shapes = _shapes(model)

    def s(name):
        return shapes[name]

    total = 0
    for node in model.graph.node:
        try:
            total += _node_flops(node, s)
        except (KeyError, IndexError, AssertionError):
            return None, f"no static shapes for node '{node.name}' ({node.op_type})"
    return total, None
