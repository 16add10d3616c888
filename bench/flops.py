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


def _fill_broadcasts(model, shapes):
    """ONNX's inference leaves an element-wise node's output unknown when one input is (a
    position table sliced to a run-time length): gives it the shape of its largest known input
    so inference can go on. True if it gave one."""
    done = False
    for node in model.graph.node:
        if node.op_type not in ("Add", "Sub", "Mul", "Div") or node.output[0] in shapes:
            continue
        known = [shapes[i] for i in node.input if i in shapes]
        if not known:
            continue
        dims = max(known, key=lambda d: (len(d), math.prod(d)))
        elem = onnx.TensorProto.FLOAT
        model.graph.value_info.append(onnx.helper.make_tensor_value_info(node.output[0], elem, dims))
        shapes[node.output[0]] = dims
        done = True
    return done


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
    # The exporter's value_info keeps symbolic dims of its own (a dynamic export's "seq" chains):
    # infer every intermediate shape again from the bound inputs.
    model.graph.ClearField("value_info")
    for _ in range(8):
        try:
            model = shape_inference.infer_shapes(model, data_prop=True)
        except Exception as e:  # onnx raises several types
            return None, f"shape inference failed: {str(e).splitlines()[0]}"
        shapes = _shapes(model)
        if not _fill_broadcasts(model, shapes):
            break

    def s(name):
        return shapes[name]

    total, missing = _total(model, s)
    if missing is None:
        return total, None
    # ONNX's inference cannot follow some run-time shape chains (Shape -> Slice -> Reshape of a
    # dynamic export): run the model once with ONNX Runtime and read every value's shape.
    try:
        shapes.update(_shapes_by_running(model_path, dims))
    except Exception as e:  # onnxruntime raises several types
        return None, f"no static shapes for node {missing} ({str(e).splitlines()[0]})"
    total, missing = _total(model, s)
    if missing is not None:
        return None, f"no static shapes for node {missing}"
    return total, None


def _total(model, s):
    """(FLOPs, None), or (None, "'name' (op)") for the first node with an unknown shape."""
    total = 0
    for node in model.graph.node:
        try:
            total += _node_flops(node, s)
        except (KeyError, IndexError, AssertionError):
            return None, f"'{node.name}' ({node.op_type})"
    return total, None


def _shapes_by_running(model_path, dims):
    """Shapes of every node output: the model run once on zeros with `dims` bound."""
    import numpy as np
    import onnxruntime as ort

    model = onnx.load(model_path)
    _bind_dims(model, dims)
    names = [o for n in model.graph.node for o in n.output if o]
    known = {o.name for o in model.graph.output}
    for name in names:
        if name not in known:
            model.graph.output.append(onnx.ValueInfoProto(name=name))
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    feeds = {}
    for i in sess.get_inputs():
        dtype = np.int64 if "int64" in i.type else np.float32
        feeds[i.name] = np.zeros([int(d) for d in i.shape], dtype)
    outs = sess.run(None, feeds)
    return {o.name: list(v.shape) for o, v in zip(sess.get_outputs(), outs)
            if hasattr(v, "shape")}
