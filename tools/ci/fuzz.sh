#!/usr/bin/env bash
# Builds the libFuzzer targets (CMake preset "fuzz": clang, ASan + UBSan, library instrumented
# for coverage, in build-fuzz/; only the fuzz targets and the library) and runs each for a
# bounded time from a copy of its corpus in tests/fuzz/corpus/<target>/ (the repository is not
# modified). Prints one line per target
# (executions, coverage) and exits non-zero when any target found something: a crash, a
# sanitizer report, a leak, a timeout, an exceeded memory limit or a failed oracle. The input
# of a finding is kept in build-fuzz/fuzz-findings/<target>/ and printed in hex; replay it with
#   build-fuzz/fuzz/<target> <file>
# Usage: tools/ci/fuzz.sh [seconds per target]
# By default fuzz_c_api runs 90 s while the other three run one after the other beside it
# (15 + 20 + 15 s): about 95 s in all on two cores. fuzz_c_api spends much of its time in PoCL
# compiling its kernels, on one core, and starts from a cold PoCL cache on a fresh clone.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=$root/build-fuzz

# Targets and their default time; the first runs in the background beside the others.
targets=(fuzz_c_api:90 fuzz_option_parser:15 fuzz_tuning_file:20 fuzz_cache_entry:15)

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"

work=$(mktemp -d "${TMPDIR:-/tmp}/clgemm-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Nothing goes to the user's home: a HOME of our own, no clgemm binary cache, and PoCL's
# compiled kernels kept in the build directory (so later runs start warm).
export HOME=$work/home XDG_CACHE_HOME=$work/home/.cache XDG_CONFIG_HOME=$work/home/.config
mkdir -p "$HOME"
export CLGEMM_CACHE_DIR=off
export TMPDIR=$work/tmp  # fuzz_c_api's tuning file, left behind when it aborts on a finding
mkdir -p "$TMPDIR"
export POCL_CACHE_DIR=$build/pocl-cache
unset CLGEMM_TUNING_FILE CLGEMM_KERNEL_DIR CLGEMM_PLATFORM CLGEMM_DEVICE CLGEMM_HOST_COPY
# As in the test preset "sanitize" (CMakePresets.json): leak checking on, with PoCL's and
# LLVM's own leaks suppressed (tests/lsan.supp); use_sigaltstack=0 because LLVM inside PoCL
# swaps a thread's alternate signal stack, which AddressSanitizer then fails to unmap. The
# preset's use_tls=0 cannot serve here: libFuzzer checks for leaks between inputs, while the C
# API's thread-local error text and thread-exit records are alive and reachable only through
# TLS, so each became a "leak". intercept_tls_get_addr=0 instead: the runtime's __tls_get_addr
# interceptor (this clang's, as up to LLVM 16) takes a dynamic TLS block that happens to start
# 16 bytes into a page for an old glibc's block with a header, reads a garbage range from it,
# and the leak checker's tracer dies on it ("Tracer caught signal 11", an empty finding: it
# stopped fuzz_c_api twice, after PoCL had loaded libraries with TLS). Without the interceptor
# those blocks are no root, which can only add reports, never hide one.
export ASAN_OPTIONS=detect_leaks=1:use_sigaltstack=0:intercept_tls_get_addr=0:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1
export LSAN_OPTIONS=suppressions=$root/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# Runs one target from a copy of its corpus; its log and exit status go to $work. An input that
# runs 30 s is a finding (a hang): the C API target's first input compiles a kernel from source
# (no disk cache) under coverage and sanitizers, which took over 10 s on a loaded 2-core machine.
run_target() {
  local name=$1 seconds=$2
  local corpus=$work/corpus/$name findings=$build/fuzz-findings/$name
  mkdir -p "$corpus" "$findings"
  cp tests/fuzz/corpus/"$name"/* "$corpus"/
  echo "== $name: $seconds s from $(ls "$corpus" | wc -l) seeds"
  local rc=0
  (cd "$work" && "$build/fuzz/$name" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
     -print_final_stats=1 -artifact_prefix="$findings/" "$corpus") >"$work/$name.log" 2>&1 || rc=$?
  echo "$rc" >"$work/$name.rc"
}

# One line of figures for a target, from libFuzzer's status lines and final stats (some are
# absent after an early finding); on a finding also the end of its log and the input.
report() {
  local name=$1 log=$work/$1.log rc=255  # no status file: the run itself did not finish
  [ -f "$work/$name.rc" ] && rc=$(cat "$work/$name.rc")
  touch "$log"
  local seeds runs cov ft took corp extra line artifact
  seeds=$(ls tests/fuzz/corpus/"$name" | wc -l)
  mkdir -p "$work/corpus/$name"
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$( (grep -o 'cov: [0-9]*' "$log" || true) | tail -1 | cut -d' ' -f2)
  ft=$( (grep -o 'ft: [0-9]*' "$log" || true) | tail -1 | cut -d' ' -f2)
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  corp=$(ls "$work/corpus/$name" | wc -l)
  extra=$( (grep '^fuzz_c_api: [0-9]' "$log" || true) | tail -1 | sed 's/^fuzz_c_api: //')
  line="$name: ${runs:-?} executions${took:+ in $took s}, coverage ${cov:-?} edges / ${ft:-?} features, corpus $seeds -> $corp${extra:+; $extra}"
  if ((rc != 0)); then
    status=1
    artifact=$( (grep -o "Test unit written to [^ ]*" "$log" || true) | tail -1 |
               sed 's/Test unit written to //')
    echo "-- $name FAILED (exit $rc); the end of its log:"
    grep -vE '^#[0-9]+ +(NEW|REDUCE|pulse)' "$log" | tail -60 || true
    if [ -n "$artifact" ] && [ -f "$artifact" ]; then
      echo "-- the input ($artifact, $(wc -c <"$artifact") bytes), in hex:"
      od -An -tx1 -v "$artifact" | head -40 || true  # head closes the pipe on long inputs
      echo "-- replay: CLGEMM_CACHE_DIR=off ASAN_OPTIONS=$ASAN_OPTIONS LSAN_OPTIONS=$LSAN_OPTIONS" \
           "build-fuzz/fuzz/$name $artifact"
    fi
    line="$line: FINDING (exit $rc${artifact:+, input $artifact})"
  fi
  summary+=("$line")
}

status=0
summary=()
start=$SECONDS
first=${targets[0]}
run_target "${first%%:*}" "${1:-${first##*:}}" &
background=$!
for entry in "${targets[@]:1}"; do run_target "${entry%%:*}" "${1:-${entry##*:}}"; done
wait "$background" || true
for entry in "${targets[@]}"; do report "${entry%%:*}"; done

echo "== fuzzing summary ($((SECONDS - start)) s of fuzzing):"
printf '  %s\n' "${summary[@]}"
if ((status)); then
  echo "fuzz: FAILED, see the findings above" >&2
else
  echo "fuzz: no findings"
fi
exit $status
