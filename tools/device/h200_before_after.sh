#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/, the build to compare against (BEFORE,
# a folder holding its clgemm-run and src/libclgemm.so*) and .device-kit carried: `auto` of
# both builds on each shape of the named suites, one after the other on the same machine
# (clgemm-run's median of 20 enqueue + finish calls, unverified), then cuBLAS FP32 on the same
# shapes in the same call, so that a change's effect and both builds' ratios to cuBLAS are
# measured side by side. A build folder with kernels/ and tuning/ of its own runs with those
# (CLGEMM_KERNEL_DIR; the tuning files sit beside the kernels). Each build times with its own
# library: builds before 84fbf57 timed on a profiling queue with an event, which added 8-15 us
# to each call on the H100 (docs/PERFORMANCE.md), so compare such a build's small shapes with
# care. Output: $OUT/before-after.txt (one line per shape: both medians in ms, after / before,
# and each / cuBLAS per call) and $OUT/SUITE-cublas.json. The suite name `extra` takes the
# shapes of EXTRA_SHAPES instead ("MxNxK MxNxK*BATCH ...").
#   BEFORE=devrun/old tools/device/h200_before_after.sh llm standard
#   BEFORE=devrun/old EXTRA_SHAPES="768x768x768 32x32x32*8192" tools/device/h200_before_after.sh extra
set -uo pipefail
source .device-kit/nvidia-opencl.sh >/dev/null 2>&1
export CLGEMM_KERNEL_DIR=$PWD/kernels CLGEMM_CACHE_DIR=${CLGEMM_CACHE_DIR:-/tmp/clgemm-cache}
BEFORE=${BEFORE:?name the build to compare against}
median() {  # folder shape -> the median per-call time in ms, or "-"
  local shape=${2%%\**} batch=1
  [[ $2 == *\** ]] && batch=${2#*\*}
  IFS=x read -r m n k <<<"$shape"
  local kernels=$PWD/kernels
  [[ -d $1/kernels ]] && kernels=$PWD/$1/kernels
  CLGEMM_KERNEL_DIR=$kernels LD_LIBRARY_PATH=$PWD/$1/src:$LD_LIBRARY_PATH \
    timeout 30 "$1/clgemm-run" --kernel auto \
    --m "$m" --n "$n" --k "$k" --batch "$batch" --reps 20 --warmup 3 --no-verify 2>&1 |
    grep -oE 'median [0-9.]+ ms' | head -1 | grep -oE '[0-9.]+' || echo -
}
for suite in "$@"; do
  if [[ $suite == extra ]]; then  # EXTRA_SHAPES: MxNxK or MxNxK*BATCH, apart from the suites
    tr ' ' '\n' <<<"${EXTRA_SHAPES:?name the extra shapes}" | grep . > "$OUT/$suite-shapes.txt"
    python3 -c 'import json, sys; print(json.dumps({"results": [dict(zip("mnk", map(int,
      s.split("*")[0].split("x"))), batch_count=int((s.split("*") + ["1"])[1]))
      for s in sys.argv[1:]]}))' $EXTRA_SHAPES > "$OUT/extra-shapes.json"
    cublas_shapes=(--shapes-from "$OUT/extra-shapes.json")
  else
    build-device/clgemm-bench --list-suite "$suite" > "$OUT/$suite-shapes.txt"
    cublas_shapes=(--suite "$suite")
  fi
  while read -r shape; do
    echo "$suite $shape $(median build-device "$shape") $(median "$BEFORE" "$shape")"
  done < "$OUT/$suite-shapes.txt" > "$OUT/$suite-times.txt"
  timeout 150 python3 tools/device/cublas_suite.py "${cublas_shapes[@]}" --precisions fp32 \
    -o "$OUT/$suite-cublas.json" >/dev/null 2>&1 || echo "cuBLAS ($suite) failed"
done
python3 - "$OUT" "$@" <<'PY' | tee "$OUT/before-after.txt"
import json, math, sys
out, suites = sys.argv[1], sys.argv[2:]
print(f"{'shape':>22} {'after ms':>9} {'before ms':>9} {'after/before':>12} {'after/cuBLAS':>12} {'before/cuBLAS':>13}")
for suite in suites:
    cublas = {}
    try:
        for r in json.load(open(f"{out}/{suite}-cublas.json"))["results"]:
            if r["precision"] == "fp32" and r["bias"] == "none" and r["activation"] == "none":
                cublas[r["shape"]] = 1000 * r["median_seconds"]
    except Exception as e:
        print(f"{suite}: no cuBLAS figures ({e})")
    logs = {"speedup": [], "after": [], "before": []}
    for line in open(f"{out}/{suite}-times.txt"):
        _, shape, after, before = line.split()
        if after == "-" or before == "-":
            print(f"{shape:>22} {after:>9} {before:>9}"); continue
        a, b, c = float(after), float(before), cublas.get(shape)
        logs["speedup"].append(math.log(b / a))
        row = f"{shape:>22} {a:9.3f} {b:9.3f} {b / a:12.3f}"
        if c:
            logs["after"].append(math.log(c / a)); logs["before"].append(math.log(c / b))
            row += f" {c / a:12.3f} {c / b:13.3f}"
        print(row)
    g = {k: math.exp(sum(v) / len(v)) if v else float("nan") for k, v in logs.items()}
    print(f"{suite}: geometric means over {len(logs['speedup'])} shapes: after / before "
          f"{g['speedup']:.3f}, after / cuBLAS {g['after']:.3f}, before / cuBLAS {g['before']:.3f}")
PY
