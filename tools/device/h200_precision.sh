#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: the evidence for
# the precision modes, all from one device call.
#   1. the precision test suite (tests/problem/precision_test.cpp), here on the tensor-core path;
#   2. accuracy: clgemm-accuracy (fp32, tf32, 3xtf32 at K = 256, 4096, 16384) and cuBLAS FP32
#      and TF32 on the very same inputs (tools/device/cublas_accuracy.py);
#   3. speed: clgemm-bench (auto in each precision, CLBlast) and cuBLAS FP32/TF32.
# Outputs under $OUT: precision-tests.txt, accuracy.txt, ours.json, bench.txt, bench.csv/json.
set -uo pipefail
source tools/device/environment.sh
B=build-device

echo "== 1. precision tests"
timeout 200 $B/tests/clgemm-precision-tests --gtest_brief=1 > "$OUT/precision-tests.txt" 2>&1
echo "rc=$?" >> "$OUT/precision-tests.txt"
tail -5 "$OUT/precision-tests.txt"

echo "== 2. accuracy"
$B/clgemm-accuracy --dump /tmp/dump --json > "$OUT/ours.json"; echo "clgemm-accuracy rc=$?"
python3 tools/device/cublas_accuracy.py /tmp/dump --ours "$OUT/ours.json" > "$OUT/accuracy.txt" 2>&1
cat "$OUT/accuracy.txt"

echo "== 3. speed"
$B/clgemm-bench --kernels auto,auto@tf32,auto@3xtf32 --sizes 1024,4096,8192 \
  --shapes 4097x4097x4097 --peers clblast --csv "$OUT/bench.csv" --json "$OUT/bench.json" \
  > "$OUT/bench.txt" 2>&1
python3 .device-kit/cublas_sgemm.py 1024 4096 8192 4097 >> "$OUT/bench.txt" 2>&1
cat "$OUT/bench.txt"
