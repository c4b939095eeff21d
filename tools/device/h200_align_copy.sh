#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: whether `auto`'s
# aligned copies of unaligned operands (ALIGN_COPY=1, src/plan/aligned_copy.hpp) pay on odd
# sizes, against element-by-element loads (ALIGN_COPY=0), twice each, alternating. COPIES=2
# copies every unaligned operand (ALIGN_COPY=2) instead of as `auto`'s rule has it (1).
# clgemm-run's median of 20 enqueue + finish calls, unverified. Output: $OUT/align-copy.txt.
set -uo pipefail
source tools/device/environment.sh
median() {  # n align_copy
  timeout 30 build-device/clgemm-run --kernel auto --n "$1" -D ALIGN_COPY="$2" --reps 20 \
    --warmup 3 --no-verify 2>&1 | grep -oE 'median [0-9.]+ ms' | head -1 | grep -oE '[0-9.]+'
}
{
copies=${COPIES:-1}
echo "n ALIGN_COPY=$copies ALIGN_COPY=0 ALIGN_COPY=$copies ALIGN_COPY=0 (ms per call)"
for n in ${SIZES:-767 1023 1025 1535 2047 3071 4095 4097 6143}; do
  echo "$n $(median $n $copies) $(median $n 0) $(median $n $copies) $(median $n 0)"
done
echo "== $SECONDS s"
} 2>&1 | tee "$OUT/align-copy.txt"
