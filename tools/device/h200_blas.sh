#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: the drop-in BLAS
# (libclgemm_blas, preloaded) against NVBLAS and the CPU BLAS (the kit's OpenBLAS on every
# core), host arrays in and out, side by side in one device call, through clgemm-blas-bench
# (tools/bench/blas_host_bench.c). Steps, each under its own timeout, each writing to $OUT as
# it goes (a step that would start after BLAS_SCRIPT_SECONDS, default 420, is skipped):
#   link     clgemm-bench --link, where that build has it
#   openblas the CPU BLAS plain (16384^3 left out: about 40 s a call)
#   nvblas   NVBLAS preloaded, OpenBLAS its CPU library (the kit's nvblas.conf)
#   device   libclgemm_blas, CLGEMM_BLAS_MODE=device
#   auto     libclgemm_blas, mode=auto: one traced call per shape (where it ran; the calibration,
#            measured afresh) then the timed calls, untraced
#   cpu      libclgemm_blas, mode=cpu (16384^3 left out)
#   3xtf32   mode=device, CLGEMM_BLAS_PRECISION=3xtf32, at 4096^3 and 8192^3
#   capped   mode=device under CLGEMM_DEVICE_MEMORY_LIMIT (8192^3 under 512M, 16384^3 under 1G):
#            out of core where clgemm knows that setting
#   summary  tools/bench/blas_summary.py: $OUT/blas-summary.md
#   usage: tools/device/h200_blas.sh [step...]      (all of them by default)
# Outputs in $OUT: blas.txt (this log), RUN.csv and RUN.err per run, trace-auto.txt,
# calibration.txt, link.txt, blas-summary.md.
set -uo pipefail
source .device-kit/nvidia-opencl.sh
B=build-device
LIBRARY=$PWD/$B/blas/libclgemm_blas.so
# libclgemm beside libclgemm_blas; the kit's OpenBLAS (libopenblas.so.0, which clgemm-blas-bench
# is linked to: the image has no OpenBLAS of its own) and its libgfortran.
OPENBLAS_DIR=$(dirname "$KIT_OPENBLAS")
export LD_LIBRARY_PATH=$PWD/$B/src:$OPENBLAS_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CLGEMM_KERNEL_DIR=$PWD/kernels CLGEMM_CACHE_DIR=/tmp/clgemm-blas-cache
export CLGEMM_BLAS_CALIBRATION_FILE=$OUT/calibration.txt
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-16}
LIMIT=${BLAS_SCRIPT_SECONDS:-420}
STEPS="${*:-link openblas nvblas device auto cpu 3xtf32 capped summary}"
# BLAS_SHAPES and BLAS_BIG_SHAPES replace the lists (a dry run elsewhere); the first of the big
# ones is the one the CPU runs. Split on blanks on purpose.
# shellcheck disable=SC2206
SHAPES=(${BLAS_SHAPES:-256x256x256 512x512x512 1024x1024x1024 2048x2048x2048 4096x4096x4096
  4096x4096x256 64x8192x8192 8192x64x8192 8192x8192x64 4096x1x4096 1x4096x4096 2000x3000x1000:0.5})
# shellcheck disable=SC2206
BIG=(${BLAS_BIG_SHAPES:-8192x8192x8192 16384x16384x16384})
OPTIONS=(--check --reps 5 --warmup 1 --time-limit 4)
BIG_OPTIONS=(--check --reps 3 --warmup 1 --time-limit 3)
CPU_BIG_OPTIONS=(--check --reps 1 --warmup 0)  # 8192^3 alone, about 5 s a call on OpenBLAS

want() {
  [[ " ${STEPS} " == *" $1 "* ]] || return 1
  (( SECONDS < LIMIT )) || { echo "== $1: skipped, $SECONDS s into the script"; return 1; }
  echo "== $1 ($SECONDS s into the script)"
}
# bench FILE SECONDS [VAR=VALUE...] -- ARGUMENTS...: clgemm-blas-bench in that environment under
# a timeout; its lines appended to $OUT/FILE.csv and shown, its stderr to $OUT/FILE.err.
bench() {
  local file=$1 seconds=$2 environment=() start=$SECONDS status
  shift 2
  while [[ $1 != -- ]]; do environment+=("$1"); shift; done
  shift
  timeout "$seconds" env "${environment[@]}" "$B/clgemm-blas-bench" "$@" 2>> "$OUT/$file.err" |
    tee -a "$OUT/$file.csv"
  status=${PIPESTATUS[0]}
  echo "-- $file: rc=$status in $((SECONDS - start)) s${environment[*]:+ (${environment[*]})}"
}
PRELOAD=(LD_PRELOAD="$LIBRARY")

{
echo "clgemm-blas-bench on $(hostname), $(nproc) cores, OPENBLAS_NUM_THREADS=$OPENBLAS_NUM_THREADS"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null
echo "NVBLAS: ${KIT_NVBLAS:-not found}; OpenBLAS: $KIT_OPENBLAS"
ldd "$B/clgemm-blas-bench" | grep -E 'openblas|gfortran|not found'
ldd "$LIBRARY" | grep -E 'clgemm|OpenCL|not found'

if want link; then
  if "$B/clgemm-bench" --help 2>&1 | grep -q -- '--link'; then
    timeout 90 "$B/clgemm-bench" --link > "$OUT/link.txt" 2>&1
    echo "-- link: rc=$?"
    cat "$OUT/link.txt"
  else
    echo "this clgemm-bench has no --link: skipped" | tee "$OUT/link.txt"
  fi
fi

if want openblas; then
  bench openblas 120 -- "${OPTIONS[@]}" "${SHAPES[@]}"
  bench openblas 40 -- "${CPU_BIG_OPTIONS[@]}" "${BIG[0]}"
fi

if want nvblas; then
  if [[ -n ${KIT_NVBLAS:-} ]]; then
    NVBLAS=(NVBLAS_CONFIG_FILE="$KIT_NVBLAS_CONF" LD_PRELOAD="$KIT_NVBLAS"
            LD_LIBRARY_PATH="$KIT_NVBLAS_DIR:$LD_LIBRARY_PATH")
    bench nvblas 120 "${NVBLAS[@]}" -- "${OPTIONS[@]}" "${SHAPES[@]}"
    bench nvblas 60 "${NVBLAS[@]}" -- "${BIG_OPTIONS[@]}" "${BIG[@]}"
  else
    echo "no libnvblas found: skipped"
  fi
fi

if want device; then
  bench device 150 "${PRELOAD[@]}" CLGEMM_BLAS_MODE=device -- "${OPTIONS[@]}" "${SHAPES[@]}"
  bench device 60 "${PRELOAD[@]}" CLGEMM_BLAS_MODE=device -- "${BIG_OPTIONS[@]}" "${BIG[@]}"
fi

if want auto; then
  rm -f "$CLGEMM_BLAS_CALIBRATION_FILE"
  # One traced call per shape says where auto runs it (the first call takes the calibration);
  # the timed runs are not traced.
  timeout 90 env "${PRELOAD[@]}" CLGEMM_BLAS_MODE=auto CLGEMM_BLAS_TRACE=1 \
    "$B/clgemm-blas-bench" --reps 1 --warmup 0 "${SHAPES[@]}" "${BIG[@]}" > /dev/null \
    2> "$OUT/trace-auto.txt"
  echo "-- auto, traced: rc=$?"
  grep -E 'calibrat|: (device|cpu|host|none) ' "$OUT/trace-auto.txt"
  bench auto 150 "${PRELOAD[@]}" CLGEMM_BLAS_MODE=auto -- "${OPTIONS[@]}" "${SHAPES[@]}"
  bench auto 60 "${PRELOAD[@]}" CLGEMM_BLAS_MODE=auto -- "${BIG_OPTIONS[@]}" "${BIG[@]}"
fi

if want cpu; then
  bench cpu 120 "${PRELOAD[@]}" CLGEMM_BLAS_MODE=cpu -- "${OPTIONS[@]}" "${SHAPES[@]}"
  bench cpu 40 "${PRELOAD[@]}" CLGEMM_BLAS_MODE=cpu -- "${CPU_BIG_OPTIONS[@]}" "${BIG[0]}"
fi

if want 3xtf32; then
  bench 3xtf32 60 "${PRELOAD[@]}" CLGEMM_BLAS_MODE=device CLGEMM_BLAS_PRECISION=3xtf32 \
    CLGEMM_BLAS_TRACE=1 -- "${BIG_OPTIONS[@]}" 4096x4096x4096 8192x8192x8192
  grep -m 4 -E 'clgemm_blas' "$OUT/3xtf32.err"
fi

if want capped; then
  # Traced: a call the device could not hold falls back to the CPU, and the trace says so.
  bench capped-512M 60 "${PRELOAD[@]}" CLGEMM_BLAS_MODE=device CLGEMM_DEVICE_MEMORY_LIMIT=512M \
    CLGEMM_BLAS_TRACE=1 -- --check --reps 3 --warmup 1 --time-limit 3 8192x8192x8192
  grep -m 3 -vE ': device \(mode=device\) [0-9.]+ ms$' "$OUT/capped-512M.err"
  bench capped-1G 60 "${PRELOAD[@]}" CLGEMM_BLAS_MODE=device CLGEMM_DEVICE_MEMORY_LIMIT=1G \
    CLGEMM_BLAS_TRACE=1 -- --check --reps 2 --warmup 1 --time-limit 2 16384x16384x16384
  grep -m 3 -vE ': device \(mode=device\) [0-9.]+ ms$' "$OUT/capped-1G.err"
  grep -h -m 2 ': device' "$OUT"/capped-*.err
fi

if want summary; then
  python3 tools/bench/blas_summary.py --out "$OUT/blas-summary.md" --trace "$OUT/trace-auto.txt" \
    openblas="$OUT/openblas.csv" nvblas="$OUT/nvblas.csv" auto="$OUT/auto.csv" \
    device="$OUT/device.csv" cpu="$OUT/cpu.csv" --extra 3xtf32="$OUT/3xtf32.csv" \
    --extra "device, 512M cap=$OUT/capped-512M.csv" --extra "device, 1G cap=$OUT/capped-1G.csv"
fi
echo "== done in $SECONDS s"
} 2>&1 | tee "$OUT/blas.txt"
