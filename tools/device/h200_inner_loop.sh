#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: blocked's
# inner-loop options (LANES_N, FRAG_PREFETCH, LOCAL_PAD) and the last wave's split (WAVE_UNITS)
# against the parameters they extend, enqueue + finish medians from clgemm-run, with cuBLAS FP32
# on the same sizes in the same call (docs/PERFORMANCE.md, "blocked's inner-loop options").
# Output: one line per variant and size, also in $OUT/inner-loop.txt.
set -uo pipefail
source tools/device/environment.sh
run() {  # size, then -D options
  local n=$1; shift
  local out
  out=$(timeout 60 build-device/clgemm-run --kernel blocked --n "$n" --reps 10 --no-verify "$@" 2>&1)
  printf '%-5s %-110s %s\n' "$n" "$*" "$(grep -oE '[0-9.]+ GFLOP/s' <<<"$out" | head -1 || tail -1 <<<"$out")"
}
LARGE="-D TILE_M=128 -D TILE_N=256 -D TILE_K=8 -D ITEM_M=16 -D ITEM_N=8 -D VEC=4 -D UNROLL=1"
MEDIUM="-D TILE_M=64 -D TILE_N=128 -D TILE_K=8 -D ITEM_M=8 -D ITEM_N=8 -D VEC=4 -D UNROLL=1"
{
for n in ${SIZES:-4096 3000 1024}; do
  run "$n" $LARGE
  run "$n" $LARGE -D LOCAL_PAD=4
  run "$n" $LARGE -D LANES_N=8
  run "$n" $LARGE -D LANES_N=8 -D FRAG_PREFETCH=1 -D LOCAL_PAD=4
  run "$n" $MEDIUM
  run "$n" $MEDIUM -D LANES_N=8 -D FRAG_PREFETCH=1 -D LOCAL_PAD=4
  # The last wave's split: one work-group per SM on the large tiles, several on the medium ones.
  run "$n" $LARGE -D LOCAL_PAD=4 -D WAVE_UNITS=132
  run "$n" $MEDIUM -D LANES_N=8 -D FRAG_PREFETCH=1 -D LOCAL_PAD=4 -D WAVE_UNITS=264
  run "$n" $MEDIUM -D LANES_N=8 -D FRAG_PREFETCH=1 -D LOCAL_PAD=4 -D WAVE_UNITS=528
done
python3 .device-kit/cublas_sgemm.py ${SIZES:-4096 3000 1024}
} 2>&1 | tee "$OUT/inner-loop.txt"
