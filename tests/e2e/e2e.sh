#!/usr/bin/env bash
# Runs one end-to-end test case (tests/e2e/CMakeLists.txt registers each as e2e.<case>).
#
#   e2e.sh CASE      with ONNXC (the compiler), CC (system C compiler), SRC_DIR (repository root)
#                    and WORK_DIR (scratch directory in the build tree) in the environment.
#
# `prepare` (the fixture every other case requires) generates the sample models and their numpy
# references with /usr/bin/python3 and compiles them with onnxc into $WORK_DIR/lib:
#   libsample.so + sample.h          the sample CNN       (reference in models/cnn/expected.txt)
#   libsample_mlp.so + sample_mlp.h  the second model     (reference in models/mlp/expected.txt)
# The other cases build a C program from tests/e2e with $CC against those and run it.
set -euo pipefail

case_name=$1
: "${ONNXC:?}" "${CC:?}" "${SRC_DIR:?}" "${WORK_DIR:?}"
lib=$WORK_DIR/lib
models=$WORK_DIR/models
e2e_src=$SRC_DIR/tests/e2e
out=$WORK_DIR/$case_name
cflags=(-std=c11 -O2 -Wall -Wextra -Werror -I "$SRC_DIR" -I "$e2e_src")

# build_c OUT SOURCE [extra cc args...]: compiles a test program into $out.
build_c() {
  local exe=$1 source=$2
  shift 2
  "$CC" "${cflags[@]}" "$e2e_src/$source" -o "$out/$exe" "$@"
}
# Arguments that link a program directly against model libraries in $lib.
link_lib() {
  local args=(-I "$lib" -L "$lib" -Wl,-rpath,"$lib")
  for name in "$@"; do args+=("-l$name"); done
  printf '%s\n' "${args[@]}"
}

case_prepare() {
  for kind in cnn mlp; do
    mkdir -p "$models/$kind"
    /usr/bin/python3 "$SRC_DIR/samples/make_sample_model.py" "$models/$kind/model.onnx" \
      --model "$kind" --reference "$models/$kind"
  done
  mkdir -p "$lib"
  "$ONNXC" compile "$models/cnn/model.onnx" -o "$lib/libsample.so"
  "$ONNXC" compile "$models/mlp/model.onnx" -o "$lib/libsample_mlp.so"
  test -f "$lib/sample.h" && test -f "$lib/sample_mlp.h"
}

case_c_program_header() {
  mapfile -t l < <(link_lib sample)
  build_c header_check header_check.c "${l[@]}"
  "$out/header_check" "$models/cnn/expected.txt"
}

case_dlopen_generic() {
  build_c dlopen_generic dlopen_generic.c -ldl
  "$out/dlopen_generic" "$lib/libsample.so" "$models/cnn/expected.txt" sample
  "$out/dlopen_generic" "$lib/libsample_mlp.so" "$models/mlp/expected.txt" sample_mlp
}

case_concurrent_contexts() {
  mapfile -t l < <(link_lib sample)
  build_c concurrent concurrent.c "${l[@]}" -pthread
  "$out/concurrent" "$models/cnn/expected.txt" 20000
}

case_two_models() {
  build_c two_models two_models.c -ldl
  "$out/two_models" "$lib/libsample.so" "$models/cnn/expected.txt" sample \
    "$lib/libsample_mlp.so" "$models/mlp/expected.txt" sample_mlp
}

case_two_models_linked() {
  mapfile -t l < <(link_lib sample sample_mlp)
  build_c two_models_linked two_models_linked.c "${l[@]}"
  "$out/two_models_linked" "$models/cnn/expected.txt" "$models/mlp/expected.txt"
}

case_run_time_batch() {
  # A model with a run-time batch, compiled once for batches 1..8 (tests/e2e/run_time_batch.c).
  /usr/bin/python3 - "$out/batchnet.onnx" <<'PY'
import sys
from onnx import TensorProto, helper, save
F = TensorProto.FLOAT
nodes = [helper.make_node("Add", ["x", "y"], ["t"]), helper.make_node("Mul", ["t", "w"], ["sum"]),
         helper.make_node("Relu", ["x"], ["act"]), helper.make_node("MatMul", ["x", "m"], ["proj"])]
m = helper.make_tensor("m", F, [4, 4], [(i + 1) * 0.5 - j for i in range(4) for j in range(4)])
graph = helper.make_graph(
    nodes, "batchnet",
    [helper.make_tensor_value_info("x", F, ["batch", 4]),
     helper.make_tensor_value_info("y", F, ["batch", 4]), helper.make_tensor_value_info("w", F, [4])],
    [helper.make_tensor_value_info("sum", F, ["batch", 4]),
     helper.make_tensor_value_info("act", F, ["batch", 4]),
     helper.make_tensor_value_info("proj", F, ["batch", 4])], [m])
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
PY
  # The MatMul makes per-sample runs thin, so by default the batch becomes the code's run-time
  # extent, run in chunks of up to 8 samples (the range's maximum); the same program runs
  # against one sample at a time (--batch-tile 0) and chunks of 2.
  local tile dir log
  for tile in default 0 2; do
    dir=$out/tile_$tile
    mkdir -p "$dir"
    log=$("$ONNXC" compile "$out/batchnet.onnx" -o "$dir/libbatchnet.so" --dim batch=1..8 \
      $([[ $tile == default ]] || echo "--batch-tile $tile"))
    echo "$log"
    case $tile in
      default) grep -q "code for 1 to 8 samples" <<<"$log" ;;
      0) grep -q "run once per sample" <<<"$log" ;;
      2) grep -q "code for 1 to 2 samples" <<<"$log" ;;
    esac || { echo "FAIL: --batch-tile $tile: unexpected run-time batch summary" >&2; return 1; }
    check_library "$dir/libbatchnet.so" batchnet
    "$CC" "${cflags[@]}" "$e2e_src/run_time_batch.c" -o "$dir/run_time_batch" -I "$dir" \
      -L "$dir" -Wl,-rpath,"$dir" -lbatchnet -lm
    "$dir/run_time_batch"
  done
}

case_run_time_count() {
  # NonZero of a run-time input: an output with a run-time count (tests/e2e/run_time_count.c).
  /usr/bin/python3 - "$out/nonzero.onnx" <<'PY'
import sys
from onnx import TensorProto, helper, save
graph = helper.make_graph(
    [helper.make_node("NonZero", ["x"], ["y"])], "nonzero",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
    [helper.make_tensor_value_info("y", TensorProto.INT64, [2, "n"])])
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
# Range of run-time scalars: an output shaped at run time with no bound.
scalar = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [])
graph = helper.make_graph(
    [helper.make_node("Range", ["start", "limit", "delta"], ["y"])], "rng",
    [scalar("start"), scalar("limit"), scalar("delta")],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])])
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
     sys.argv[1].replace("nonzero", "rng"))
# The Range squared: an element-wise op of a value with no bound (data in run-scoped memory).
graph = helper.make_graph(
    [helper.make_node("Range", ["start", "limit", "delta"], ["r"], name="range"),
     helper.make_node("Mul", ["r", "r"], ["y"], name="square")], "rngsq",
    [scalar("start"), scalar("limit"), scalar("delta")],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])])
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
     sys.argv[1].replace("nonzero", "rngsq"))
PY
  "$ONNXC" compile "$out/rng.onnx" -o "$out/librng.so"
  "$ONNXC" compile "$out/rngsq.onnx" -o "$out/librngsq.so"
  local log
  log=$("$ONNXC" compile "$out/nonzero.onnx" -o "$out/libnonzero.so")
  echo "$log"
  grep -q "run-time count: 'y_count' 0..6" <<<"$log" ||
    { echo "FAIL: no run-time count in the compile summary" >&2; return 1; }
  "$ONNXC" inspect "$out/nonzero.onnx" --ir | grep -q "run-time count y_count - 1: 0..6" ||
    { echo "FAIL: onnxc inspect --ir does not show the run-time count" >&2; return 1; }
  check_library "$out/libnonzero.so" nonzero
  "$CC" "${cflags[@]}" "$e2e_src/run_time_count.c" -o "$out/run_time_count" -I "$out" \
    -L "$out" -Wl,-rpath,"$out" -lnonzero -lrng -lrngsq
  "$out/run_time_count"
}

case_run_time_hostile() {
  # Hostile values for the kernels of outputs shaped at run time (tests/e2e/run_time_hostile.c).
  /usr/bin/python3 - "$out/hostile.onnx" <<'PY'
import sys
from onnx import TensorProto, helper, save
I, F = TensorProto.INT64, TensorProto.FLOAT
vi = helper.make_tensor_value_info
graph = helper.make_graph(
    [helper.make_node("Range", ["start", "limit", "delta"], ["r"]),
     helper.make_node("Slice", ["x4", "starts", "ends", "axes", "steps"], ["s"]),
     helper.make_node("Split", ["x6", "split"], ["a", "b", "c"]),
     helper.make_node("TopK", ["x6", "k"], ["t", "ti"])], "hostile",
    [vi("start", I, []), vi("limit", I, []), vi("delta", I, []), vi("x4", F, [4]),
     vi("starts", I, [1]), vi("ends", I, [1]), vi("axes", I, [1]), vi("steps", I, [1]),
     vi("x6", F, [6]), vi("split", I, [3]), vi("k", I, [1])],
    [vi("r", I, None), vi("s", F, None), vi("a", F, None), vi("b", F, None), vi("c", F, None),
     vi("t", F, None)])
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PY
  "$ONNXC" compile "$out/hostile.onnx" -o "$out/libhostile.so"
  "$CC" "${cflags[@]}" "$e2e_src/run_time_hostile.c" -o "$out/run_time_hostile" -I "$out" \
    -L "$out" -Wl,-rpath,"$out" -lhostile
  "$out/run_time_hostile"
}

case_bad_inputs() {
  build_c bad_inputs bad_inputs.c -ldl
  "$out/bad_inputs" "$lib/libsample.so" "$models/cnn/expected.txt"
}

# The library needs only libc, libm and the dynamic loader, and exports only the generic ABI
# (onnxc_*) and the model's aliases (NAME_*).
check_library() {
  local so=$1 name=$2
  local needed bad exported
  needed=$(readelf -d -W "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  echo "$so NEEDED: $(echo $needed)"
  bad=$(grep -Ev '^(libc\.so\.6|libm\.so\.6|ld-linux[-a-z0-9_.]*\.so\.[0-9]+)$' <<<"$needed" || true)
  if [[ -n $bad ]]; then
    echo "FAIL: $so needs $bad" >&2
    return 1
  fi
  grep -qx 'libc.so.6' <<<"$needed" || { echo "FAIL: $so does not need libc.so.6" >&2; return 1; }
  # Defined dynamic symbols (Ndx is not UND), other than the file/section symbols.
  exported=$(readelf --dyn-syms -W "$so" |
    awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && $4 != "SECTION" && $4 != "FILE" && $8 != "" {print $8}' |
    sed 's/@.*//' | sort -u)
  echo "$so exports: $(echo $exported)"
  bad=$(grep -Ev "^(onnxc_|${name}_)" <<<"$exported" || true)
  if [[ -n $bad ]]; then
    echo "FAIL: $so exports symbols outside onnxc_* / ${name}_*: $(echo $bad)" >&2
    return 1
  fi
  local fn
  for fn in abi_version model_name signature_json arena_size arena_alignment num_inputs \
            num_outputs input_info output_info create create_with_arena destroy \
            set_num_threads run run_buffers last_error; do
    grep -qx "onnxc_$fn" <<<"$exported" || { echo "FAIL: $so lacks onnxc_$fn" >&2; return 1; }
  done
  for fn in create create_with_arena destroy set_num_threads run run_buffers last_error; do
    grep -qx "${name}_$fn" <<<"$exported" || { echo "FAIL: $so lacks ${name}_$fn" >&2; return 1; }
  done
  # No text relocations, no executable stack.
  if readelf -d -W "$so" | grep -q TEXTREL; then echo "FAIL: $so has TEXTREL" >&2; return 1; fi
  if readelf -l -W "$so" | grep GNU_STACK | grep -q RWE; then
    echo "FAIL: $so has an executable stack" >&2; return 1
  fi
}

case_library_dependencies() {
  check_library "$lib/libsample.so" sample
  check_library "$lib/libsample_mlp.so" sample_mlp
}

case_no_external_tools() {
  # onnxc runs with an empty environment and no PATH: no external tool (cc, ld, clang) and no
  # environment variable is needed to produce a working library.
  local onnxc_abs
  onnxc_abs=$(readlink -f "$ONNXC")
  (cd / && env -i PATH=/nonexistent "$onnxc_abs" compile "$models/cnn/model.onnx" \
     -o "$out/libsample.so")
  test -f "$out/sample.h"
  check_library "$out/libsample.so" sample
  build_c dlopen_generic dlopen_generic.c -ldl
  "$out/dlopen_generic" "$out/libsample.so" "$models/cnn/expected.txt" sample
}

case_sample_app() {
  # The quickstart path: samples/run_sample.sh builds samples/main.c against the compiled sample.
  local log want
  log=$("$SRC_DIR/samples/run_sample.sh" "$ONNXC" "$out/app")
  echo "$log"
  want=$(/usr/bin/python3 -c 'import sys, numpy as np; print(int(np.argmax(np.loadtxt(sys.argv[1]))))' \
    "$out/app/reference/expected.txt")
  grep -qx "argmax: $want" <<<"$log" || { echo "FAIL: expected 'argmax: $want'" >&2; return 1; }
}

# reproducible_compile DIR VARIANT MODEL [env -i]: one compile of MODEL into DIR as VARIANT
# (host, aarch64, armv7, static, weights-file, profile); prints the artifact files it wrote.
reproducible_compile() {
  local dir=$1 variant=$2 model=$3 onnxc_abs
  onnxc_abs=$(readlink -f "$ONNXC")
  local out_file=libm.so flags=(--name m) files=(m.h)
  case $variant in
    host) ;;
    aarch64) flags+=(--target aarch64-unknown-linux-gnu) ;;
    armv7) flags+=(--target armv7-unknown-linux-gnueabihf) ;;
    static) flags+=(--emit static) out_file=libm.a ;;
    weights-file) flags+=(--weights-file "$dir/m.weights") files+=(m.weights) ;;
    profile) flags+=(--profile) ;;
  esac
  if [[ ${4:-} == env-i ]]; then
    (cd / && env -i PATH=/nonexistent "$onnxc_abs" compile "$model" -o "$dir/$out_file" \
      "${flags[@]}" >/dev/null)
  else
    "$ONNXC" compile "$model" -o "$dir/$out_file" "${flags[@]}" >/dev/null
  fi
  printf '%s\n' "$out_file" "${files[@]}"
}

case_reproducible() {
  # Compiling the same model with the same flags gives byte-identical artifacts, whatever the
  # output directory, the working directory or the environment: no paths, times or random names
  # end up in the library, the archive, the weights file or the header. Each (model, variant)
  # pair is compiled twice: once into one directory, once into another (deeper) directory from /
  # with an empty environment. Every variant runs on the CNN; the MLP and mnist-8 (more nodes,
  # so more chances for an order that depends on pointers or hashes) on the host and one other.
  local pair model variant f pairs=()
  for variant in host aarch64 armv7 static weights-file profile; do
    pairs+=("$models/cnn/model.onnx $variant")
  done
  pairs+=("$models/mlp/model.onnx host" "$models/mlp/model.onnx static")
  local mnist=${ONNXC_TESTDATA_DIR:-$SRC_DIR/../shared/testdata}/models/mnist-8/model.onnx
  [[ -f $mnist ]] && pairs+=("$mnist host" "$mnist aarch64")
  for pair in "${pairs[@]}"; do
    read -r model variant <<<"$pair"
    rm -rf "$out/a" "$out/b"
    mkdir -p "$out/a" "$out/b/deeper"
    mapfile -t files < <(reproducible_compile "$out/a" "$variant" "$model")
    reproducible_compile "$out/b/deeper" "$variant" "$model" env-i >/dev/null
    for f in "${files[@]}"; do
      cmp "$out/a/$f" "$out/b/deeper/$f" ||
        { echo "FAIL: $model $variant: $f differs between compiles" >&2; return 1; }
    done
    echo "$model $variant: ${files[*]} identical x2 ($(stat -c %s "$out/a/${files[0]}") bytes)"
  done
}

rm -rf "$out"
mkdir -p "$out"
"case_$case_name"
