#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: wgmma reading A
# as the caller stores it (A_REGISTERS 2, only B packed) against A packed in the fragment
# order (A_REGISTERS 1), on the tuned entries' tiles (TF32 128 x 128 x 24 in 3 stages, 3xTF32
# 128 x 64 x 32 in 4 with the last warp refilling), whole calls (packs included), each size's
# pair run back to back; cuBLAS FP32 and TF32 first, in the same call. Then the wgmma tests of
# the precision suite (A_REGISTERS 2 included) and clgemm-run's checks on odd shapes.
#   usage: tools/device/h200_wgmma_stored_a.sh [SIZES]   (default "1024 2048 4096 4095")
set -uo pipefail
source tools/device/environment.sh
SIZES=${1:-1024 2048 4096 4095}
RUN=build-device/clgemm-run
echo "== cuBLAS"
timeout 120 python3 .device-kit/cublas_sgemm.py $SIZES 2>&1 | tail -12
t() {  # precision n [clgemm-run options]
  local p=$1 n=$2; shift 2
  local out
  out=$(timeout 60 $RUN --kernel wgmma --precision "$p" --n "$n" --reps 20 --warmup 3 "$@" 2>&1)
  printf '%-7s %5s %-86s %s | %s%s\n' "$p" "$n" "$*" "$(grep -oE '[0-9.]+ GFLOP/s' <<<"$out")" \
    "$(grep -oE '^verify: +[a-zA-Z]+' <<<"$out")" "$(grep -E 'error \(' <<<"$out" | head -2)"
}
TF32="-D TILE_M=128 -D TILE_N=128 -D TILE_K=24 -D STAGES=3 -D LAST_WARP_REFILLS=0"
X3="-D TILE_M=128 -D TILE_N=64 -D TILE_K=32 -D STAGES=4 -D LAST_WARP_REFILLS=1"
echo "== speed: A packed (A_REGISTERS=1) against A as stored (A_REGISTERS=2)"
for n in $SIZES; do
  for a in 1 2; do t tf32 "$n" $TF32 -D A_REGISTERS=$a; done
  for a in 1 2; do t 3xtf32 "$n" $X3 -D A_REGISTERS=$a; done
done
for a in 1 2; do t tf32 4096 --transa t $TF32 -D A_REGISTERS=$a; done
for a in 1 2; do t tf32 4096 ${TF32/LAST_WARP_REFILLS=0/LAST_WARP_REFILLS=1} -D A_REGISTERS=$a; done
echo "== tests"
timeout 300 build-device/tests/clgemm-precision-tests \
  --gtest_filter='*wgmma*:WgmmaStoredA.*' >"${OUT:-/tmp}/wgmma-tests.txt" 2>&1
grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests ran' "${OUT:-/tmp}/wgmma-tests.txt" | head -40
grep -E -A6 'Failure$' "${OUT:-/tmp}/wgmma-tests.txt" | cut -c1-300 | head -60
echo "== checks"
for p in tf32 3xtf32; do
  for shape in "1 1 1" "17 33 9" "129 257 63" "1000 1000 1000" "513 515 517"; do
    for tr in "n n" "t n" "n t" "t t"; do
      set -- $shape; read -r ta tb <<<"$tr"
      out=$(timeout 60 $RUN --kernel wgmma --precision $p --m $1 --n $2 --k $3 --transa $ta \
            --transb $tb --reps 1 -D A_REGISTERS=2 -D TILE_N=128 -D TILE_K=32 -D STAGES=2 2>&1)
      printf '%-7s %-15s %s %s\n' $p "$shape" "$tr" \
        "$(grep -oE '^verify: .*' <<<"$out" | cut -c1-60)$(grep -E 'error \(' <<<"$out" | head -2)"
    done
  done
done
