#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: products of few
# rows (1-512) in TF32 and 3xTF32, each kernel that can serve them, from one device call.
#   1. gemv's reduced precisions: the precision suite's gemv tests and the choice tests;
#   2. per shape and precision, clgemm-run (per call, median of 20): auto, wgmma as auto took
#      it before (its large entry), tensorcore on three tile sets (the tuned medium one, and
#      32- and 64-row tiles), blocked on the FP32 entries' thin and skinny tiles computing the
#      precision with ordinary FMAs, gemv on its GPU entry (float8 blocks) and on float4
#      blocks (which spill nothing in 3xTF32 offline), and auto in FP32 for reference; then
#      3xTF32 on the four shapes whose entry moved with the choice's distance (size plus
#      sides), before and after;
#   3. clgemm-bench's auto in the three precisions over a suite (SUITE, default llm) beside
#      cuBLAS TF32 and FP32 (tools/device/cublas_suite.py) and the ratio table.
# Outputs under $OUT: tests.txt, variants.txt, bench-SUITE.json, cublas-SUITE.json,
# ratios-SUITE.txt.
#   usage: tools/device/h200_thin_reduced.sh [PARTS]   (default "1 2 3"; SHAPES: MxNxK ... for
#          part 2, VARIANTS: names of part 2's variants to run, default all)
set -uo pipefail
source tools/device/environment.sh
RUN=build-device/clgemm-run
PARTS=" ${1:-1 2 3} "
SHAPES=${SHAPES:-1x6144x4096 8x4096x4096 16x28672x4096 24x6144x6144 32x4096x14336 64x4096x4096 \
  96x12288x3072 128x6144x4096 128x11008x4096 256x4096x4096 512x4096x4096}
SUITE=${SUITE:-llm}
part() { [[ $PARTS == *" $1 "* ]]; }
speed() { grep -E '^speed:' <<<"$1" | grep -oE '[0-9.]+ GFLOP/s'; }
verdict() { grep -oE '^verify: +[a-zA-Z]+' <<<"$1"; }

if part 1; then
echo "== 1. gemv in the reduced precisions, and the choice"
timeout 120 build-device/tests/clgemm-precision-tests --gtest_brief=1 --gtest_filter='*gemv*' \
  >"$OUT/tests.txt" 2>&1
echo "rc=$?" >>"$OUT/tests.txt"
timeout 100 build-device/tests/clgemm-tests --gtest_brief=1 --gtest_filter='Tuning.*' \
  >>"$OUT/tests.txt" 2>&1
echo "rc=$?" >>"$OUT/tests.txt"
grep -E '^\[  (PASSED|FAILED) |tests ran|rc=' "$OUT/tests.txt"
grep -E -A8 'Failure$' "$OUT/tests.txt" | cut -c1-300 | head -40
fi

if part 2; then
echo "== 2. each kernel on few rows, per call (GFLOP/s)"
tc_medium="-D TILE_M=128 -D TILE_N=64 -D TILE_K=32 -D WARP_M=64 -D WARP_N=32 -D STAGES=2"
tc_64="-D TILE_M=64 -D TILE_N=128 -D TILE_K=16 -D WARP_M=32 -D WARP_N=64 -D STAGES=3"
tc_32="-D TILE_M=32 -D TILE_N=128 -D TILE_K=32 -D WARP_M=16 -D WARP_N=64 -D STAGES=2"
wg_large="-D TILE_M=128 -D TILE_N=128 -D TILE_K=24 -D STAGES=3 -D A_REGISTERS=1"
bl_thin="-D TILE_M=32 -D TILE_N=128 -D TILE_K=32 -D ITEM_M=8 -D ITEM_N=4 -D VEC=4 -D UNROLL=1 -D WAVE_UNITS=264"
bl_skinny="-D TILE_M=64 -D TILE_N=128 -D TILE_K=16 -D ITEM_M=8 -D ITEM_N=4 -D VEC=4 -D UNROLL=1"
gv_entry="-D SMALL=8 -D LANES=4 -D SPLIT=64 -D VEC=8 -D AHEAD=2 -D UNROLL=1"
gv_vec4="-D SMALL=8 -D LANES=8 -D SPLIT=32 -D VEC=4 -D AHEAD=2 -D UNROLL=1"
variants=("auto|" "wgmma|$wg_large" "tensorcore|$tc_medium" "tensorcore|$tc_64" \
  "tensorcore|$tc_32" "blocked|$bl_thin" "blocked|$bl_skinny" "gemv|$gv_entry" "gemv|$gv_vec4")
names=(auto wgmma-large tc-medium tc-64x128 tc-32x128 blocked-thin blocked-skinny gemv-8x8 \
  gemv-4x4)
for shape in $SHAPES; do
  set -- ${shape//x/ }
  out=$(timeout 60 $RUN --kernel auto --m $1 --n $2 --k $3 --reps 20 --warmup 3 2>&1)
  printf '%-16s %-7s %-15s %-18s %s %s\n' $shape fp32 auto "$(speed "$out")" "$(verdict "$out")" \
    "$(grep -oE '^kernel: +[a-z_]+' <<<"$out")"
  for p in tf32 3xtf32; do
    for i in "${!variants[@]}"; do
      [[ -z ${VARIANTS:-} || " $VARIANTS " == *" ${names[$i]} "* ]] || continue
      kernel=${variants[$i]%%|*} options=${variants[$i]#*|}
      out=$(timeout 60 $RUN --kernel $kernel --precision $p --m $1 --n $2 --k $3 --reps 20 \
            --warmup 3 $options 2>&1)
      printf '%-16s %-7s %-15s %-18s %s %s %s\n' $shape $p ${names[$i]} "$(speed "$out")" \
        "$(verdict "$out")" "$(grep -oE '^kernel: +[a-z_]+' <<<"$out")" \
        "$(grep -oE 'split-K into [0-9]+ slices|error.*' <<<"$out" | head -1 | cut -c1-120)"
    done
  done
done 2>&1 | tee "$OUT/variants.txt"
echo "== 2b. 3xTF32 where the entry auto takes moved: auto (large tiles) against the medium entry"
wg_medium3="-D TILE_M=64 -D TILE_N=64 -D TILE_K=32 -D STAGES=2 -D A_REGISTERS=0 -D LAST_WARP_REFILLS=0"
for shape in 128x11008x4096 64x8192x8192 8192x64x8192 8192x8192x64; do
  set -- ${shape//x/ }
  for variant in "auto|" "wgmma|$wg_medium3"; do
    kernel=${variant%%|*} options=${variant#*|}
    out=$(timeout 60 $RUN --kernel $kernel --precision 3xtf32 --m $1 --n $2 --k $3 --reps 20 \
          --warmup 3 $options 2>&1)
    printf '%-16s 3xtf32  %-10s %-18s %s %s\n' $shape $kernel "$(speed "$out")" "$(verdict "$out")" \
      "$(grep -oE 'split-K into [0-9]+ slices' <<<"$out")"
  done
done 2>&1 | tee -a "$OUT/variants.txt"
fi

if part 3; then
echo "== 3. auto in the three precisions over the $SUITE suite beside cuBLAS"
build-device/clgemm-bench --suite $SUITE --kernels auto auto@tf32 auto@3xtf32 --peers none \
  --min-time ${MIN_TIME:-0.15} --json "$OUT/bench-$SUITE.json" >"$OUT/bench-$SUITE.txt" 2>&1
tail -3 "$OUT/bench-$SUITE.txt"
timeout 200 python3 tools/device/cublas_suite.py --shapes-from "$OUT/bench-$SUITE.json" \
  --min-time ${MIN_TIME:-0.15} -o "$OUT/cublas-$SUITE.json" 2>&1 | tail -3
python3 tools/bench/bench_ratios.py "$OUT/bench-$SUITE.json" "$OUT/cublas-$SUITE.json" 2>&1 |
  tee "$OUT/ratios-$SUITE.txt"
fi
