#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ (configured with -DCLGEMM_BENCH_CBLAS=OFF)
# and .device-kit carried: the host-memory engine against the link. Prints the link's
# bandwidth (pageable and pinned, both ways, 1 to 256 MiB), then host-array times for the
# shapes below (column-major, as BLAS calls them, best of 5) beside the device-resident call
# and the link's bound. Targets (issue 28): 4096^3 and larger at 2x NVBLAS or better (NVBLAS
# 23.2 ms at 4096^3, 111 ms at 8192^3), 8192^3 at >= 0.7x of the device-resident time.
# With `variants`, the engine's knobs instead: host copy threads and forced MxN tiles (K whole)
# on 4096^3, 8192^3 and 4096x4096x256. Outputs in $OUT: link.txt or variants.txt.
#   tools/device/host_engine.sh             # carry: [".device-kit", "build-device"]
#   tools/device/host_engine.sh variants
set -uo pipefail
source tools/device/environment.sh
bench=build-device/clgemm-bench
if [ "${1:-}" != variants ]; then
  shapes=1024x1024x1024,4096x4096x4096,8192x8192x8192,4096x4096x256,64x8192x8192
  timeout 330 $bench --link --link-sizes 1,16,64,256 --shapes $shapes --column-major --repeat 5 \
    2>&1 | tee "$OUT/link.txt"
  # The largest separately, so that a timeout there keeps the rest.
  timeout 240 $bench --host --shapes 16384x16384x16384 --column-major --repeat 3 2>&1 |
    tail -2 | tee -a "$OUT/link.txt"
  exit 0
fi
for threads in 4 8 16; do
  for tile in 0 1024x4096 2048x2048; do
    echo "== CLGEMM_HOST_THREADS=$threads CLGEMM_HOST_TILE=$tile"
    if [ "$tile" = 0 ]; then unset CLGEMM_HOST_TILE; else export CLGEMM_HOST_TILE=$tile; fi
    CLGEMM_HOST_THREADS=$threads timeout 60 $bench --host --column-major --repeat 3 \
      --shapes 4096x4096x4096,8192x8192x8192,4096x4096x256 2>&1 | tail -3
  done
done 2>&1 | tee "$OUT/variants.txt"
