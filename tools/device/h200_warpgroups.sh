#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: the work-groups
# above 256 work-items that the group-size probe opened (src/runtime/capability_probes.hpp),
# beside cuBLAS FP32 and TF32 on the same sizes in the same call. wgmma with four warpgroups
# (512 work-items) against the tuned two-warpgroup entries, in TF32 and 3xTF32; blocked with
# 512 work-items (8 x 8 outputs each) against its tuned 256; then the last wave's split.
# clgemm-run's median of 10-20 enqueue + finish calls. Output: $OUT/warpgroups.txt.
set -uo pipefail
source tools/device/environment.sh
SIZES=${SIZES:-2048 3000 4096 8192}
run() {  # kernel precision n [-D options]
  local k=$1 p=$2 n=$3; shift 3; local s=$SECONDS out
  out=$(timeout ${T:-60} build-device/clgemm-run --kernel "$k" --precision "$p" --n "$n" --reps 20 --warmup 3 "$@" 2>&1)
  printf '%-8s %-7s %5s %-118s %s %s (%ss)\n' "$k" "$p" "$n" "$*" \
    "$(grep -oE '[0-9.]+ GFLOP/s' <<<"$out" | head -1)" \
    "$(grep -oE '^verify: +[a-z]+' <<<"$out")$(grep -iE 'error' <<<"$out" | head -1)" $((SECONDS - s))
}
w() { run wgmma "$@"; }
{
python3 .device-kit/cublas_sgemm.py $SIZES 2>&1 | tail -${#SIZES}
for n in $SIZES; do
  # TF32: the tuned large entry, then four warpgroups of one 64-row block each.
  w tf32 $n -D TILE_M=128 -D TILE_N=128 -D TILE_K=24 -D STAGES=3 -D A_REGISTERS=1 -D LAST_WARP_REFILLS=0
  w tf32 $n -D TILE_M=256 -D WARPGROUPS=4 -D TILE_N=128 -D TILE_K=16 -D STAGES=4 -D A_REGISTERS=1 -D LAST_WARP_REFILLS=0
  w tf32 $n -D TILE_M=256 -D WARPGROUPS=4 -D TILE_N=128 -D TILE_K=16 -D STAGES=4 -D A_REGISTERS=1 -D LAST_WARP_REFILLS=1
  w tf32 $n -D TILE_M=256 -D WARPGROUPS=4 -D TILE_N=128 -D TILE_K=8 -D STAGES=3 -D A_REGISTERS=0 -D LAST_WARP_REFILLS=1
  w tf32 $n -D TILE_M=256 -D WARPGROUPS=4 -D TILE_N=64 -D TILE_K=32 -D STAGES=4 -D A_REGISTERS=1 -D LAST_WARP_REFILLS=1
  # 3xTF32: the tuned large entry, then four warpgroups.
  w 3xtf32 $n -D TILE_M=128 -D TILE_N=64 -D TILE_K=32 -D STAGES=4 -D A_REGISTERS=1 -D LAST_WARP_REFILLS=1
  w 3xtf32 $n -D TILE_M=256 -D WARPGROUPS=4 -D TILE_N=64 -D TILE_K=32 -D STAGES=4 -D A_REGISTERS=1 -D LAST_WARP_REFILLS=1
  w 3xtf32 $n -D TILE_M=256 -D WARPGROUPS=4 -D TILE_N=64 -D TILE_K=16 -D STAGES=4 -D A_REGISTERS=1 -D LAST_WARP_REFILLS=1
done
B="-D TILE_K=8 -D VEC=4 -D UNROLL=1 -D LOCAL_PAD=4"
for n in $SIZES; do
  run blocked fp32 $n -D TILE_M=128 -D TILE_N=256 -D ITEM_M=16 -D ITEM_N=8 $B
  run blocked fp32 $n -D TILE_M=128 -D TILE_N=256 -D ITEM_M=8 -D ITEM_N=8 $B
  run blocked fp32 $n -D TILE_M=128 -D TILE_N=256 -D ITEM_M=8 -D ITEM_N=8 -D LANES_N=8 -D FRAG_PREFETCH=1 $B
  run blocked fp32 $n -D TILE_M=256 -D TILE_N=128 -D ITEM_M=8 -D ITEM_N=8 -D LANES_N=8 -D FRAG_PREFETCH=1 $B
  run blocked fp32 $n -D TILE_M=128 -D TILE_N=128 -D ITEM_M=8 -D ITEM_N=4 -D LANES_N=4 -D FRAG_PREFETCH=1 $B
done
for n in 3000 2048; do
  run blocked fp32 $n -D TILE_M=128 -D TILE_N=256 -D ITEM_M=16 -D ITEM_N=8 $B -D WAVE_UNITS=132
  run blocked fp32 $n -D TILE_M=64 -D TILE_N=128 -D ITEM_M=8 -D ITEM_N=8 -D LANES_N=8 -D FRAG_PREFETCH=1 $B
  run blocked fp32 $n -D TILE_M=64 -D TILE_N=128 -D ITEM_M=8 -D ITEM_N=8 -D LANES_N=8 -D FRAG_PREFETCH=1 $B -D WAVE_UNITS=264
done
} 2>&1 | tee "$OUT/warpgroups.txt"
