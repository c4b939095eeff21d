#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: the wave model
# (src/plan/wave_plan.hpp) against measurement. For each shape, blocked on the large entry's
# 128 x 256 tiles run unsplit, as the model chooses (WAVE_UNITS=132), with the last wave's
# split where the model has one, and with K split into a few other slice counts; then `auto`,
# `auto` of another build where BEFORE names its folder (as build-device/: clgemm-run and
# src/), and cuBLAS FP32 on the same shapes. clgemm-run's median of 20 enqueue + finish calls
# (unverified: the splits' correctness is the tests'). Output: $OUT/wave-model.txt.
#   tools/device/h200_wave_model.sh ["MxNxK:S1,S2,... ..."]
set -uo pipefail
source tools/device/environment.sh
LIMIT=${WAVE_SECONDS:-400}
L="-D TILE_M=128 -D TILE_N=256 -D ITEM_M=16 -D ITEM_N=8 -D TILE_K=8 -D VEC=4 -D UNROLL=1 -D LOCAL_PAD=4"
SHAPES=${1:-"3000x3000x3000:2,5 3200x3200x3200:2,3 2500x2500x2500:3,5 5000x5000x5000:2,4
1536x1536x1536:3,5 1000x1000x1000:3,4 1024x5120x5120:3,4,8 256x4096x4096:4,8 96x12288x3072:5,8
128x11008x4096:3,6 128x6144x4096:5,11 4096x768x3072:4 2560x2560x2560:3 2048x2048x2048:2
1280x1280x1280:2,5 1024x1024x1024:4"}
BEFORE=${BEFORE:-}
run() {  # label m n k [clgemm-run options]
  local label=$1 m=$2 n=$3 k=$4; shift 4
  (( SECONDS < LIMIT )) || return 0
  local out
  local build=build-device
  if [[ $label == before ]]; then build=$BEFORE; fi
  out=$(LD_LIBRARY_PATH=$PWD/$build/src:$LD_LIBRARY_PATH timeout 60 $build/clgemm-run --m "$m" --n "$n" --k "$k" --reps 20 --warmup 3 \
        --no-verify "$@" 2>&1)
  printf '%-8s %16s %9s %10s | %s\n' "$label" "${m}x${n}x${k}" \
    "$(grep -oE 'median [0-9.]+ ms' <<<"$out" | head -1 | grep -oE '[0-9.]+')" \
    "$(grep -oE '[0-9.]+ GFLOP/s' <<<"$out" | head -1)" \
    "$(grep -E '^choice:' <<<"$out" | cut -c9-260)$(grep -iE 'error' <<<"$out" | head -1)"
}
{
for spec in $SHAPES; do
  shape=${spec%%:*} splits=${spec#*:}
  IFS=x read -r m n k <<<"$shape"
  run unsplit "$m" "$n" "$k" --kernel blocked $L -D SPLIT_K=1
  run model "$m" "$n" "$k" --kernel blocked $L -D WAVE_UNITS=132
  run lastwave "$m" "$n" "$k" --kernel blocked $L -D WAVE_UNITS=132 -D SPLIT_K=1
  for s in ${splits//,/ }; do run "S=$s" "$m" "$n" "$k" --kernel blocked $L -D SPLIT_K=$s; done
  run auto "$m" "$n" "$k" --kernel auto
  [[ -z $BEFORE ]] || run before "$m" "$n" "$k" --kernel auto
done
echo "== cuBLAS FP32"
python3 -c 'import json, sys; print(json.dumps({"results": [dict(zip("mnk", map(int, s.split(":")[0].split("x"))))
  for s in sys.argv[1:]]}))' $SHAPES > "$OUT/wave-shapes.json"
timeout 180 python3 tools/device/cublas_suite.py --shapes-from "$OUT/wave-shapes.json" \
  --precisions fp32 -o "$OUT/wave-cublas.json" 2>&1 | tail -16
echo "== $SECONDS s"
} 2>&1 | tee "$OUT/wave-model.txt"
