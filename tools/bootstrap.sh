#!/usr/bin/env bash
# Installs the Debian packages clgemm needs (only the missing ones, running 'apt-get update'
# first when the package lists are empty or stale), makes the Python environment .venv/ with
# the packages from PyPI that the Python tests and benchmark use, then configures and builds
# into build/. Safe to run again: installed packages are skipped and the build is incremental.
# Usage: tools/bootstrap.sh [extra cmake configure arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config
  ccache clang-format        # the builds' compiler cache; the format check (tools/ci/check_format.sh)
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers clinfo
  pocl-opencl-icd            # OpenCL on the CPU, the default device where no GPU exists
  oclgrind                   # OpenCL device simulator for the kernel checks (ctest -L oclgrind)
  libgtest-dev libcli11-dev nlohmann-json3-dev
  libclblast-dev libopenblas-dev   # the peers clgemm-bench compares against
  clang libclang-rt-14-dev   # the sanitized build: sanitizer runtimes and libFuzzer (tools/ci/fuzz.sh)
  python3-matplotlib         # tools/bench/plot_bench.py, the bench's chart (ctest cli.bench_chart)
  python3-dev python3-venv   # the Python package: `pip install .` in .venv (docs/PYTHON.md)
  gfortran python3-numpy     # libclgemm_blas's tests: a Fortran program on sgemm_, NumPy preloaded
  libscalapack-openmpi-dev libopenmpi-dev openmpi-bin  # libclgemm_blas's test of ScaLAPACK's PSGEMM on 4 MPI ranks
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "bootstrap: run as root to install packages" >&2; exit 1; }
    sudo=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  # Package lists can be missing on a fresh machine, or too old to know a package.
  if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"; then
    $sudo apt-get update -q
    $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi

# The Python environment for `pip install .` and tools/ci/check_python.sh. pip fetches what the
# build itself needs (scikit-build-core, nanobind); the tests need numpy, pytest and pyopencl.
# pyclblast, which only the benchmark (tools/bench/bench_python.py) compares with, is built from
# source against libclblast-dev: where that fails, the benchmark compares with NumPy alone.
[ -x .venv/bin/python ] || /usr/bin/python3 -m venv .venv
.venv/bin/python -m pip install -q numpy pytest pyopencl
.venv/bin/python -m pip install -q pyclblast ||
  echo "bootstrap: pyclblast did not install; tools/bench/bench_python.py will compare with NumPy only"

# ccache, where installed, makes rebuilds and the other builds of the same sources cheap;
# paths are hashed relative to the clone, so another clone of the repository shares it.
if command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache}
  export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros}
  export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j "$(nproc)"
