#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: tunes the
# production kernel for every shape class and leaves the database in $OUT/h200.json.
set -uo pipefail
source .device-kit/nvidia-opencl.sh
export CLGEMM_KERNEL_DIR=$PWD/kernels LD_LIBRARY_PATH=$PWD/build-device/src:$LD_LIBRARY_PATH
build-device/clgemm-tune --kernel blocked --budget "${1:-24},${2:-5m}" --output "$OUT/h200.json" \
  --state "$OUT/h200-tune-state.json" 2>&1 | tee "$OUT/tune-h200.txt"
