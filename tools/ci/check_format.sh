#!/usr/bin/env bash
# Checks that every C and C++ source of the repository (src/, include/, blas/, tests/, tools/,
# examples/, python/src/) is formatted as .clang-format says, without changing any file.
# Prints the offending files and exits 1 when one deviates; reformat them with
#   tools/ci/check_format.sh --fix
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v clang-format >/dev/null ||
  { echo "check_format: clang-format not found (tools/bootstrap.sh installs it)" >&2; exit 2; }
mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cpp' '*.hpp' | grep -v '^tests/fuzz/corpus/')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  echo "check_format: reformatted ${#files[@]} files"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  printf 'check_format: not formatted as .clang-format says: %s\n' "${bad[@]}" >&2
  echo "check_format: FAILED (${#bad[@]} of ${#files[@]} files); fix with tools/ci/check_format.sh --fix" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files formatted as .clang-format says"
