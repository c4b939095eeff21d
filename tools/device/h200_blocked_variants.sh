#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried (and build-old/,
# when it exists): which of blocked's batch and epilogue features costs the time it lost at
# 768-1280 (docs/PERFORMANCE.md, "gemv reworked, and the suite again"). It times blocked with
# the skinny entry's 64 x 128 tiles, and the large entry's 128 x 256 at 4096, from copies of
# kernels/ with one feature taken out each (the same host code and kernel arguments):
#   V0 as shipped; V1 no product table (strides only); V2 one K slice, no division;
#   V3 V1 + V2 + K straight from its argument; V4 V3 + the plain store, no epilogue call;
# and, when build-old/ holds an older build (clgemm-run, src/libclgemm.so*, kernels/), that
# build beside them. Each line: the call's median and the kernel's alone (profiling events).
# Output in $OUT/blocked-variants.txt. To make build-old from commit 2daa7a7 (before batches):
#   git worktree add /tmp/old 2daa7a7 && cmake -S /tmp/old -B /tmp/old/build \
#     -DCLGEMM_BENCH_CBLAS=OFF -DBUILD_TESTING=OFF && cmake --build /tmp/old/build -j --target clgemm-run
#   mkdir -p build-old/src && cp /tmp/old/build/clgemm-run build-old/ &&
#     cp -a /tmp/old/build/src/libclgemm.so* build-old/src/ && cp -r /tmp/old/kernels build-old/
set -uo pipefail
source .device-kit/nvidia-opencl.sh
export LC_ALL=C
V=/tmp/blocked-variants
rm -rf $V && mkdir -p $V
for v in V0 V1 V2 V3 V4; do cp -r kernels $V/$v; done
python3 - "$V" <<'EOF'
import sys
root = sys.argv[1]
def edit(v, f, old, new):
    p = f'{root}/{v}/{f}'
    s = open(p).read()
    if old not in s:
        sys.exit(f'{v}: {f} no longer holds {old!r}')
    open(p, 'w').write(s.replace(old, new))
no_table = ('gemm_common.clh', '  if (products) return products[products_offset + p];\n', '')
one_slice = ('blocked.cl', 'const int slices = max(1, (K_arg + k_slice - 1) / k_slice);',
             'const int slices = 1;')
k_arg = ('gemm_common.clh', 'const int K = alpha == 0.0f ? 0 : K_arg;', 'const int K = K_arg;')
plain_store = ('blocked.cl', '''      if (slices > 1)
        C[index] = acc[i][j];
      else
        store_c(C, index, row, col, acc[i][j], alpha, beta, epilogue);''',
               '      C[index] = (beta == 0.0f) ? alpha * acc[i][j] : '
               'mad(beta, C[index], alpha * acc[i][j]);')
for v, edits in {'V1': [no_table], 'V2': [one_slice], 'V3': [no_table, one_slice, k_arg],
                 'V4': [no_table, one_slice, k_arg, plain_store]}.items():
    for e in edits:
        edit(v, *e)
EOF
SKINNY="-D ITEM_M=8 -D ITEM_N=4 -D TILE_K=16 -D TILE_M=64 -D TILE_N=128 -D UNROLL=1 -D VEC=4"
LARGE="-D ITEM_M=16 -D ITEM_N=8 -D TILE_K=8 -D TILE_M=128 -D TILE_N=256 -D UNROLL=1 -D VEC=4"
one() {  # label build-dir kernel-dir n options...
  local label=$1 build=$2 kernels=$3 n=$4; shift 4
  local out
  out=$(CLGEMM_CACHE_DIR=/tmp/cache-$label CLGEMM_KERNEL_DIR=$kernels \
        LD_LIBRARY_PATH=$PWD/$build/src timeout 60 $build/clgemm-run --n "$n" --reps 40 \
        --warmup 5 --kernel blocked "$@" 2>&1)
  printf '%5s %-4s %s %s\n' "$n" "$label" \
    "$(grep -E '^(time|device):' <<<"$out" | grep -oE 'median [0-9.]+ ms' | tr '\n' ' ')" \
    "$(grep -E '^verify|error' <<<"$out" | cut -c1-60)"
}
{
for n in 768 1024 1280; do
  [[ -x build-old/clgemm-run ]] && one old build-old $PWD/build-old/kernels $n $SKINNY
  for v in V0 V1 V2 V3 V4; do one $v build-device $V/$v $n $SKINNY; done
done
[[ -x build-old/clgemm-run ]] && one old build-old $PWD/build-old/kernels 4096 $LARGE
for v in V0 V4; do one $v build-device $V/$v 4096 $LARGE; done
} 2>&1 | tee "$OUT/blocked-variants.txt"
