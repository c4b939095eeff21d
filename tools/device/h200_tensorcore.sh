#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: checks the
# tensorcore kernel (tf32 and 3xtf32) on edge shapes, transposes and layouts with clgemm-run's
# verification, then times it and parameter variants at a few sizes next to cuBLAS from the
# same call. Output in $OUT/tensorcore.txt.
#   usage: tools/device/h200_tensorcore.sh [check | quick] [time] [variants]
set -uo pipefail
source tools/device/environment.sh
RUN=build-device/clgemm-run
want() { [[ " ${STEPS} " == *" $1 "* ]]; }
STEPS="${*:-check time}"
# The correctness shapes (M N K); "quick" in the steps keeps four of them.
SHAPES=("1 1 1" "17 33 9" "65 7 130" "128 128 128" "129 257 63" "1 300 7" "300 1 19" "1000 1000 1000" "4097 33 129")
if want quick; then SHAPES=("17 33 9" "129 257 63" "1000 1000 1000" "4097 33 129"); STEPS+=" check"; fi

check() {  # precision m n k layout transa transb [extra]
  local p=$1 m=$2 n=$3 k=$4 layout=$5 ta=$6 tb=$7; shift 7
  local out
  out=$($RUN --kernel tensorcore --precision "$p" --m "$m" --n "$n" --k "$k" --layout "$layout" \
        --transa "$ta" --transb "$tb" --reps 1 "$@" 2>&1)
  printf '%-7s %5s %5s %5s %s %s%s %-22s %s\n' "$p" "$m" "$n" "$k" "$layout" "$ta" "$tb" "$*" \
    "$(grep -oE '^verify: .*' <<<"$out" | cut -c1-60 || true)$(grep -E 'error' <<<"$out" | head -3)"
}
time_run() {  # precision n [extra]
  local p=$1 n=$2; shift 2
  local out
  out=$($RUN --kernel tensorcore --precision "$p" --n "$n" --reps 20 --warmup 3 "$@" 2>&1)
  printf '%-7s %5s %-50s %s | %s\n' "$p" "$n" "$*" "$(grep -oE '[0-9.]+ GFLOP/s' <<<"$out" || true)" \
    "$(grep -oE '^verify: +[a-zA-Z]+' <<<"$out")$(grep -E 'error' <<<"$out" | head -3)"
}
{
echo "== probe"
$RUN --kernel auto --precision tf32 --n 256 --reps 1 2>&1 | grep -E "device|kernel|choice|precision|verify|error"
if want check; then
  echo "== correctness (tensorcore, clgemm-run verification against the double reference)"
  for p in tf32 3xtf32; do
    for shape in "${SHAPES[@]}"; do
      for t in "n n" "t n" "n t" "t t"; do
        check $p $shape row $t
      done
      check $p $shape col n n
      check $p $shape col t t
    done
    check $p 200 300 100 row n n --lda 104 --ldb 303 --ldc 305 --beta 0.5
    check $p 200 300 100 row n n -D VEC=1
    check $p 512 512 512 row n n -D STAGES=3 -D TILE_K=8
    check $p 512 512 512 row t t -D STAGES=4 -D TILE_K=8
    check $p 513 515 517 row n n -D WARP_M=32 -D WARP_N=64
  done
fi
if want time; then
  echo "== speed (tensorcore), TFLOP/s from the median of 20 runs"
  for n in 1024 4096 8192; do
    for p in tf32 3xtf32; do time_run $p $n; done
  done
  echo "== cuBLAS, same call"
  python3 .device-kit/cublas_sgemm.py 1024 4096 8192 2>&1 | tail -8
fi
if want variants; then
  echo "== variants at 4096"
  for p in tf32 3xtf32; do
    time_run $p 4096 -D TILE_K=8 -D STAGES=4
    time_run $p 4096 -D TILE_K=8 -D STAGES=3
    time_run $p 4096 -D WARP_M=64 -D WARP_N=64 -D TILE_N=128
    time_run $p 4096 -D TILE_M=256 -D TILE_K=8 -D STAGES=2
    time_run $p 4096 -D TILE_M=256 -D WARP_M=64 -D WARP_N=64 -D TILE_K=8 -D STAGES=2
    time_run $p 4096 -D TILE_N=256 -D WARP_N=64 -D TILE_K=8 -D STAGES=2
    time_run $p 4096 -D WARP_M=32 -D WARP_N=64
  done
fi
} 2>&1 | tee "$OUT/tensorcore.txt"
