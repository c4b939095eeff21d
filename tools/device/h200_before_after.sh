#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/, the build to compare against (BEFORE,
# a folder holding its clgemm-bench and src/libclgemm.so*) and .device-kit carried: `auto` of
# both builds over the named suites, one after the other on the same machine, and cuBLAS FP32
# on the same shapes in the same call, so that a change's effect and both builds' ratios to
# cuBLAS are measured side by side. Outputs in $OUT per suite: SUITE-after.json,
# SUITE-before.json, SUITE-cublas.json and SUITE-ratios.txt (both builds against cuBLAS).
#   BEFORE=devrun/old tools/device/h200_before_after.sh llm standard
set -uo pipefail
source .device-kit/nvidia-opencl.sh >/dev/null 2>&1
export CLGEMM_KERNEL_DIR=$PWD/kernels CLGEMM_CACHE_DIR=${CLGEMM_CACHE_DIR:-/tmp/clgemm-cache}
BEFORE=${BEFORE:?name the build to compare against}
bench() {  # folder suite output
  LD_LIBRARY_PATH=$PWD/$1/src:$LD_LIBRARY_PATH timeout 240 "$1/clgemm-bench" --suite "$2" \
    --kernels auto --peers none --min-time ${MIN_TIME:-0.2} --json "$3" >/dev/null 2>&1 ||
    echo "clgemm-bench ($1, $2) failed or ran out of time"
}
for suite in "$@"; do
  bench build-device "$suite" "$OUT/$suite-after.json"
  bench "$BEFORE" "$suite" "$OUT/$suite-before.json"
  timeout 240 python3 tools/device/cublas_suite.py --suite "$suite" --precisions fp32 \
    -o "$OUT/$suite-cublas.json" >/dev/null 2>&1 || echo "cuBLAS ($suite) failed"
  for side in after before; do
    echo "== $suite, $side"
    python3 tools/bench/bench_ratios.py "$OUT/$suite-$side.json" "$OUT/$suite-cublas.json"
  done 2>&1 | tee "$OUT/$suite-ratios.txt" | grep -E '^==|geometric|^ *auto' | head -8
  echo "== $suite done at $SECONDS s"
done
