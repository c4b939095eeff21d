#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ (configured with
# -DCLGEMM_BENCH_CBLAS=OFF) and .device-kit carried: the GPU test suite, clgemm-bench's sweep
# against CLBlast, cuBLAS on the same shapes, and blocked parameter variants. Outputs in $OUT.
set -uo pipefail
source tools/device/environment.sh
b=build-device
$b/tests/clgemm-tests --gtest_brief=1 2>&1 | tail -4 | tee "$OUT/gpu-tests.txt"
$b/clgemm-bench --csv "$OUT/bench-h200.csv" --json "$OUT/bench-h200.json" "$@" 2>&1 | tee "$OUT/bench-h200.txt"
shapes="128x128x128 256x256x256 512x512x512 1024x1024x1024 2048x2048x2048 4096x4096x4096
        8192x8192x8192 4095x4095x4095 4097x4097x4097 8192x8192x256 256x8192x8192 8192x128x8192"
python3 tools/device/cublas_reference.py $shapes 2>&1 | tee "$OUT/cublas-h200.txt"
