#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: split-K on the
# tensor-core kernels and tensorcore's 3xTF32 sums of 16 deep, from one device call.
#   1. the precision suite (its split-K variants wgmma_split_k, wgmma_stored_a_split_k and
#      tensorcore_split_k included) and clgemm-run's checks of split calls on odd shapes;
#   2. tensorcore 3xTF32 with each 8 of K added into the accumulators (the kernel sources in
#      OLD_KERNELS, default devrun/kernels-sum8) against each 16 (kernels/), back to back;
#   3. auto in TF32 and 3xTF32 on thin and long-K shapes, its split against SPLIT_K = 1;
#   4. the llm suite: auto@tf32 and auto@3xtf32 (clgemm-bench) beside cuBLAS TF32 and FP32
#      (tools/device/cublas_suite.py on the same shapes) and the ratio table.
# Outputs under $OUT: precision-tests.txt, bench-SUITE.json, cublas-SUITE.json, ratios-SUITE.txt.
#   usage: tools/device/h200_tensor_split.sh [PARTS]   (default "1 2 3 4"; SHAPES for part 3,
#          MxNxK ..., SUITES for part 4, default "llm", e.g. "llm batched")
set -uo pipefail
source tools/device/environment.sh
RUN=build-device/clgemm-run
OLD_KERNELS=${OLD_KERNELS:-$PWD/devrun/kernels-sum8}
PARTS=" ${1:-1 2 3 4} "
part() { [[ $PARTS == *" $1 "* ]]; }
speed() { grep -E '^speed:' <<<"$1" | grep -oE '[0-9.]+ GFLOP/s'; }
verdict() { grep -oE '^verify: +[a-zA-Z]+' <<<"$1"; }

if part 1; then
echo "== 1. precision tests"
timeout 260 build-device/tests/clgemm-precision-tests --gtest_brief=1 >"$OUT/precision-tests.txt" 2>&1
echo "rc=$?" >>"$OUT/precision-tests.txt"
grep -E '^\[  (PASSED|FAILED) |tests ran|rc=' "$OUT/precision-tests.txt" | head -40
grep -E -A8 'Failure$' "$OUT/precision-tests.txt" | cut -c1-300 | head -60
grep -oE 'errors_k2048.*' "$OUT/precision-tests.txt" | head -20
for p in tf32 3xtf32; do
  for kernel in wgmma tensorcore; do
    for shape in "1 1 1" "17 33 300" "129 257 1000" "513 515 4099"; do
      set -- $shape
      out=$(timeout 60 $RUN --kernel $kernel --precision $p --m $1 --n $2 --k $3 --transa t \
            --reps 1 -D SPLIT_K=4 --bias col --act relu 2>&1)
      printf 'check %-7s %-10s %-14s %s %s\n' $p $kernel "$shape" "$(verdict "$out")" \
        "$(grep -oE 'split-K into [0-9]+ slices' <<<"$out")"
    done
  done
done

fi

if part 2; then
echo "== 2. tensorcore 3xTF32: sums of 8 (old) against 16 (new), 128 x 128 x 16 and 128 x 64 x 32"
for n in 1024 2048 4096; do
  for tiles in "" "-D TILE_N=64 -D TILE_K=32 -D WARP_N=32 -D STAGES=2"; do
    for dir in "$OLD_KERNELS" "$PWD/kernels"; do
      out=$(CLGEMM_KERNEL_DIR=$dir timeout 60 $RUN --kernel tensorcore --precision 3xtf32 --n $n \
            --reps 20 --warmup 3 -D SPLIT_K=1 $tiles 2>&1)
      printf '%5s %-48s %-28s %s %s\n' $n "$tiles" "${dir##*/}" "$(speed "$out")" "$(verdict "$out")"
    done
  done
done

fi

if part 3; then
echo "== 3. auto's split on tensor cores against SPLIT_K = 1"
for p in tf32 3xtf32; do
  for shape in ${SHAPES:-64x64x8192 256x256x16384 24x6144x6144 128x11008x4096 96x12288x3072 \
                512x512x8192 1024x1024x1024}; do
    set -- ${shape//x/ }
    for split in 1 0; do
      out=$(timeout 60 $RUN --kernel auto --precision $p --m $1 --n $2 --k $3 --reps 20 --warmup 3 \
            -D SPLIT_K=$split 2>&1)
      printf '%-7s %-16s SPLIT_K=%s %-18s %s %s %s\n' $p "$shape" $split "$(speed "$out")" \
        "$(verdict "$out")" "$(grep -oE '^kernel: +[a-z]+' <<<"$out")" \
        "$(grep -oE 'split-K into [0-9]+ slices' <<<"$out")"
    done
  done
done

fi

if part 4; then
for suite in ${SUITES:-llm}; do
  echo "== 4. the $suite suite beside cuBLAS"
  build-device/clgemm-bench --suite $suite --kernels auto@tf32 auto@3xtf32 --peers none \
    --json "$OUT/bench-$suite.json" >"$OUT/bench-$suite.txt" 2>&1
  tail -3 "$OUT/bench-$suite.txt"
  timeout 200 python3 tools/device/cublas_suite.py --shapes-from "$OUT/bench-$suite.json" \
    -o "$OUT/cublas-$suite.json" 2>&1 | tail -3
  python3 tools/bench/bench_ratios.py "$OUT/bench-$suite.json" "$OUT/cublas-$suite.json" 2>&1 |
    tee "$OUT/ratios-$suite.txt"
done
fi
