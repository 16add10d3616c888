#!/usr/bin/python3
"""Exports the benchmark model zoo to ONNX with Debian's PyTorch (fixed seed, random weights).

Run with /usr/bin/python3 (python3-torch, python3-torchvision; bench/setup.sh installs them):

  /usr/bin/python3 bench/models.py --out build/bench/models [--models resnet18,gpt]

Weights are random but calibrated so that activations stay near unit scale (otherwise a deep
random net produces huge or vanishing values and "outputs agree" means little): networks with
BatchNorm run one forward pass in training mode on a random batch with cumulative-average
momentum, which sets every BatchNorm's running statistics to that batch's statistics; the other
networks use variance-preserving initialisation and LayerNorm. Writes NAME.onnx for each model
and manifest.json, the list of benchmark entries (a model file plus its symbolic dim bindings)
that bench/run.py reads.
"""
import argparse
import json
import math
import os
import sys

import torch
from torch import nn

import zoo_nets

OPSET = 17
SEED = 20240601

# Benchmark entries: name -> (model, symbolic dims bound at compile time[, ranges the run-time
# dims build of `run.py --symbolic` declares instead]).
ENTRIES = {
    "resnet18": ("resnet18", {"batch": 1}),
    "resnet50": ("resnet50", {"batch": 1}),
    "resnet50_b4": ("resnet50", {"batch": 4}),
    "mobilenet_v2": ("mobilenet_v2", {"batch": 1}),
    "squeezenet1_1": ("squeezenet1_1", {"batch": 1}),
    "efficientnet_style": ("efficientnet_style", {"batch": 1}),
    "bert_style": ("bert_style", {"batch": 1, "seq": 128}, {"seq": "1..128"}),
    "gpt_style": ("gpt_style", {"batch": 1, "seq": 128}, {"seq": "1..128"}),
    "mlp": ("mlp", {"batch": 32}),
    "lstm": ("lstm", {}),
    "unet_style": ("unet_style", {"batch": 1}),
}


def torchvision_net(name):
    import torchvision
    return getattr(torchvision.models, name)(weights=None)


def calibrate_batchnorm(net, example):
    """Sets every BatchNorm's running statistics from one random batch (see module doc)."""
    bns = [m for m in net.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None  # cumulative average: after one batch, exactly its statistics
    net.train()
    with torch.no_grad():
        net(example)
    net.eval()


# name -> (constructor, example input(s) for export, dynamic axes, needs BN calibration)
def model_specs():
    img = lambda n, s=224: torch.randn(n, 3, s, s)
    batch_axes = {"input": {0: "batch"}, "output": {0: "batch"}}
    token_axes = {"input": {0: "batch", 1: "seq"}, "output": {0: "batch", 1: "seq"}}
    tokens = lambda: torch.randint(0, zoo_nets.VOCAB, (1, 128), dtype=torch.int64)
    return {
        "resnet18": (lambda: torchvision_net("resnet18"), img, batch_axes, True),
        "resnet50": (lambda: torchvision_net("resnet50"), img, batch_axes, True),
        "mobilenet_v2": (lambda: torchvision_net("mobilenet_v2"), img, batch_axes, True),
        "squeezenet1_1": (lambda: torchvision_net("squeezenet1_1"), img, batch_axes, False),
        "efficientnet_style": (zoo_nets.EfficientNetStyle, img, batch_axes, True),
        "bert_style": (zoo_nets.BertStyle, lambda n: tokens(), token_axes, False),
        "gpt_style": (zoo_nets.GptStyle, lambda n: tokens(), token_axes, False),
        "mlp": (zoo_nets.Mlp, lambda n: torch.randn(n, 1024), batch_axes, False),
        "lstm": (zoo_nets.LstmModel, lambda n: torch.randn(1, 64, 128), {}, False),
        "unet_style": (zoo_nets.UNetStyle, lambda n: img(n, 128), batch_axes, True),
    }


def export(name, out_dir):
    ctor, example, axes, calibrate = model_specs()[name]
    torch.manual_seed(SEED)
    net = ctor()
    if calibrate:
        calibrate_batchnorm(net, example(8))
    net.eval()
    x = example(1)
    path = os.path.join(out_dir, name + ".onnx")
    tmp = path + ".tmp"
    with torch.no_grad():
        y = net(x)
        torch.onnx.export(net, (x,), tmp, opset_version=OPSET, input_names=["input"],
                          output_names=["output"], dynamic_axes=axes or None,
                          do_constant_folding=True)
    os.replace(tmp, path)
    rms = math.sqrt(float((y.float() ** 2).mean()))
    print(f"exported {path} (output {tuple(y.shape)}, rms {rms:.3g})")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="directory for NAME.onnx and manifest.json")
    p.add_argument("--models", default="", help="comma-separated entry names (default: all)")
    p.add_argument("--force", action="store_true", help="re-export existing files")
    return p.parse_args()


def main():
    args = parse_args()
    wanted = [m for m in args.models.split(",") if m] or list(ENTRIES)
    unknown = [m for m in wanted if m not in ENTRIES]
    if unknown:
        print(f"models.py: error: unknown model(s) {', '.join(unknown)}; "
              f"known: {', '.join(ENTRIES)}", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    for model in sorted({ENTRIES[e][0] for e in wanted}):
        if args.force or not os.path.exists(os.path.join(args.out, model + ".onnx")):
            export(model, args.out)
    manifest = [{"name": e, "model": ENTRIES[e][0] + ".onnx", "dims": ENTRIES[e][1],
                 "ranges": ENTRIES[e][2] if len(ENTRIES[e]) > 2 else {}} for e in wanted]
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump({"opset": OPSET, "seed": SEED, "torch": torch.__version__,
                   "entries": manifest}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
