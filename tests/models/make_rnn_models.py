#!/usr/bin/python3
"""Regenerates the PyTorch-exported recurrent test models in tests/models/rnn/.

  lstm_text_classifier: Embedding(100, 16) -> LSTM(16, 24) -> bidirectional LSTM(24, 20)
                        -> Linear(40, 5) on the last time step; input int64 token ids [4, 12]
                        (sequence first), output logits [4, 5].
  gru_batch_first:      GRU(8, 32, num_layers=2, batch_first=True) with an initial state input
                        -> Linear(32, 3) on every step; inputs x [3, 10, 8] and h0 [2, 3, 32],
                        outputs y [3, 10, 3] and the final state [2, 3, 32].

Each model directory holds model.onnx (torch.onnx.export, opset 14) and test_data_set_0/1 with
inputs and the outputs PyTorch computes for them, for `onnxc verify` (ctests models.rnn-*). The
committed files are what the tests use, so the tests do not need PyTorch; this script needs
Debian's python3-torch (1.13) only to regenerate them.

Usage: /usr/bin/python3 tests/models/make_rnn_models.py [OUT_DIR] (default: tests/models/rnn)
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import numpy_helper


class TextClassifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(100, 16)
        self.lstm1 = torch.nn.LSTM(16, 24)
        self.lstm2 = torch.nn.LSTM(24, 20, bidirectional=True)
        self.fc = torch.nn.Linear(40, 5)

    def forward(self, tokens):
        x, _ = self.lstm1(self.embed(tokens))
        x, _ = self.lstm2(x)
        return self.fc(x[-1])


class GruModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = torch.nn.GRU(8, 32, num_layers=2, batch_first=True)
        self.fc = torch.nn.Linear(32, 3)

    def forward(self, x, h0):
        y, h = self.gru(x, h0)
        return self.fc(y), h


def save_set(directory, inputs, outputs):
    os.makedirs(directory, exist_ok=True)
    for i, (name, value) in enumerate(inputs):
        onnx.save_tensor(numpy_helper.from_array(value, name),
                         os.path.join(directory, f"input_{i}.pb"))
    for i, (name, value) in enumerate(outputs):
        onnx.save_tensor(numpy_helper.from_array(value, name),
                         os.path.join(directory, f"output_{i}.pb"))


def export(model, name, out_dir, example, input_names, output_names, make_inputs):
    model.eval()
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    torch.onnx.export(model, example, os.path.join(d, "model.onnx"), opset_version=14,
                      input_names=input_names, output_names=output_names)
    for k in range(2):
        ins = make_inputs(k)
        with torch.no_grad():
            outs = model(*ins)
        outs = outs if isinstance(outs, tuple) else (outs,)
        save_set(os.path.join(d, f"test_data_set_{k}"),
                 list(zip(input_names, (t.numpy() for t in ins))),
                 list(zip(output_names, (t.numpy() for t in outs))))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "rnn")
    torch.manual_seed(1322)
    gen = torch.Generator().manual_seed(7)
    tokens = lambda k: (torch.randint(0, 100, (12, 4), generator=gen),)
    export(TextClassifier(), "lstm_text_classifier", out_dir, tokens(0), ["tokens"], ["logits"],
           tokens)
    gru_in = lambda k: (torch.randn(3, 10, 8, generator=gen), torch.randn(2, 3, 32, generator=gen))
    export(GruModel(), "gru_batch_first", out_dir, gru_in(0), ["x", "h0"], ["y", "h"], gru_in)
    for name in ("lstm_text_classifier", "gru_batch_first"):
        print(os.path.join(out_dir, name))


if __name__ == "__main__":
    main()
