#!/usr/bin/env bash
# The crossover in mode=auto: the first run of a program measures the figures and keeps them in
# the calibration file, a second run reads them back instead of measuring, and both choose by
# the predicted times (the trace says "predicted ..."); a bad setting value is reported once,
# naming the variable, and the default is used.
# Usage: calibration_check.sh RUN_TRACED PROGRAM
set -euo pipefail
run_traced=$1
program=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/clgemm-blas-calibration.XXXXXX")
trap 'rm -rf "$work"' EXIT
export CLGEMM_BLAS_MODE=auto CLGEMM_BLAS_CALIBRATION_FILE=$work/calibration.txt
"$run_traced" --expect "calibrated in .* kept in $work/calibration.txt" \
  --expect "cblas_sgemm .*: (device|cpu) \(predicted " -- "$program"
grep -q '^clgemm-blas-calibration 1$' "$work/calibration.txt"
"$run_traced" --expect "calibration read from $work/calibration.txt" \
  --expect "cblas_sgemm .*: (device|cpu) \(predicted " -- "$program"
CLGEMM_BLAS_MIN_FLOPS=lots "$run_traced" \
  --expect 'CLGEMM_BLAS_MIN_FLOPS="lots" is not a number' -- "$program"
CLGEMM_BLAS_MIN_FLOPS=1e15 "$run_traced" --expect "cpu \(.* flops < min_flops 1e\+15\)" -- "$program"
echo "calibration_check: OK"
