#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: a longer tune of
# the batched shape classes (seed 2, into $OUT/h200-batched.json, which the bench then reads as
# the user's tuning file), then the batched suite against CLBlast, the unfused product and
# cuBLAS in the same call (tools/device/h200_suite.sh batched).
#   tools/device/h200_batched_suite.sh [CANDIDATES [TIME]]
set -uo pipefail
source tools/device/environment.sh
timeout 330 build-device/clgemm-tune --kernel blocked --classes batched-tiny batched-small \
  --budget "${1:-80},${2:-240s}" --seed 2 --output "$OUT/h200-batched.json" \
  --state "$OUT/tune-state.json" > "$OUT/tune.txt" 2>&1
grep -A3 "^class" "$OUT/tune.txt" | tail -4
CLGEMM_TUNING_FILE=$OUT/h200-batched.json tools/device/h200_suite.sh batched --min-time 0.1
