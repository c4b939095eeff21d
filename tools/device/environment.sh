# Sourced from the project root by the device scripts (tools/device/*.sh): NVIDIA's OpenCL
# driver registered through the device kit (.device-kit, carried with the call), the kernels of
# this tree and the library of build-device/, the program cache in /tmp (fresh on each machine),
# unbuffered Python, and OUT: the device tool's output folder, /tmp where none is given.
source .device-kit/nvidia-opencl.sh >/dev/null 2>&1
export CLGEMM_KERNEL_DIR=$PWD/kernels LD_LIBRARY_PATH=$PWD/build-device/src:${LD_LIBRARY_PATH:-}
export CLGEMM_CACHE_DIR=${CLGEMM_CACHE_DIR:-/tmp/clgemm-cache} PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp}
