#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: times blocked
# with several parameter sets at a few sizes (enqueue + finish medians from clgemm-run) to
# choose its defaults. Output: one line per variant and size, also in $OUT/variants.txt.
set -uo pipefail
source tools/device/environment.sh
run() {  # size, then -D options
  local n=$1; shift
  local out
  out=$(build-device/clgemm-run --kernel blocked --n "$n" --reps 10 --no-verify "$@" 2>&1)
  printf '%-6s %-70s %s\n' "$n" "$*" "$(grep -oE '[0-9.]+ GFLOP/s' <<<"$out" || grep error <<<"$out")"
}
{
for n in 4096 1024; do
  run $n
  run $n -D TILE_K=8
  run $n -D TILE_K=32 -D TILE_M=64
  run $n -D TILE_N=256 -D ITEM_N=16
  run $n -D TILE_M=256 -D ITEM_M=16
  run $n -D ITEM_M=16 -D TILE_M=256 -D TILE_K=8
  run $n -D TILE_M=64 -D ITEM_M=4
  run $n -D TILE_M=64 -D TILE_N=64 -D ITEM_M=4 -D ITEM_N=4
  run $n -D TILE_M=64 -D TILE_N=64 -D ITEM_M=8 -D ITEM_N=4
  run $n -D VEC=2
  run $n -D VEC=8 -D TILE_K=32
  run $n -D ITEM_M=4 -D TILE_K=8
done
} 2>&1 | tee "$OUT/variants.txt"
