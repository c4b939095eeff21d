#!/usr/bin/env bash
# The drop-in BLAS on this machine's OpenCL device (PoCL on the build machines) against the
# CPU BLAS it falls back to: clgemm-blas-bench run plainly (OpenBLAS on every core) and with
# libclgemm_blas preloaded in CLGEMM_BLAS_MODE=device, cpu and auto (with a calibration
# measured afresh, and a traced pass that records where auto runs each shape), then tools/bench/blas_summary.py's table: auto must be within 0.9x of the
# faster side on every shape, i.e. the CPU fallback wins wherever OpenBLAS is faster.
#   usage: [ROUNDS=3] tools/bench/pocl_blas.sh [BUILD_DIR [OUTPUT_DIR]]   (build, BUILD_DIR/pocl-blas)
set -uo pipefail
build=${1:-build}
out=${2:-$build/pocl-blas}
bench=$build/clgemm-blas-bench
library=$build/blas/libclgemm_blas.so
[[ -x $bench && -f $library ]] || { echo "pocl_blas: build $bench and $library first" >&2; exit 2; }
library=$(cd "$build/blas" && pwd)/libclgemm_blas.so
mkdir -p "$out" && out=$(cd "$out" && pwd)
rm -f "$out"/*.csv "$out"/trace-*.txt "$out/calibration.txt" "$out/load.txt"
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-$(nproc)}
export CLGEMM_BLAS_CALIBRATION_FILE=$out/calibration.txt
shapes=(64x64x64 128x128x128 256x256x256 512x512x512 1024x1024x1024 1024x1024x64 64x1024x1024
        1024x64x1024 1024x1x1024 1x1024x1024 500x300x200:0.5)
options=(--check --reps 10 --warmup 2)

# Where auto runs each shape: one traced call each (the first takes the calibration). The
# timed runs below are not traced: a trace line costs a microsecond or two per call.
CLGEMM_BLAS_MODE=auto CLGEMM_BLAS_TRACE=1 LD_PRELOAD=$library "$bench" --reps 1 --warmup 0 \
  "${shapes[@]}" > /dev/null 2> "$out/trace-auto.txt"
echo "auto, traced: rc=$?"
# Rounds, each running every library and mode once, in an order that turns each round, so
# that a busy spell of this shared machine does not fall on one of them alone; the summary
# takes each one's fastest round. The load average is kept beside the outputs.
runs=(openblas device cpu auto)
uptime > "$out/load.txt"
for round in $(seq "${ROUNDS:-5}"); do
  for i in "${!runs[@]}"; do
    run=${runs[(i + round) % ${#runs[@]}]}
    if [[ $run == openblas ]]; then
      "$bench" "${options[@]}" "${shapes[@]}" >> "$out/openblas.csv"
    else
      CLGEMM_BLAS_MODE=$run LD_PRELOAD=$library "$bench" "${options[@]}" "${shapes[@]}" \
        >> "$out/$run.csv"
    fi
    echo "round $round: $run rc=$?"
  done
done
uptime >> "$out/load.txt"
python3 tools/bench/blas_summary.py --out "$out/blas-summary.md" --trace "$out/trace-auto.txt" \
  openblas="$out/openblas.csv" auto="$out/auto.csv" device="$out/device.csv" cpu="$out/cpu.csv"
