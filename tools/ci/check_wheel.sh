#!/usr/bin/env bash
# Checks the wheel as another machine of the same distribution gets it: `pip wheel .` (with
# the wheels of its dependencies, numpy, from pip's cache or index) into a wheelhouse; then,
# without the source tree:
#   - the wheel's ELF files need nothing outside the wheel but the system's OpenCL ICD loader
#     (libOpenCL.so.1) and the C/C++ runtime, find libclgemm through $ORIGIN only, and name no
#     path of this checkout (what auditwheel would repair; a linux_x86_64 wheel does not
#     vendor the ICD loader, which every OpenCL program takes from the system);
#   - it installs into a fresh virtual environment with --no-index --only-binary :all: (no
#     index, no compiler: nothing is built);
#   - from a directory outside the repository, with CLGEMM_KERNEL_DIR unset, it imports
#     clgemm from that environment (the library mapped from it), runs sgemm and matmul
#     products and checks that kernels and tuning files come from inside the installation.
# Any failure stops the script with a message and a non-zero exit status.
# Usage: tools/ci/check_wheel.sh
set -euo pipefail
check=check_wheel
source "$(dirname "$0")/python_checks_common.sh"
started=$SECONDS

echo "check_wheel: pip wheel . (build directory build-py/)"
"$python" -m pip wheel "$root" -w "$work/wheelhouse" >"$work/pip-wheel.log" 2>&1 ||
  { cat "$work/pip-wheel.log" >&2; echo "check_wheel: pip wheel . failed" >&2; exit 1; }
wheels=("$work"/wheelhouse/clgemm-*.whl)
[ -f "${wheels[0]}" ] || { echo "check_wheel: pip wheel made no clgemm wheel" >&2; exit 1; }
wheel=${wheels[0]}
echo "  $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB), $((SECONDS - started)) s"

echo "check_wheel: what the wheel's ELF files need"
mkdir "$work/unpacked"
"$python" -m zipfile -e "$wheel" "$work/unpacked"
allowed='^(libOpenCL\.so\.1|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libc\.so\.6|libm\.so\.6|ld-linux-x86-64\.so\.2|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1)$'
mapfile -t elves < <(find "$work/unpacked" -type f -name '*.so*')
[ "${#elves[@]}" -ge 2 ] || { echo "check_wheel: expected the extension and libclgemm" >&2; exit 1; }
for elf in "${elves[@]}"; do
  name=${elf#"$work/unpacked/"}
  while read -r needed; do
    if [ -e "$(dirname "$elf")/$needed" ]; then
      echo "  $name: $needed (in the wheel, beside it)"
    elif [[ $needed =~ $allowed ]]; then
      :
    else
      echo "check_wheel: $name needs $needed, which is neither in the wheel nor the system's" \
        "OpenCL loader or C/C++ runtime" >&2
      exit 1
    fi
  done < <(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  runpath=$(readelf -d "$elf" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')
  if [ -n "$runpath" ] && [ "$runpath" != '$ORIGIN' ]; then
    echo "check_wheel: $name has the run path '$runpath'; only \$ORIGIN may be there" >&2
    exit 1
  fi
  if grep -q -F "$root" "$elf"; then
    echo "check_wheel: $name names this checkout ($root)" >&2
    exit 1
  fi
done

echo "check_wheel: install into a fresh virtual environment (no index, binaries only)"
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --no-index --only-binary :all: \
  --find-links "$work/wheelhouse" clgemm >"$work/pip-install.log" 2>&1 ||
  { cat "$work/pip-install.log" >&2; echo "check_wheel: installing the wheel failed" >&2; exit 1; }

mkdir "$work/elsewhere"
cd "$work/elsewhere"  # nothing of the source tree on the import path or the kernel search path
echo "check_wheel: products from $work/elsewhere"
"$work/venv/bin/python" - "$work/venv" <<'EOF'
import os, sys
from pathlib import Path

import numpy as np

import clgemm

venv = Path(sys.argv[1]).resolve()
package = Path(clgemm.__file__).resolve().parent
assert package.is_relative_to(venv), f"clgemm imported from {package}, not from {venv}"
mapped = {line.split()[-1] for line in open("/proc/self/maps") if "libclgemm" in line}
assert mapped and all(Path(p).resolve().parent == package for p in mapped), mapped
assert Path(clgemm.kernel_source_path("blocked.cl")).is_relative_to(package)
assert all(Path(d).is_relative_to(venv) for d in clgemm.kernel_search_path()), \
    clgemm.kernel_search_path()

ctx = clgemm.Context()
a = np.arange(6, dtype=np.float32).reshape(2, 3)
c = ctx.sgemm(a, a.T)
assert np.array_equal(c, a @ a.T), c
x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
y = clgemm.matmul(x, np.ones(4, np.int32))
assert np.array_equal(y, x @ np.ones(4, np.float32)), y
print(f"  clgemm {clgemm.__version__} from {package} on {ctx.device.name}: OK")
EOF
echo "check_wheel: OK ($((SECONDS - started)) s)"
