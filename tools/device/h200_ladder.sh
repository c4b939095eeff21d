#!/usr/bin/env bash
# Runs on the H200 device machine with the build tree and .device-kit carried: registers
# NVIDIA's OpenCL driver, runs the GPU test suite, then the ladder table and a few vectorized
# parameter variants. Outputs land in $OUT.
set -uo pipefail
source .device-kit/nvidia-opencl.sh
export CLGEMM_KERNEL_DIR=$PWD/kernels LD_LIBRARY_PATH=$PWD/build/src:$LD_LIBRARY_PATH
run=build/clgemm-run
$run --list-devices | tee "$OUT/devices.txt"
build/tests/clgemm-tests --gtest_brief=1 2>&1 | tail -5 | tee "$OUT/gpu-tests.txt"
$run --kernel all --n 1024 | tee "$OUT/ladder-1024.txt"
$run --kernel all --n 2048 --json > "$OUT/ladder-2048.jsonl"
for d in "" "-D TILE_K=8" "-D ITEM_M=8 -D ITEM_N=4 -D TILE_N=64" "-D VEC=8" \
         "-D TILE_M=64 -D TILE_N=64 -D ITEM_M=4 -D ITEM_N=4"; do
  echo "== vectorized 4096 $d"
  $run --kernel vectorized --n 4096 $d | grep -E "options|speed|verify"
done 2>&1 | tee "$OUT/vectorized-variants.txt"
