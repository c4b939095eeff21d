source .device-kit/nvidia-opencl.sh >/dev/null 2>&1
export CLGEMM_KERNEL_DIR=$PWD/kernels LD_LIBRARY_PATH=$PWD/build-device/src:$LD_LIBRARY_PATH CLGEMM_CACHE_DIR=/tmp/clgemm-cache
python3 .device-kit/cublas_sgemm.py 1024 2048 4096 2>&1 | tail -6
t() { local p=$1 n=$2; shift 2; local s=$SECONDS
  out=$(timeout 40 build-device/clgemm-run --kernel wgmma --precision $p --n $n --reps 20 --warmup 3 "$@" 2>&1)
  printf '%-7s %5s %-60s %s %s (%ss)\n' $p $n "$*" "$(grep -oE '[0-9.]+ GFLOP/s' <<<"$out")" "$(grep -oE '^device: +median [0-9.]+ ms' <<<"$out")$(grep -oE '^verify: +[a-z]+' <<<"$out")$(grep -E error <<<"$out"|head -2)" $((SECONDS-s)); }
v() { set -- $1 $2 $3 $4 $5 $6; t $1 $2 -D TILE_M=$3 -D TILE_N=$4 -D TILE_K=$5 -D STAGES=$6 ${7:+-D A_REGISTERS=$7}; }
for x in "128 128 8 4 0" "128 128 16 5 1" "128 128 16 4 1" "128 128 24 3 1" "128 128 32 2 1" "256 64 16 5 1" "128 64 32 4 1" "256 128 16 4 1" "64 128 32 4 1"; do
  set -- $x; t tf32 4096 -D TILE_M=$1 -D TILE_N=$2 -D TILE_K=$3 -D STAGES=$4 -D A_REGISTERS=$5; done
for x in "128 64 16 3 0" "128 128 16 5 1" "128 64 32 4 1" "128 128 32 2 1" "256 64 16 5 1" "64 64 32 4 1" "128 128 32 3 1"; do
  set -- $x; t 3xtf32 4096 -D TILE_M=$1 -D TILE_N=$2 -D TILE_K=$3 -D STAGES=$4 -D A_REGISTERS=$5; done
for n in 1024 2048; do for x in "128 64 16 3 0" "128 128 16 5 1" "128 64 32 4 1" "64 64 32 4 1"; do
  set -- $x; t tf32 $n -D TILE_M=$1 -D TILE_N=$2 -D TILE_K=$3 -D STAGES=$4 -D A_REGISTERS=$5; done; done
