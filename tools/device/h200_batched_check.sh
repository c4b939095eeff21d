#!/usr/bin/env bash
# Runs on the H200 device machine with build-device/ and .device-kit carried: the batched,
# epilogue and wgmma tests on the GPU, the precision suite, a tune of the batched shape classes
# (into $OUT/h200-batched.json) and cuBLAS FP32 strided batched (torch.bmm) on their shapes.
set -uo pipefail
source tools/device/environment.sh
b=build-device
run() {  # name, command...: the output in $OUT/name.txt, its last lines here
  local name=$1; shift
  "$@" > "$OUT/$name.txt" 2>&1; echo "== $name: exit $?"; tail -4 "$OUT/$name.txt"
}
run wgmma $b/tests/clgemm-internal-tests --gtest_filter='Wgmma.*:PtxRewrite.*'
run batched $b/tests/clgemm-tests --gtest_filter='Batched*:Epilogue*:CApiBatched*:SplitK*:Gemv*'
run precision $b/tests/clgemm-precision-tests
run tune timeout 300 $b/clgemm-tune --kernel blocked --classes batched-tiny batched-small \
  --budget "${1:-40},${2:-200s}" --output "$OUT/h200-batched.json" --state "$OUT/tune-state.json"
grep -E "winner|default|GFLOP" "$OUT/tune.txt" | tail -12
python3 - <<'PY'
import time, torch
torch.backends.cuda.matmul.allow_tf32 = False
for batch, n in [(8192, 32), (1024, 128), (16, 1024)]:
    x = torch.randn(batch, n, n, device="cuda"); y = torch.randn(batch, n, n, device="cuda")
    for _ in range(5): torch.bmm(x, y)
    torch.cuda.synchronize(); start = time.perf_counter(); reps = 50
    for _ in range(reps): torch.bmm(x, y)
    torch.cuda.synchronize(); seconds = (time.perf_counter() - start) / reps
    print(f"cuBLAS FP32 bmm {batch} x {n}^3: {seconds * 1e6:.1f} us, {2 * batch * n**3 / seconds / 1e9:.0f} GFLOP/s")
PY
