#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: how the split of K
# and the tile entry move the shapes where `auto` trails cuBLAS most (thin and skinny llm
# products, mid-size squares, a partial last wave), to ground the split's choice
# (src/plan/split_k.cpp) in measurements. For each shape: cuBLAS FP32, `auto` with its choice,
# then the tuned entries of tuning/h200.json with SPLIT_K forced over a range. clgemm-run's
# median of 20 enqueue + finish calls (unverified: the split's correctness is the tests').
# Then the issue's batched targets beside CLBlast and cuBLAS (tools/device/h200_suite.sh
# batched, within 2600^3 of work). Output: $OUT/split-sweep.txt and h200_suite.sh's files.
set -uo pipefail
source tools/device/environment.sh
LIMIT=${SWEEP_SECONDS:-330}
L="-D TILE_M=128 -D TILE_N=256 -D ITEM_M=16 -D ITEM_N=8 -D TILE_K=8 -D VEC=4 -D UNROLL=1 -D LOCAL_PAD=4"
ML="-D TILE_M=64 -D TILE_N=128 -D ITEM_M=8 -D ITEM_N=8 -D LANES_N=8 -D FRAG_PREFETCH=1 -D LOCAL_PAD=4 -D TILE_K=8 -D VEC=4 -D UNROLL=1"
T="-D TILE_N=128 -D ITEM_N=4 -D TILE_K=32 -D VEC=4 -D UNROLL=1"
run() {  # label m n k [clgemm-run options]
  local label=$1 m=$2 n=$3 k=$4; shift 4
  (( SECONDS < LIMIT )) || return 0
  local out
  out=$(timeout 60 build-device/clgemm-run --m "$m" --n "$n" --k "$k" --reps 20 --warmup 3 \
        --no-verify "$@" 2>&1)
  printf '%-5s %16s %-22s %9s %10s | %s\n' "$label" "${m}x${n}x${k}" \
    "$(grep -oE 'SPLIT_K=[0-9]+|WAVE_UNITS=[0-9]+' <<<"$*" | tr '\n' ' ')" \
    "$(grep -oE 'median [0-9.]+ ms' <<<"$out" | head -1 | grep -oE '[0-9.]+')" \
    "$(grep -oE '[0-9.]+ GFLOP/s' <<<"$out" | head -1)" \
    "$(grep -E '^choice:' <<<"$out" | cut -c12-170)$(grep -iE 'error' <<<"$out" | head -1)"
}
sweep() {  # label m n k "splits" options...
  local label=$1 m=$2 n=$3 k=$4 splits=$5; shift 5
  for s in $splits; do run "$label" "$m" "$n" "$k" --kernel blocked "$@" -D SPLIT_K=$s; done
}
SHAPES="24,6144,6144 16,28672,4096 32,4096,14336 128,6144,4096 128,11008,4096 512,14336,4096 1536,1536,1536 2048,2048,2048 3200,3200,3200"
{
echo "== cuBLAS FP32"
python3 -c 'import json, sys; print(json.dumps({"results": [dict(zip("mnk", map(int, s.split(","))))
  for s in sys.argv[1:]]}))' $SHAPES > "$OUT/sweep-shapes.json"
python3 tools/device/cublas_suite.py --shapes-from "$OUT/sweep-shapes.json" --precisions fp32 \
  -o "$OUT/sweep-cublas.json" 2>&1 | tail -9
echo "== auto and the entries with SPLIT_K forced (0: the automatic split)"
run auto 24 6144 6144 --kernel auto
sweep thin 24 6144 6144 "0 1 4 5 8 11 16" -D TILE_M=32 -D ITEM_M=8 $T
sweep thn16 24 6144 6144 "0 5 11" -D TILE_M=16 -D ITEM_M=4 $T
run auto 16 28672 4096 --kernel auto
sweep thin 16 28672 4096 "0 1 3 4" -D TILE_M=32 -D ITEM_M=8 $T
sweep thn16 16 28672 4096 "1 2 3 4" -D TILE_M=16 -D ITEM_M=4 $T
run auto 32 4096 14336 --kernel auto
sweep thin 32 4096 14336 "0 4 8 11 16" -D TILE_M=32 -D ITEM_M=8 $T
run auto 128 6144 4096 --kernel auto
sweep large 128 6144 4096 "0 8 11 16" $L
sweep mlarg 128 6144 4096 "0 1 2 3 5" $ML
run auto 128 11008 4096 --kernel auto
sweep mlarg 128 11008 4096 "0 1 3 4 6" $ML
sweep large 128 11008 4096 "0 6 8" $L
run auto 512 14336 4096 --kernel auto
sweep large 512 14336 4096 "1 0 3 4 7" $L
sweep mlarg 512 14336 4096 "0 2 4" $ML
run auto 1536 1536 1536 --kernel auto
sweep large 1536 1536 1536 "0 2 3 5 6" $L
sweep mlarg 1536 1536 1536 "0 2 4" $ML
run auto 2048 2048 2048 --kernel auto
sweep large 2048 2048 2048 "0 2 3 4" $L
sweep mlarg 2048 2048 2048 "0 2" $ML
run auto 3200 3200 3200 --kernel auto
sweep large 3200 3200 3200 "0 2" $L
sweep large 3200 3200 3200 "0" $L -D WAVE_UNITS=132
sweep mlarg 3200 3200 3200 "0" $ML
echo "== $SECONDS s"
} 2>&1 | tee "$OUT/split-sweep.txt"
PEERS=clblast CUBLAS_LINES=8 tools/device/h200_suite.sh batched --max-size 2600 --min-time 0.2 >/dev/null 2>&1
tail -20 "$OUT/ratios.txt"
