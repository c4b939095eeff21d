#!/usr/bin/env bash
# clgemm-blas-bench (tools/bench/blas_host_bench.c) on tiny shapes, run plainly (OpenBLAS) and
# with libclgemm_blas preloaded in mode=device: each says which library served sgemm_, prints
# one well-formed line per shape and transpose pair, within the error bound of --check; the
# trace shows the preloaded calls on the device; a bad shape exits 2; and
# tools/bench/blas_summary.py puts the two runs side by side.
# Usage: host_bench_check.sh BENCH LIBCLGEMM_BLAS SUMMARY_SCRIPT
set -uo pipefail
bench=$1
library=$2
summary=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/clgemm-blas-host-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
shapes=(64x48x40 33x1x70 1x65x31 50x20x30:0.5)
line='^[0-9]+x[0-9]+x[0-9]+,(NN|TN|NT|TT),-?[0-9.e+-]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.e+-]+,[0-9]+$'
fail() { echo "host_bench_check: FAILED: $*" >&2; exit 1; }

# Runs the bench (extra environment first, as for env), checks its lines; $1 names the run.
check_run() {
  local name=$1; shift
  env "$@" "$bench" --check --reps 2 --transposes NN,TN "${shapes[@]}" >"$work/$name.txt" \
    2>"$work/$name.err" || { cat "$work/$name.txt" "$work/$name.err"; fail "$name: exit status $?"; }
  cat "$work/$name.txt"
  local rows
  rows=$(grep -cE "$line" "$work/$name.txt")
  ((rows == ${#shapes[@]} * 2)) || fail "$name: $rows well-formed lines, expected $((${#shapes[@]} * 2))"
  grep -q '^shape,trans,beta,first_ms,best_ms,median_ms,gflops,max_error,calls$' "$work/$name.txt" ||
    fail "$name: no header line"
  grep -q '^50x20x30,TN,0.5,' "$work/$name.txt" || fail "$name: the beta shape is missing"
}

check_run openblas
grep -q '^# clgemm-blas-bench: sgemm_ from .*libopenblas' "$work/openblas.txt" ||
  fail "plain run: sgemm_ not from OpenBLAS"
check_run preloaded LD_PRELOAD="$library" CLGEMM_BLAS_MODE=device CLGEMM_BLAS_TRACE=1
grep -q "^# clgemm-blas-bench: sgemm_ from $library" "$work/preloaded.txt" ||
  fail "preloaded run: sgemm_ not from $library"
grep -q 'sgemm_ TN m=33 n=1 k=70: device (mode=device)' "$work/preloaded.err" ||
  { cat "$work/preloaded.err"; fail "preloaded run: the trace does not show the device"; }
"$bench" 64x48 >/dev/null 2>&1
status=$?
((status == 2)) || fail "a bad shape exited $status, expected 2"
python3 "$summary" openblas="$work/openblas.txt" device="$work/preloaded.txt" >"$work/summary.md" ||
  fail "blas_summary.py: exit status $?"
cat "$work/summary.md"
grep -qE '^\| 33x1x70 TN \| [0-9.]+ \| [0-9.]+ \|' "$work/summary.md" ||
  fail "blas_summary.py: no row for 33x1x70 TN"
echo "host_bench_check: OK"
