#!/usr/bin/python3
"""Writes the model of sanitize.asan_runtime_indices: indices supplied by the caller at run time.

    /usr/bin/python3 tests/sanitize/make_index_model.py OUT.onnx

data (a 4x3 float constant, data[r][c] = 10 r + c), idx: int64[2] (graph input) ->
Gather(axis 0) -> rows: float[2x3]; idx2: int64[4x3] (graph input) -> GatherElements(axis 0)
on data -> picked: float[4x3].
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

data = numpy_helper.from_array(
    np.array([[10 * r + c for c in range(3)] for r in range(4)], np.float32), "data")
nodes = [helper.make_node("Gather", ["data", "idx"], ["rows"], name="gather_rows", axis=0),
         helper.make_node("GatherElements", ["data", "idx2"], ["picked"], name="pick", axis=0)]
graph = helper.make_graph(
    nodes, "indices",
    [helper.make_tensor_value_info("idx", TensorProto.INT64, [2]),
     helper.make_tensor_value_info("idx2", TensorProto.INT64, [4, 3])],
    [helper.make_tensor_value_info("rows", TensorProto.FLOAT, [2, 3]),
     helper.make_tensor_value_info("picked", TensorProto.FLOAT, [4, 3])],
    [data])
model = helper.make_model(graph, producer_name="onnxc-tests-sanitize",
                          opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
with open(sys.argv[1], "wb") as f:
    f.write(model.SerializeToString())
