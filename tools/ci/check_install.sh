#!/usr/bin/env bash
# Checks that an installed clgemm is usable on its own: installs the build tree into a
# temporary prefix, moves that prefix elsewhere (so nothing may depend on where it was
# installed), then builds and runs the two example consumers against it, the C++ one through
# find_package(clgemm) and the C one through pkg-config (with CMake and with a bare cc), and
# runs the installed clgemm-run, and links a CBLAS program to the drop-in BLAS libclgemm_blas
# through pkg-config clgemm_blas, ahead of OpenBLAS. CLGEMM_KERNEL_DIR and LD_LIBRARY_PATH are unset throughout.
# Any failure stops the script with a message and a non-zero exit status.
# Usage: tools/ci/check_install.sh [build directory, default build]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
build=$(cd "${1:-build}" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/clgemm-check-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'echo "check_install: FAILED (line $LINENO: $BASH_COMMAND)" >&2' ERR
unset CLGEMM_KERNEL_DIR LD_LIBRARY_PATH
step() { echo "check_install: $*"; }
# Runs a command with its output in a log, shown only when the command fails.
logged() {
  local log=$1
  shift
  "$@" >"$log" 2>&1 || { cat "$log" >&2; echo "check_install: this failed: $*" >&2; return 1; }
}

step "installing $build into a temporary prefix, then moving the prefix"
logged "$work/install.log" cmake --install "$build" --prefix "$work/staged"
mv "$work/staged" "$work/prefix"
prefix=$work/prefix

pc=$(find "$prefix" -name clgemm.pc -path '*/pkgconfig/*')
config=$(find "$prefix" -name clgemmConfig.cmake)
libdir=$(dirname "$(dirname "$pc")")
for f in "$libdir/libclgemm.so" "$libdir/libclgemm_blas.so" "$libdir/pkgconfig/clgemm_blas.pc" \
  "$prefix/include/clgemm/clgemm.h" \
  "$prefix/include/clgemm/clgemm.hpp" "$prefix/share/clgemm/kernels/tile.cl" \
  "$(dirname "$config")/clgemmConfigVersion.cmake" "$prefix/bin/clgemm-run"; do
  [ -e "$f" ] || { echo "check_install: missing from the installation: $f" >&2; exit 1; }
done
step "installed: ${libdir#"$prefix"/}/libclgemm.so, $(find "$prefix/share/clgemm/kernels" -name '*.cl' | wc -l) kernels, ${config#"$prefix"/}, ${pc#"$prefix"/}"

step "installed clgemm-run (RUNPATH $(readelf -d "$prefix/bin/clgemm-run" | sed -n 's/.*R.*PATH.*\[\(.*\)\]/\1/p'))"
"$prefix/bin/clgemm-run" --kernel tile --n 64 --reps 1 | sed 's/^/  /'

step "C++ consumer: find_package(clgemm) with CMAKE_PREFIX_PATH"
logged "$work/cpp.log" cmake -S "$root/examples/consumer-cpp" -B "$work/cpp" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
logged "$work/cpp-build.log" cmake --build "$work/cpp"
"$work/cpp/consumer-cpp"

export PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
step "C consumer: pkg-config clgemm $(pkg-config --modversion clgemm) through CMake"
logged "$work/c.log" cmake -S "$root/examples/consumer-c" -B "$work/c" -DCMAKE_BUILD_TYPE=Release
logged "$work/c-build.log" cmake --build "$work/c"
"$work/c/consumer-c"

step "C consumer: bare cc -std=c99 with pkg-config --cflags --libs clgemm"
# shellcheck disable=SC2046  # the flags are meant to split into words
cc -std=c99 -Wall -Wextra -o "$work/consumer-c-cc" "$root/examples/consumer-c/main.c" \
  $(pkg-config --cflags --libs clgemm) -Wl,-rpath,"$(pkg-config --variable=libdir clgemm)" -lm
"$work/consumer-c-cc" >/dev/null

step "drop-in BLAS: cc with pkg-config --libs clgemm_blas ahead of OpenBLAS, on the device"
# shellcheck disable=SC2046  # the flags are meant to split into words
cc -std=c99 -o "$work/blas-cc" -I"$root/tests" "$root/tests/blas/cblas_program.c" \
  $(pkg-config --libs clgemm_blas) -Wl,-rpath,"$(pkg-config --variable=libdir clgemm_blas)" \
  -lopenblas -lm
CLGEMM_BLAS_MODE=device CLGEMM_BLAS_TRACE=1 "$work/blas-cc" >"$work/blas.log" 2>&1 ||
  { cat "$work/blas.log" >&2; exit 1; }
grep -q "cblas_sgemm .*: device" "$work/blas.log" ||
  { cat "$work/blas.log" >&2; echo "check_install: the installed libclgemm_blas did not run on the device" >&2; exit 1; }

step "OK"
