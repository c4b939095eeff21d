#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: gemv's speed on
# GEMV-like shapes over parameter variants (clgemm-run, enqueue + finish medians, verified),
# blocked beside it; clgemm-tune for gemv's class into $OUT/h200.json (a copy of
# tuning/h200.json); then clgemm-bench's gemv suite, with that database when the tune ran,
# cuBLAS in the same call and the ratio table with the bandwidth column
# (tools/device/h200_suite.sh). A step that would start after GEMV_SCRIPT_SECONDS
# (default 480) is skipped, so that one device call stays within its limit. Output in
# $OUT/gemv.txt, $OUT/tune-*.txt and h200_suite.sh's files.
#   usage: tools/device/h200_gemv.sh [variants] [tune] [suite]
set -uo pipefail
source tools/device/environment.sh
LIMIT=${GEMV_SCRIPT_SECONDS:-480}
STEPS="${*:-variants tune suite}"
want() {
  [[ " ${STEPS} " == *" $1 "* ]] || return 1
  (( SECONDS < LIMIT )) || { echo "== $1: skipped, $SECONDS s into the script"; return 1; }
}
run() {  # kernel m n k [-D options]
  local kernel=$1 m=$2 n=$3 k=$4; shift 4
  (( SECONDS < LIMIT )) || return 0
  local out
  out=$(timeout 60 build-device/clgemm-run --kernel "$kernel" --m "$m" --n "$n" --k "$k" \
        --reps 30 --warmup 3 "$@" 2>&1)
  printf '%-8s %5s %6s %6s %-52s %s | %s\n' "$kernel" "$m" "$n" "$k" "$*" \
    "$(grep -oE '[0-9.]+ GFLOP/s' <<<"$out" || true)" \
    "$(grep -oE '^verify: +[a-zA-Z]+' <<<"$out")$(grep -E 'error' <<<"$out" | head -2)"
}
{
if want variants; then
  echo "== gemv variants (GFLOP/s per call; bytes of the long operand / time gives the bandwidth)"
  # The first tune's winner, then narrower groups (more of them per SM) and deeper rings.
  W="-D SMALL=8"
  for shape in "1 4096 4096" "8 4096 4096" "4096 8 4096"; do
    run blocked $shape
    run gemv $shape
    run gemv $shape $W -D LANES=4 -D VEC=8 -D SPLIT=64 -D AHEAD=1 -D PASS_ROWS=2
    run gemv $shape $W -D LANES=2 -D VEC=8 -D SPLIT=128 -D AHEAD=2 -D PASS_ROWS=2
    run gemv $shape $W -D LANES=1 -D VEC=8 -D SPLIT=256 -D AHEAD=2 -D PASS_ROWS=1
    run gemv $shape $W -D LANES=4 -D VEC=4 -D SPLIT=64 -D AHEAD=4 -D PASS_ROWS=4
    run gemv $shape $W -D LANES=4 -D VEC=4 -D SPLIT=64 -D AHEAD=2 -D PASS_ROWS=4
    run gemv $shape $W -D LANES=2 -D VEC=4 -D SPLIT=128 -D AHEAD=3 -D PASS_ROWS=4
    run gemv $shape $W -D LANES=8 -D VEC=4 -D SPLIT=32 -D AHEAD=4 -D PASS_ROWS=8
    run gemv $shape -D SMALL=4 -D PASS_ROWS=2 -D LANES=4 -D VEC=8 -D SPLIT=64 -D AHEAD=2
  done
fi
if want tune; then
  cp tuning/h200.json "$OUT/h200.json"
  echo "== clgemm-tune --kernel gemv (class gemv, 8 x 4096 x 4096)"
  timeout 150 build-device/clgemm-tune --kernel gemv --budget 60,120s --space SMALL=8 \
    --space UNROLL=1 --space PASS_ROWS=1,2,4 --space VEC=4,8 --space LANES=1,2,4,8 \
    --space SPLIT=32,64,128,256 --space AHEAD=1,2,3,4 --output "$OUT/h200.json" \
    --state /tmp/tune-gemv-state.json 2>&1 | tee "$OUT/tune-gemv.txt" | tail -8
fi
} 2>&1 | tee "$OUT/gemv.txt"
if want suite; then
  [[ -f $OUT/h200.json ]] && export CLGEMM_TUNING_FILE=$OUT/h200.json
  KERNELS=auto,gemv,blocked PEERS=clblast tools/device/h200_suite.sh gemv --min-time 0.1
fi
