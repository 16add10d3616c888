#!/bin/bash
# One GPU session's checks (run from the repository root on the GPU machine by the `device`
# tool): conformance cases and bench models exported here (build/device/*.tar.xz, made by
# tests/cuda/export_cases.py and bench/gpu/prepare.py), then the GPU benchmark.
# Results go to $OUT.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/d
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
python3 -c "import torch, numpy; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.is_available(), 'numpy', numpy.__version__)" | tee -a "$OUT/gpu.txt"
python3 -c "import torchvision; print('torchvision', torchvision.__version__)" >> "$OUT/gpu.txt" 2>&1
for f in build/device/*.tar.xz; do tar -C /tmp/d -xJf "$f"; done
date
if [ -d /tmp/d/exported ]; then # tests/cuda/cuda_checks.py templates: every kernel family
  python3 tests/cuda/run_exported.py /tmp/d/exported --backend cuda --jobs 3 --device-api \
    --json "$OUT/templates.json" 2>&1 | tee "$OUT/templates.txt"
fi
timeout 90 python3 tests/cuda/run_exported.py /tmp/d/gpu_bench --backend cuda --jobs 4 \
  --device-api --json "$OUT/bench_models.json" 2>&1 | tee "$OUT/bench_models.txt"
date
if [ -d /tmp/d/cuex ]; then # tests/cuda/export_cases.py: the node cases and real models
  timeout ${CONF_TIMEOUT:-150} python3 tests/cuda/run_exported.py /tmp/d/cuex --backend cuda \
    --jobs 12 --timeout 60 --json "$OUT/conformance.json" > "$OUT/conformance.txt" 2>&1
  tail -1 "$OUT/conformance.txt"
  grep -v "^PASS" "$OUT/conformance.txt" | head -40
fi
date
timeout ${BENCH_TIMEOUT:-240} python3 bench/gpu/run_gpu.py /tmp/d/gpu_bench --json "$OUT/gpu_bench.json" \
  --iters 30 ${BENCH_ARGS:-} 2>&1 | tee "$OUT/gpu_bench.txt"
date
