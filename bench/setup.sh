#!/usr/bin/env bash
# Installs what the benchmark (bench/run.py) needs on top of scripts/setup.sh. Not needed to
# build or test onnxc: the test suite (ctest -L bench included) uses neither package.
#   python3-torch python3-torchvision   Debian's PyTorch for /usr/bin/python3: bench/models.py
#                                       builds and exports the model zoo
#   onnxruntime onnx numpy (pip)        the reference engine bench/run.py compares against, for
#                                       the `python3` on PATH (the one that runs bench/run.py);
#                                       set PYTHON=... to install for another interpreter
# Uses sudo for apt only when not already root.
set -euo pipefail

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null; then
  sudo=(sudo)
else
  echo "bench/setup.sh: error: not root and sudo is not installed; run it as root" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y python3-torch python3-torchvision
"${PYTHON:-python3}" -m pip install onnxruntime onnx numpy
