#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: the time to the
# first result on a cold cache. Step `warm`: clgemm-run --warm-cache of auto's FP32 set into an
# empty cache, with the driver's own cache off (CUDA_CACHE_DISABLE=1): every program's line,
# the summary ($OUT/warm_cache.txt). Step `cold`: clgemm-run --cold --n 1024 (an empty cache of
# its own: the first call's compile and compute apart, then auto's set warmed again and a new
# process's first call; $OUT/cold_start.txt). Each step may take minutes (auto's set is a few
# hundred programs at 0.3-1.2 s each): run them as two device calls.
#   usage: tools/device/h200_cold_start.sh warm|cold
set -uo pipefail
source tools/device/environment.sh
case "${1:-}" in
  warm)
    rm -rf /tmp/clgemm-warm-cache
    CLGEMM_CACHE_DIR=/tmp/clgemm-warm-cache CUDA_CACHE_DISABLE=1 timeout 570 \
      build-device/clgemm-run --warm-cache 2>&1 | tee "$OUT/warm_cache.txt" | tail -3 ;;
  cold)
    timeout 570 build-device/clgemm-run --cold --n 1024 2>&1 | tee "$OUT/cold_start.txt" ;;
  *) echo "usage: $0 warm|cold" >&2; exit 2 ;;
esac
