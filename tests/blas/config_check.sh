#!/usr/bin/env bash
# The configuration file CLGEMM_BLAS_CONFIG (docs/BLAS.md, "Settings"): a good file's settings
# apply and yield to the environment, and each bad form has its documented answer, said on stderr
# naming the file and line (or the variable) and what is allowed, while the rest of the file is
# still used and every product of the program is still right. A symbolic link is followed.
# Usage: config_check.sh RUN_TRACED PROGRAM
set -euo pipefail
run_traced=$1
program=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/clgemm-blas-config.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset CLGEMM_BLAS_MODE CLGEMM_BLAS_MIN_FLOPS CLGEMM_BLAS_PRECISION CLGEMM_BLAS_CPU_LIBRARY
export CLGEMM_BLAS_CALIBRATION_FILE=$work/calibration.txt

# check NAME [--expect REGEX]... [--absent REGEX]...: runs the program with the trace on; it
# must succeed with its products right, print every --expect pattern and no --absent one.
check() {
  local name=$1
  shift
  local expects=(--expect "all products correct") absents=() out
  while (($#)); do
    case $1 in
      --expect) expects+=(--expect "$2") ;;
      --absent) absents+=("$2") ;;
    esac
    shift 2
  done
  if ! out=$("$run_traced" "${expects[@]}" -- "$program" 2>&1); then
    echo "$out"
    echo "config_check: FAILED: $name" >&2
    exit 1
  fi
  for pattern in ${absents[@]+"${absents[@]}"}; do
    if grep -Eq -- "$pattern" <<<"$out"; then
      echo "$out"
      echo "config_check: FAILED: $name: the output shows $pattern" >&2
      exit 1
    fi
  done
  echo "config_check: $name: OK"
}
complaint='clgemm_blas: .*(ignored|not used|is not |given again)'

# A good file: comments, blank lines, CRLF line ends, keys and words in any case.
good=$work/good.conf
printf '# the drop-in BLAS\r\n\r\n  MODE = CPU   # every call on the CPU BLAS\r\nprecision=fp32\r\n' >"$good"
CLGEMM_BLAS_CONFIG=$good check "a good file applies" \
  --expect "cblas_sgemm .*: cpu \(mode=cpu\)" --absent "$complaint" --absent ": device \("
CLGEMM_BLAS_CONFIG=$good CLGEMM_BLAS_MODE=device check "the environment wins over the file" \
  --expect "cblas_sgemm .*: device \(mode=device\)" --absent "$complaint" --absent ": cpu \("

# A symbolic link to a file is followed; one to nothing is a missing file.
ln -s "$good" "$work/link.conf"
CLGEMM_BLAS_CONFIG=$work/link.conf check "a symbolic link is followed" \
  --expect "cblas_sgemm .*: cpu \(mode=cpu\)" --absent "$complaint"

# Bad lines, unknown keys, bad values and a key given twice: each said with its line, the rest
# of the file used (mode=cpu).
bad=$work/bad.conf
cat >"$bad" <<'LINES'
mode = cpu
this line has no equals sign
= cpu
colour = blue
precision = tf32
min_flops = -5
mode = CPU
LINES
CLGEMM_BLAS_CONFIG=$bad check "bad lines are said and skipped" \
  --expect "bad.conf:2: \"this line has no equals sign\" is not a .key = value. line; it is ignored" \
  --expect "bad.conf:3: \"= cpu\" has no key before '='; it is ignored" \
  --expect "bad.conf:4: unknown key \"colour\" \(known: mode, min_flops, cpu_library, precision, trace, platform, device, calibration_file\); it is ignored" \
  --expect "precision \(.*bad.conf:5\)=\"tf32\" is not fp32 or 3xtf32 .*; using fp32" \
  --expect "min_flops \(.*bad.conf:6\)=\"-5\" is not a number of flops >= 0 .*; using the measured crossover" \
  --expect "bad.conf:7: mode is given again \(first at line 1\); the last line's value is used" \
  --expect "cblas_sgemm .*: cpu \(mode=cpu\)"

# A bad mode falls back to auto (here with the crossover set, so that it runs on the CPU by
# size, not by mode); an empty value is as if it were not there (auto again).
printf 'mode = fast\n' >"$work/mode.conf"
CLGEMM_BLAS_CONFIG=$work/mode.conf CLGEMM_BLAS_MIN_FLOPS=1e15 check "a bad mode is auto" \
  --expect "mode \(.*mode.conf:1\)=\"fast\" is not one of auto, device, cpu; using auto" \
  --expect "cblas_sgemm .*: cpu \(.* flops < min_flops 1e\+15\)" --absent ": cpu \(mode=cpu\)"
printf 'mode = cpu\nmode =\n' >"$work/empty.conf"
CLGEMM_BLAS_CONFIG=$work/empty.conf CLGEMM_BLAS_MIN_FLOPS=1e15 check "an empty value is unset" \
  --expect "empty.conf:2: mode is given again \(first at line 1\)" \
  --expect "cblas_sgemm .*: cpu \(.* flops < min_flops 1e\+15\)" --absent ": cpu \(mode=cpu\)"

# Files that cannot be used: said once, and the calls run with the other settings (here the
# environment's mode=cpu).
export CLGEMM_BLAS_MODE=cpu
CLGEMM_BLAS_CONFIG=$work/absent.conf check "a missing file is not used" \
  --expect "CLGEMM_BLAS_CONFIG=$work/absent.conf: no such file; it is not used" \
  --expect "cblas_sgemm .*: cpu \(mode=cpu\)"
ln -s "$work/nowhere.conf" "$work/dangling.conf"
CLGEMM_BLAS_CONFIG=$work/dangling.conf check "a dangling link is a missing file" \
  --expect "CLGEMM_BLAS_CONFIG=$work/dangling.conf: no such file; it is not used"
CLGEMM_BLAS_CONFIG=$work check "a directory is not used" \
  --expect "CLGEMM_BLAS_CONFIG: file '$work': is not a regular file .*; the file is not used" \
  --expect "cblas_sgemm .*: cpu \(mode=cpu\)"
head -c 1100000 /dev/zero | tr '\0' '#' >"$work/large.conf"
CLGEMM_BLAS_CONFIG=$work/large.conf check "a file over 1 MiB is not used" \
  --expect "CLGEMM_BLAS_CONFIG: file '$work/large.conf': holds 1100000 bytes, more than the 1048576 expected of it; the file is not used"
echo "config_check: OK"
