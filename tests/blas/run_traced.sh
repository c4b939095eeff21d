#!/usr/bin/env bash
# Runs a program with libclgemm_blas's trace on (CLGEMM_BLAS_TRACE=1) and checks both that it
# succeeds and that its output (stdout and stderr) matches every expected pattern, e.g. that
# the trace says the device ran a call. With --preload, the library is LD_PRELOADed into that
# program only (not into this script's own tools).
# Usage: run_traced.sh [--preload LIBRARY] [--expect EXTENDED-REGEX]... -- PROGRAM [ARGS...]
set -uo pipefail
preload=""
expects=()
while (($#)); do
  case $1 in
    --preload) preload=$2; shift 2 ;;
    --expect) expects+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "run_traced: unknown option $1" >&2; exit 2 ;;
  esac
done
(($#)) || { echo "run_traced: no program given" >&2; exit 2; }
output=$(mktemp "${TMPDIR:-/tmp}/clgemm-blas-traced.XXXXXX")
trap 'rm -f "$output"' EXIT
if [ -n "$preload" ]; then
  CLGEMM_BLAS_TRACE=1 LD_PRELOAD="$preload${LD_PRELOAD:+:$LD_PRELOAD}" "$@" >"$output" 2>&1
else
  CLGEMM_BLAS_TRACE=1 "$@" >"$output" 2>&1
fi
status=$?
cat "$output"
if ((status != 0)); then
  echo "run_traced: FAILED: $* exited with status $status" >&2
  exit 1
fi
for pattern in "${expects[@]}"; do
  if ! grep -Eq -- "$pattern" "$output"; then
    echo "run_traced: FAILED: nothing in the output matches: $pattern" >&2
    exit 1
  fi
done
echo "run_traced: OK"
