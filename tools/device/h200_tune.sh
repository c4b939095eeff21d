#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: tunes the
# production kernel for every shape class and leaves the database in $OUT/h200.json.
set -uo pipefail
source tools/device/environment.sh
build-device/clgemm-tune --kernel blocked --budget "${1:-24},${2:-5m}" --output "$OUT/h200.json" \
  --state "$OUT/h200-tune-state.json" 2>&1 | tee "$OUT/tune-h200.txt"
