#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: whether the wave
# model (src/plan/wave_plan.hpp) pays for the tuned entries that carry no WAVE_UNITS yet (the
# thin entry's 32 x 128 tiles on decode shapes, the medium-large entry's 64 x 128 tiles where
# `auto` takes it), with WAVE_UNITS set to 1, 2, 4 and 8 work-groups per SM, beside `auto`.
# clgemm-run's median of 20 enqueue + finish calls, unverified. Output: $OUT/wave-units.txt.
set -uo pipefail
source tools/device/environment.sh
THIN="-D TILE_M=32 -D TILE_N=128 -D ITEM_M=8 -D ITEM_N=4 -D TILE_K=32 -D VEC=4 -D UNROLL=1"
ML="-D TILE_M=64 -D TILE_N=128 -D ITEM_M=8 -D ITEM_N=8 -D LANES_N=8 -D FRAG_PREFETCH=1 -D LOCAL_PAD=4 -D TILE_K=8 -D VEC=4 -D UNROLL=1"
run() {  # label m n k [clgemm-run options]
  local label=$1 m=$2 n=$3 k=$4; shift 4
  local out
  out=$(timeout 30 build-device/clgemm-run --m "$m" --n "$n" --k "$k" --reps 20 --warmup 3 \
        --no-verify "$@" 2>&1)
  printf '%-9s %16s %9s | %s\n' "$label" "${m}x${n}x${k}" \
    "$(grep -oE 'median [0-9.]+ ms' <<<"$out" | head -1 | grep -oE '[0-9.]+')" \
    "$(grep -oE 'split-K into [0-9]+ slices|last-wave split: [^,]*' <<<"$out" | head -1)$(grep -iE 'error' <<<"$out" | head -1)"
}
{
for shape in "24 6144 6144" "32 4096 14336" "16 28672 4096" "32 4096 11008"; do
  run auto $shape --kernel auto
  for w in 132 264 528 1056; do run "thin/$w" $shape --kernel blocked $THIN -D WAVE_UNITS=$w; done
done
for shape in "2500 2500 2500" "96 12288 3072" "1000 1000 1000" "1024 1024 1024" "4096 768 3072"; do
  run auto $shape --kernel auto
  for w in 0 264 528; do run "mlarg/$w" $shape --kernel blocked $ML -D WAVE_UNITS=$w; done
done
echo "== $SECONDS s"
} 2>&1 | tee "$OUT/wave-units.txt"
