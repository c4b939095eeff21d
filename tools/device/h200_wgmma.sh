#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried. By default: the
# wgmma probe's tests and the whole precision suite (tests/problem/precision_test.cpp), clgemm-run's
# verification of wgmma on edge shapes, transposes, layouts and parameter variants in tf32 and
# 3xtf32, its speed (the whole call: both packs and the product) next to tensorcore's and over
# parameter variants, and Nsight Compute at 4096 (which on 2026-12-01 profiled none of the
# OpenCL launches). Named only: quickcheck (a few shapes), refill (the last warp refilling
# pages, also part of check), tune (clgemm-tune for the large and
# medium classes in both precisions, into $OUT/h200.json, a copy of tuning/h200.json) and bench
# (auto, wgmma and tensorcore in both precisions, with that database when the tune ran). A step
# that would start after WGMMA_SCRIPT_SECONDS (default 480) is skipped, so that one device call
# stays within its limit. Output in $OUT/wgmma.txt (and $OUT/wgmma-profile-*.txt).
#   usage: tools/device/h200_wgmma.sh [tests] [check] [quickcheck] [refill] [time]
#                                     [variants] [profile] [tune] [bench]
set -uo pipefail
source tools/device/environment.sh
B=build-device
RUN=$B/clgemm-run
LIMIT=${WGMMA_SCRIPT_SECONDS:-480}
want() {
  [[ " ${STEPS} " == *" $1 "* ]] || return 1
  (( SECONDS < LIMIT )) || { echo "== $1: skipped, $SECONDS s into the script"; return 1; }
}
STEPS="${*:-tests check time variants profile}"
SHAPES=("1 1 1" "17 33 9" "65 7 130" "129 257 63" "300 1 19" "1000 1000 1000")

check() {  # precision m n k layout transa transb [extra]
  local p=$1 m=$2 n=$3 k=$4 layout=$5 ta=$6 tb=$7; shift 7
  local out
  out=$(timeout 60 $RUN --kernel wgmma --precision "$p" --m "$m" --n "$n" --k "$k" --layout "$layout" \
        --transa "$ta" --transb "$tb" --reps 1 "$@" 2>&1)
  printf '%-7s %5s %5s %5s %s %s%s %-36s %s\n' "$p" "$m" "$n" "$k" "$layout" "$ta" "$tb" "$*" \
    "$(grep -oE '^verify: .*' <<<"$out" | cut -c1-60 || true)$(grep -E 'error' <<<"$out" | head -3)"
}
time_run() {  # kernel precision n [extra]
  local kernel=$1 p=$2 n=$3; shift 3
  local out
  out=$(timeout 60 $RUN --kernel "$kernel" --precision "$p" --n "$n" --reps 20 --warmup 3 "$@" 2>&1)
  printf '%-10s %-7s %5s %-40s %s | %s\n' "$kernel" "$p" "$n" "$*" \
    "$(grep -oE '[0-9.]+ GFLOP/s' <<<"$out" || true)" \
    "$(grep -oE '^verify: +[a-zA-Z]+' <<<"$out")$(grep -E 'error' <<<"$out" | head -3)"
}
registers_check() {  # A in registers (A_REGISTERS 1) and two blocks of 64 rows per warpgroup
  local p shape t
  for p in tf32 3xtf32; do
    for shape in "1 1 1" "65 7 130" "300 1 19" "513 515 517" "1000 1000 1000"; do
      for t in "n n" "t t"; do
        check $p $shape row $t -D A_REGISTERS=1 -D TILE_M=256 -D TILE_N=64 -D TILE_K=16 -D STAGES=4
      done
      check $p $shape col n t -D A_REGISTERS=1 -D TILE_M=128 -D TILE_N=128 -D TILE_K=16 -D STAGES=3
      check $p $shape row t n -D A_REGISTERS=1 -D TILE_M=64 -D TILE_N=64 -D TILE_K=32 -D STAGES=2
    done
    check $p 200 300 100 row n n --lda 104 --ldb 303 --ldc 305 --beta 0.5 -D A_REGISTERS=1 \
      -D TILE_M=256 -D TILE_N=64 -D TILE_K=16 -D STAGES=3
    check $p 3 70000 40 row n n --batch 3 --stride-c 210001 -D A_REGISTERS=1 -D TILE_M=128 \
      -D TILE_N=64 -D TILE_K=16 -D STAGES=3
    check $p 513 515 517 row n t -D TILE_M=256 -D TILE_N=64 -D TILE_K=16 -D STAGES=2
  done
  check tf32 1000 1000 1000 row n n -D A_REGISTERS=1 -D TILE_M=256 -D TILE_N=128 -D TILE_K=16 -D STAGES=4
  check tf32 513 515 517 col t t -D A_REGISTERS=1 -D TILE_M=128 -D TILE_N=256 -D TILE_K=8 -D STAGES=5
  check tf32 129 257 1000 row n n -D A_REGISTERS=1 -D TILE_M=256 -D TILE_N=128 -D TILE_K=8 -D STAGES=5
}
refill_check() {  # the last warp done with a page refilling it (LAST_WARP_REFILLS 1)
  local p shape
  for p in tf32 3xtf32; do
    for shape in "1 1 1" "65 7 130" "300 1 19" "513 515 517" "1000 1000 1000"; do
      check $p $shape row n n -D A_REGISTERS=1 -D TILE_M=128 -D TILE_N=128 -D TILE_K=16 -D STAGES=3 \
        -D LAST_WARP_REFILLS=1
      check $p $shape col t n -D A_REGISTERS=1 -D TILE_M=256 -D TILE_N=64 -D TILE_K=16 -D STAGES=4 \
        -D LAST_WARP_REFILLS=1
      check $p $shape row n t -D TILE_M=64 -D TILE_N=64 -D TILE_K=32 -D STAGES=2 -D LAST_WARP_REFILLS=1
    done
    check $p 200 300 100 row n n --lda 104 --ldb 303 --ldc 305 --beta 0.5 -D A_REGISTERS=1 \
      -D TILE_M=128 -D TILE_N=64 -D TILE_K=32 -D STAGES=4 -D LAST_WARP_REFILLS=1
    check $p 3 70000 40 row n n --batch 3 --stride-c 210001 -D A_REGISTERS=1 -D TILE_M=128 \
      -D TILE_N=128 -D TILE_K=16 -D STAGES=3 -D LAST_WARP_REFILLS=1
  done
  check tf32 1000 1000 1000 row n n -D A_REGISTERS=1 -D TILE_M=128 -D TILE_N=128 -D TILE_K=24 -D STAGES=3 \
    -D LAST_WARP_REFILLS=1
  check tf32 129 257 1000 row t n -D TILE_M=128 -D TILE_N=64 -D TILE_K=16 -D STAGES=3 -D LAST_WARP_REFILLS=1
  check tf32 513 515 517 col n n -D A_REGISTERS=1 -D TILE_M=128 -D TILE_N=256 -D TILE_K=16 -D STAGES=2 \
    -D LAST_WARP_REFILLS=1
}
{
echo "== smoke: one small product in each precision (a hang or an error stops the script)"
for p in tf32 3xtf32; do
  timeout 30 $RUN --kernel wgmma --precision $p --m 200 --n 136 --k 72 --reps 1 2>&1 | tail -4
  [[ ${PIPESTATUS[0]} -eq 0 ]] || { echo "smoke $p failed: stopping"; exit 1; }
done
if want tests; then
  echo "== probe and precision tests (wgmma cases)"
  timeout 120 $B/tests/clgemm-internal-tests --gtest_filter='Wgmma.*' --gtest_brief=1 2>&1 |
    tail -5
  timeout 200 $B/tests/clgemm-precision-tests --gtest_brief=1 2>&1 | tail -30
fi
if want check; then
  echo "== correctness (wgmma, clgemm-run verification against the double reference)"
  for p in tf32 3xtf32; do
    for shape in "${SHAPES[@]}"; do
      for t in "n n" "t n" "n t" "t t"; do check $p $shape row $t; done
      check $p $shape col n n
    done
    check $p 200 300 100 row n n --lda 104 --ldb 303 --ldc 305 --beta 0.5
    check $p 513 515 517 row n n -D TILE_M=64 -D STAGES=3
    check $p 513 515 517 row t t -D TILE_N=64 -D STAGES=3
    check $p 513 515 517 row n t -D TILE_M=64 -D TILE_N=64 -D TILE_K=32
    check $p 513 515 517 col t n -D TILE_M=64 -D TILE_N=64 -D TILE_K=16 -D STAGES=5
    check $p 3 70000 40 row n n --batch 3 --stride-c 210001
  done
  check tf32 513 515 517 row n t -D TILE_N=256 -D TILE_K=8 -D STAGES=3
  check tf32 513 515 517 col n t -D TILE_M=64 -D TILE_N=256 -D TILE_K=8 -D STAGES=4
  check tf32 513 515 517 row t n -D TILE_K=8 -D STAGES=4
  check tf32 129 257 1000 row n n -D TILE_M=64 -D TILE_K=8 -D STAGES=6
  registers_check
  refill_check
fi
if want refill; then
  echo "== correctness, the last warp refilling"
  refill_check
fi
if want quickcheck; then
  echo "== correctness, a few shapes (wgmma, clgemm-run verification against the double reference)"
  for p in tf32 3xtf32; do
    for shape in "1 1 1" "65 7 130" "129 257 63" "1000 1000 1000"; do
      check $p $shape row n n; check $p $shape row t t; check $p $shape col n t
    done
    check $p 200 300 100 row n n --lda 104 --ldb 303 --ldc 305 --beta 0.5
    check $p 3 70000 40 row n n --batch 3 --stride-c 210001
  done
  check tf32 513 515 517 row n t -D TILE_N=256 -D TILE_K=8 -D STAGES=3
  check tf32 513 515 517 col t n -D TILE_N=128 -D TILE_K=8 -D STAGES=5
  registers_check
fi
if want time; then
  echo "== speed, GFLOP/s from the median of 20 runs"
  for n in 1024 4096 8192; do
    for p in tf32 3xtf32; do time_run wgmma $p $n; time_run tensorcore $p $n; done
  done
  for n in 4095 4097; do
    for p in tf32 3xtf32; do time_run wgmma $p $n; time_run tensorcore $p $n; done
  done
fi
if want variants; then
  echo "== parameter variants at 4096, GFLOP/s from the median of 20 runs"
  # TILE_M TILE_N TILE_K STAGES A_REGISTERS
  for v in "128 128 8 4 0" "128 64 16 3 0" "256 128 8 3 0" "256 128 16 4 1" "256 128 16 5 1" \
           "256 128 8 5 1" "256 128 32 2 1" "128 256 16 2 1" "128 256 8 5 1" "128 256 8 4 1" \
           "128 128 16 5 1" "128 128 32 2 1" "256 64 16 5 1" "256 64 32 4 1"; do
    set -- $v
    for n in ${VARIANT_SIZES:-4096 8192}; do
      time_run wgmma tf32 $n -D TILE_M=$1 -D TILE_N=$2 -D TILE_K=$3 -D STAGES=$4 -D A_REGISTERS=$5
    done
  done
  for v in "128 64 16 3 0" "128 128 16 4 1" "128 128 16 5 1" "128 128 32 2 1" "256 64 16 4 1" \
           "256 64 16 5 1" "256 64 32 2 1" "128 64 32 4 1" "64 64 32 4 1"; do
    set -- $v
    time_run wgmma 3xtf32 4096 -D TILE_M=$1 -D TILE_N=$2 -D TILE_K=$3 -D STAGES=$4 -D A_REGISTERS=$5
  done
fi
if want profile; then
  echo "== Nsight Compute, 8192 tf32 and 3xtf32 (the packs and the product)"
  for p in tf32 3xtf32; do
    timeout 200 ncu --clock-control none --section SpeedOfLight --section Occupancy \
      --section WarpStateStats --section LaunchStats --launch-count 4 \
      $RUN --kernel wgmma --precision $p --n 4096 --reps 1 --warmup 0 --no-verify \
      -D TILE_M=128 -D TILE_N=128 -D TILE_K=8 -D STAGES=4 >"$OUT/wgmma-profile-$p.txt" 2>&1
    grep -E "==PROF==|==WARNING==|==ERROR==|gemm_wgmma|wgmma_pack|Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Warp Cycles Per Issued" \
      "$OUT/wgmma-profile-$p.txt" | head -60
  done
fi
if want tune; then
  echo "== clgemm-tune, wgmma, classes ${TUNE_CLASSES:-large medium}"
  cp tuning/h200.json "$OUT/h200.json"
  for p in tf32 3xtf32; do
    # Around what the variants measured best (tools/device/h200_wgmma_variants.sh).
    if [[ $p == tf32 ]]; then
      space=(--space TILE_M=128 --space TILE_N=64,128 --space TILE_K=16,24 --space STAGES=3
             --space A_REGISTERS=0,1)
    else
      space=(--space TILE_M=64,128 --space TILE_N=64 --space TILE_K=32 --space STAGES=3,4
             --space A_REGISTERS=1)
    fi
    timeout 200 $B/clgemm-tune --kernel wgmma --precision $p --classes ${TUNE_CLASSES:-large medium} \
      --budget 40,150s "${space[@]}" --space LAST_WARP_REFILLS=0,1 --output "$OUT/h200.json" \
      --state "$OUT/tune-wgmma-$p.json" 2>&1 | tail -12
  done
fi
if want bench; then
  echo "== clgemm-bench: auto, wgmma and tensorcore, tf32 and 3xtf32"
  # The tune step's database when it ran, else the shipped one alone.
  [[ -f $OUT/h200.json ]] && export CLGEMM_TUNING_FILE=$OUT/h200.json
  timeout 200 $B/clgemm-bench \
    --kernels ${BENCH_KERNELS:-auto@tf32 wgmma@tf32 tensorcore@tf32 auto@3xtf32 wgmma@3xtf32 tensorcore@3xtf32} \
    --sizes 1024 2048 4096 8192 \
    --shapes 4095x4095x4095 4097x4097x4097 --peers none --min-time 0.1 \
    --json "$OUT/wgmma-bench.json" 2>&1 | tail -40
fi
} 2>&1 | tee "$OUT/wgmma.txt"
