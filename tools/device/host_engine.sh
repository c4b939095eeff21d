#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ (configured with -DCLGEMM_BENCH_CBLAS=OFF)
# and .device-kit carried: the host-memory engine against the link. Prints the link's
# bandwidth (pageable and pinned, both ways, 1 to 256 MiB), then host-array times for the
# shapes below (column-major, as BLAS calls them, best of 5) beside the device-resident call
# and the link's bound; then the same shapes with the engine's copy threads and a forced tile
# edge varied, for tuning. Targets (issue 28): 4096^3 and larger at 2x NVBLAS or better
# (NVBLAS 23.2 ms at 4096^3, 111 ms at 8192^3), 8192^3 at >= 0.7x of the device-resident time.
# Outputs in $OUT: link.txt, variants.txt.
#   tools/device/host_engine.sh             # carry: [".device-kit", "build-device"]
set -uo pipefail
source .device-kit/nvidia-opencl.sh
export CLGEMM_KERNEL_DIR=$PWD/kernels LD_LIBRARY_PATH=$PWD/build-device/src:$LD_LIBRARY_PATH
export CLGEMM_CACHE_DIR=${CLGEMM_CACHE_DIR:-/tmp/clgemm-cache}
bench=build-device/clgemm-bench
shapes=1024x1024x1024,4096x4096x4096,8192x8192x8192,16384x16384x16384,4096x4096x256,64x8192x8192
timeout 300 $bench --link --link-sizes 1,16,64,256 --shapes $shapes --column-major --repeat 5 2>&1 |
  tee "$OUT/link.txt"
# The engine's knobs: host copy threads, and the tiles (MxN, K whole; 0: its own choice).
for threads in 4 8 16; do
  for tile in 0 1024x4096 4096x2048; do
    echo "== CLGEMM_HOST_THREADS=$threads CLGEMM_HOST_TILE=$tile"
    if [ "$tile" = 0 ]; then unset CLGEMM_HOST_TILE; else export CLGEMM_HOST_TILE=$tile; fi
    CLGEMM_HOST_THREADS=$threads timeout 120 $bench --host --column-major --repeat 5 \
      --shapes 4096x4096x4096,8192x8192x8192,4096x4096x256,64x8192x8192 2>&1 | tail -5
  done
done 2>&1 | tee "$OUT/variants.txt"
