#!/usr/bin/python3
"""Writes the model of the string ABI test (string_abi.c): inputs x, y (string [3]);
outputs z = StringConcat(x, y) (string [3]), e = Equal(x, y) (bool [3]) and t = Transpose(x)
(string [3], strings passed through)."""
import sys

import onnx
from onnx import TensorProto, helper

S = TensorProto.STRING
graph = helper.make_graph(
    [helper.make_node("StringConcat", ["x", "y"], ["z"], name="concat"),
     helper.make_node("Equal", ["x", "y"], ["e"], name="equal"),
     helper.make_node("Transpose", ["x"], ["t"], name="transpose")],
    "strabi",
    [helper.make_tensor_value_info("x", S, [3]), helper.make_tensor_value_info("y", S, [3])],
    [helper.make_tensor_value_info("z", S, [3]),
     helper.make_tensor_value_info("e", TensorProto.BOOL, [3]),
     helper.make_tensor_value_info("t", S, [3])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
model.ir_version = 9
onnx.save(model, sys.argv[1])
