#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: cuBLAS FP32 and
# TF32 at 1024, 2048, 4096 and 8192, then the wgmma kernel's speed (whole calls: both packs and
# the product, clgemm-run's median of 20 after 3 warm-ups, verified on sampled rows and
# columns) over its tiles, depths, stages, A_REGISTERS and LAST_WARP_REFILLS, in
# TF32 and 3xTF32, at 4096 (the best also at 8192, 4095 and 4097, a few at 1024 and 2048). Each line:
# precision, n, the -D options, GFLOP/s, the kernels' device time and the verification, and the
# seconds the run took.
#   usage: tools/device/h200_wgmma_variants.sh
source tools/device/environment.sh
python3 .device-kit/cublas_sgemm.py 1024 2048 4096 8192 2>&1 | tail -8
t() {  # precision n [clgemm-run options]
  local p=$1 n=$2; shift 2; local s=$SECONDS
  out=$(timeout ${T:-40} build-device/clgemm-run --kernel wgmma --precision $p --n $n --reps 20 --warmup 3 "$@" 2>&1)
  printf '%-7s %5s %-100s %s %s (%ss)\n' $p $n "$*" "$(grep -oE '[0-9.]+ GFLOP/s' <<<"$out")" "$(grep -oE '^device: +median [0-9.]+ ms' <<<"$out")$(grep -oE '^verify: +[a-z]+' <<<"$out")$(grep -E error <<<"$out"|head -2)" $((SECONDS-s)); }
v() {  # precision n "TILE_M TILE_N TILE_K STAGES A_REGISTERS LAST_WARP_REFILLS"
  local p=$1 n=$2; set -- $3
  t $p $n -D TILE_M=$1 -D TILE_N=$2 -D TILE_K=$3 -D STAGES=$4 -D A_REGISTERS=$5 -D LAST_WARP_REFILLS=$6; }
TF32=("128 64 16 3 0 0" "128 64 16 3 0 1" "128 128 24 3 1 0" "128 128 24 3 1 1"
      "128 128 16 4 1 1" "128 128 16 5 1 1" "128 128 8 5 0 1" "128 256 16 2 1 1"
      "256 128 16 4 1 1")
for x in "${TF32[@]}"; do v tf32 4096 "$x"; done
X3=("128 64 32 3 1 0" "128 64 32 3 1 1" "128 64 32 4 1 1" "128 64 16 3 0 1"
    "128 128 16 4 1 1" "128 128 32 2 1 1" "64 64 32 4 1 1")
for x in "${X3[@]}"; do v 3xtf32 4096 "$x"; done
for n in 8192 4095 4097; do
  for x in "128 128 24 3 1 1" "128 128 24 3 1 0"; do T=120 v tf32 $n "$x"; done; done
for n in 1024 2048; do
  for x in "128 64 16 3 0 0" "128 64 16 3 0 1" "64 64 32 4 1 1" "128 128 24 3 1 1"; do
    v tf32 $n "$x"; done; done
