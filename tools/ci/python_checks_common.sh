# Sourced by check_python.sh and check_wheel.sh (after `set -euo pipefail`, with $check set to
# the script's name): the repository root and the .venv/ interpreter bootstrap made, a work
# directory removed on exit, a message naming the failing line, no CLGEMM_KERNEL_DIR (the
# package must find what it carries) and the build's parallelism.
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$(pwd)
python=$root/.venv/bin/python
[ -x "$python" ] || { echo "$check: no .venv/: run tools/bootstrap.sh first" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/clgemm-$check.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'echo "$check: FAILED (line $LINENO: $BASH_COMMAND)" >&2' ERR
unset CLGEMM_KERNEL_DIR
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
