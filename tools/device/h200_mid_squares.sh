#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: where the time of
# the small and mid-size products goes. First the device's launch floor (tools/device/
# launch_floor.cpp: an empty kernel's enqueue + finish) and clgemm's own smallest call (1x1x1 on
# `base`), then for each shape `auto` and blocked on each tuned FP32 entry of the H200 with K
# split into 1, 2, 4 and 8 slices, each as clgemm-run's median of 50 enqueue + finish calls (the
# wall) and of the kernels alone (profiling events), then cuBLAS FP32 on the same shapes in the
# same call. A shape is N (a square), MxNxK or MxNxK*BATCH. Output: $OUT/mid-squares.txt.
# ENTRIES names the entries to force (default: all of them); VARIANTS the option sets each entry
# runs with, separated by ";" (default: the four splits).
#   ENTRIES="small medium" tools/device/h200_mid_squares.sh ["256 384 512 8192x64x8192 ..."]
#   ENTRIES=large VARIANTS="-D SPLIT_K=0;-D ASYNC_COPY=1 -D STAGES=3" tools/device/h200_mid_squares.sh 4096
set -uo pipefail
source tools/device/environment.sh
SHAPES=${1:-"128 256 384 512 640 768 896 1000 1024 1280 8192x8192x64 8192x64x8192 64x8192x8192"}
LIMIT=${MID_SECONDS:-420}
declare -A ENTRY=(
  [tiny]="-D TILE_M=16 -D TILE_N=64 -D ITEM_M=4 -D ITEM_N=4 -D TILE_K=16 -D VEC=2 -D UNROLL=1"
  [small]="-D TILE_M=16 -D TILE_N=64 -D ITEM_M=4 -D ITEM_N=4 -D TILE_K=32 -D VEC=8 -D UNROLL=0"
  [thin]="-D TILE_M=32 -D TILE_N=128 -D ITEM_M=8 -D ITEM_N=4 -D TILE_K=32 -D VEC=4 -D UNROLL=1"
  [medium]="-D TILE_M=64 -D TILE_N=64 -D ITEM_M=8 -D ITEM_N=4 -D TILE_K=16 -D VEC=4 -D UNROLL=1"
  [batched]="-D TILE_M=128 -D TILE_N=128 -D ITEM_M=16 -D ITEM_N=4 -D TILE_K=8 -D VEC=2 -D UNROLL=1"
  [smallk]="-D TILE_M=128 -D TILE_N=256 -D ITEM_M=16 -D ITEM_N=8 -D TILE_K=8 -D VEC=4 -D UNROLL=1"
  [large]="-D TILE_M=128 -D TILE_N=256 -D ITEM_M=16 -D ITEM_N=8 -D TILE_K=8 -D VEC=4 -D UNROLL=1 -D LOCAL_PAD=4"
  [mlarge]="-D TILE_M=64 -D TILE_N=128 -D ITEM_M=8 -D ITEM_N=8 -D TILE_K=8 -D VEC=4 -D UNROLL=1 -D LOCAL_PAD=4 -D FRAG_PREFETCH=1 -D LANES_N=8"
)
run() {  # label shape [clgemm-run options]
  local label=$1 shape=$2 m n k batch=1; shift 2
  (( SECONDS < LIMIT )) || return 0
  [[ $shape == *x* ]] || shape=${shape}x${shape}x${shape}
  [[ $shape == *\** ]] && batch=${shape#*\*}
  IFS=x read -r m n k <<<"${shape%%\**}"
  local out
  out=$(timeout 60 build-device/clgemm-run --m "$m" --n "$n" --k "$k" --batch "$batch" \
        --reps 50 --warmup 5 --no-verify "$@" 2>&1)
  printf '%-34s %14s wall %8s device %8s | %s\n' "$label" "$shape" \
    "$(grep -oE 'median [0-9.]+ ms' <<<"$out" | head -1 | grep -oE '[0-9.]+')" \
    "$(grep -E '^device: +median' <<<"$out" | grep -oE '[0-9.]+' | head -1)" \
    "$(grep -E '^choice:' <<<"$out" | cut -c9-200)$(grep -iE 'error' <<<"$out" | head -1)"
}
{
g++ -std=c++17 -O2 -o /tmp/launch_floor tools/device/launch_floor.cpp -lOpenCL && /tmp/launch_floor 2000
run base-1x1x1 1 --kernel base
for shape in $SHAPES; do
  run auto "$shape" --kernel auto
  for entry in ${ENTRIES:-tiny small thin medium mlarge batched smallk large}; do
    IFS=';' read -ra variants <<<"${VARIANTS:--D SPLIT_K=1;-D SPLIT_K=2;-D SPLIT_K=4;-D SPLIT_K=8}"
    for v in "${variants[@]}"; do
      label=${v//-D /} options=${ENTRY[$entry]}
      # A variant's value replaces the entry's (clgemm-run refuses a name given twice).
      for d in $label; do options=$(sed -E "s/-D ${d%%=*}=[^ ]+//" <<<"$options"); done
      # shellcheck disable=SC2086 # the entry and the variant are lists of options
      run "$entry/${label// /,}" "$shape" --kernel blocked $options $v
    done
  done
done
echo "== cuBLAS FP32"
python3 -c 'import json, sys; print(json.dumps({"results": [dict(zip("mnk", map(int,
  (s if "x" in s else f"{s}x{s}x{s}").split("*")[0].split("x"))), batch_count=int(
  (s.split("*") + ["1"])[1])) for s in sys.argv[1:]]}))' $SHAPES > "$OUT/mid-shapes.json"
timeout 120 python3 tools/device/cublas_suite.py --shapes-from "$OUT/mid-shapes.json" \
  --precisions fp32 -o "$OUT/mid-cublas.json" 2>&1 | tail -14
echo "== $SECONDS s"
} 2>&1 | tee "$OUT/mid-squares.txt"
