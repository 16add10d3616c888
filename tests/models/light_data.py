#!/usr/bin/env python3
"""Writes test data sets for ONNX's `light` CNNs (onnx-backend/light): the models ship only
output_0.pb; their input is arange(n)/n in float32 with the model's input shape (light/README).

  light_data.py LIGHT_DIR OUT_DIR     -> OUT_DIR/<model>/test_data_set_0/{input_0,output_0}.pb
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main(light_dir, out_dir):
    for name in sorted(os.listdir(light_dir)):
        if not name.endswith(".onnx"):
            continue
        stem = name[:-len(".onnx")]
        model = onnx.load(os.path.join(light_dir, name), load_external_data=False)
        inits = {i.name for i in model.graph.initializer}
        inp = next(i for i in model.graph.input if i.name not in inits)
        shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
        n = int(np.prod(shape))
        x = (np.arange(n, dtype=np.float32) / np.float32(n)).astype(np.float32).reshape(shape)
        data = os.path.join(out_dir, stem, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        with open(os.path.join(data, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, inp.name).SerializeToString())
        shutil.copy(os.path.join(light_dir, stem + "_output_0.pb"),
                    os.path.join(data, "output_0.pb"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
