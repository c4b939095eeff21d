"""cuBLAS SGEMM reference for clgemm-bench's shapes, run on the H200 device machine.

Usage: python3 cublas_reference.py MxNxK [MxNxK ...]
Prints one line per shape and precision (fp32 with TF32 off, tf32): the median of timed
matmuls with CUDA events, after a warm-up, as `cublas_<mode> MxNxK ms=... gflops=...`.
"""
import sys

import torch


def median_ms(a, b, reps=30):
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        a @ b
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


for shape in sys.argv[1:]:
    m, n, k = (int(x) for x in shape.split("x"))
    a = torch.rand(m, k, device="cuda") - 0.5
    b = torch.rand(k, n, device="cuda") - 0.5
    for mode, tf32 in (("fp32", False), ("tf32", True)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        ms = median_ms(a, b)
        print(f"cublas_{mode} {shape} ms={ms:.4f} gflops={2 * m * n * k / ms / 1e6:.1f}", flush=True)
