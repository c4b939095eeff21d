#!/usr/bin/env bash
# Checks the Python package as a user gets it: `pip install .` into the .venv/ that
# tools/bootstrap.sh made, then, from a directory outside the repository and with
# CLGEMM_KERNEL_DIR unset (the package must find the kernels and tuning files it carries),
# imports clgemm, runs one product and runs the tests in python/tests/ with pytest.
# Any failure stops the script with a message and a non-zero exit status.
# Usage: tools/ci/check_python.sh [pytest arguments]
set -euo pipefail
check=check_python
source "$(dirname "$0")/python_checks_common.sh"

echo "check_python: pip install . (build directory build-py/)"
"$python" -m pip install "$root" >"$work/pip.log" 2>&1 ||
  { cat "$work/pip.log" >&2; echo "check_python: pip install . failed" >&2; exit 1; }

cd "$work"  # nothing of the source tree on the import path or the kernel search path
echo "check_python: import clgemm from $work"
"$python" -c '
import numpy as np, clgemm
ctx = clgemm.Context()
a = np.arange(6, dtype=np.float32).reshape(2, 3)
c = ctx.sgemm(a, a.T)
assert np.array_equal(c, a @ a.T), c
print(f"  clgemm {clgemm.__version__} on {ctx.device.name}: kernels from",
      clgemm.kernel_source_path("blocked.cl").rsplit("/", 1)[0])
'
echo "check_python: pytest python/tests"
"$python" -m pytest -q -p no:cacheprovider "$root/python/tests" "$@"
echo "check_python: OK"
