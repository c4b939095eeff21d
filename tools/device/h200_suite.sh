#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ (configured with -DCLGEMM_BENCH_CBLAS=OFF)
# and .device-kit carried: clgemm-bench's shape suite (auto and the kernels given in KERNELS,
# against the peers in PEERS, by default CLBlast, with GemmStridedBatched and GemmBatched on
# batches, and clgemm-unfused on epilogues), cuBLAS FP32 and TF32 on the same shapes in the same
# call (batches through cublasSgemmStridedBatched, epilogues through PyTorch), and the ratio
# table. Outputs in $OUT: bench.txt/json, cublas.json, ratios.txt.
#   tools/device/h200_suite.sh [SUITE [extra clgemm-bench flags...]]
#   tools/device/h200_suite.sh batched        # batches and fused epilogues
set -uo pipefail
source tools/device/environment.sh
suite=${1:-standard}
shift || true
build-device/clgemm-bench --suite "$suite" --kernels ${KERNELS:-auto} --peers ${PEERS:-clblast,clgemm-unfused} \
  --peak-gflops 64500 --bandwidth-gbs 4800 --json "$OUT/bench.json" "$@" 2>&1 | tee "$OUT/bench.txt"
python3 tools/device/cublas_suite.py --shapes-from "$OUT/bench.json" -o "$OUT/cublas.json" 2>&1 |
  tail -${CUBLAS_LINES:-16}
python3 tools/bench/bench_ratios.py "$OUT/bench.json" "$OUT/cublas.json" --bandwidth-gbs 4800 2>&1 |
  tee "$OUT/ratios.txt"
