#!/usr/bin/env python3
"""Times SGEMM from Python on the same matrices four ways and prints a table: NumPy's
``a @ b`` (its own BLAS, on the host), clgemm on NumPy arrays (blocking: upload, run,
download), clgemm on PyOpenCL arrays (enqueued on the queue, no host round trip) and pyclblast
(CLBlast) on the same PyOpenCL arrays and queue. Every result is first checked against float64
NumPy; each timing is one call and, for the device ones, queue.finish(), repeated after a
warm-up call until --min-time has passed, and the median is reported.

    python tools/bench_python.py --sizes 128 256 512 1024       # square M = N = K
    python tools/bench_python.py --shapes 1024x64x1024 64x1024x1024

Needs numpy and clgemm; pyopencl for the device columns and pyclblast for its column (a
missing one is reported and its columns left empty). The device is the first GPU, else the
first device (PYOPENCL_CTX and CLGEMM_PLATFORM/DEVICE are not read: both use this one).
"""

import argparse
import importlib.metadata
import statistics
import sys
import time

import numpy as np

import clgemm

try:
    import pyopencl as cl
    import pyopencl.array as cl_array
except ImportError as missing:
    cl = cl_array = None
    print(f"bench: no PyOpenCL ({missing}): host columns only", file=sys.stderr)
try:
    import pyclblast
except ImportError as missing:
    pyclblast = None
    print(f"bench: no pyclblast ({missing}): its column is empty", file=sys.stderr)


def parse_shape(text):
    m, n, k = (int(x) for x in text.lower().split("x"))
    return m, n, k


def median_seconds(call, min_time, min_reps=3):
    """The median time of one call, after a warm-up call, over at least min_reps calls and
    at least min_time seconds."""
    call()
    times, start = [], time.perf_counter()
    while len(times) < min_reps or time.perf_counter() - start < min_time:
        begin = time.perf_counter()
        call()
        times.append(time.perf_counter() - begin)
    return statistics.median(times)


def check(name, result, expected, k):
    """Fails loudly unless the result is within fp32 rounding of the float64 product."""
    error = np.max(np.abs(result - expected)) / max(1.0, np.max(np.abs(expected)))
    if not error <= 4 * k * 2.0 ** -24:
        sys.exit(f"bench: {name} is wrong: relative error {error:.3g}")


def pick_device():
    devices = [d for p in cl.get_platforms() for d in p.get_devices()]
    gpus = [d for d in devices if d.type & cl.device_type.GPU]
    return (gpus or devices)[0]


def bench_shape(m, n, k, min_time, ctx, queue, rng):
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    c = np.empty((m, n), np.float32)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    row = {}

    check("numpy", a @ b, expected, k)
    row["numpy"] = median_seconds(lambda: np.matmul(a, b, out=c), min_time)

    _, record = ctx.sgemm(a, b, c, return_record=True)
    check("clgemm (numpy arrays)", c, expected, k)
    row["kernel"] = record.kernel
    row["clgemm numpy"] = median_seconds(lambda: ctx.sgemm(a, b, c), min_time)

    if queue is not None:
        a_dev, b_dev = cl_array.to_device(queue, a), cl_array.to_device(queue, b)
        c_dev = cl_array.empty(queue, (m, n), np.float32)

        def clgemm_device():
            ctx.sgemm(a_dev, b_dev, c_dev)
            queue.finish()

        clgemm_device()
        check("clgemm (pyopencl arrays)", c_dev.get(), expected, k)
        row["clgemm pyopencl"] = median_seconds(clgemm_device, min_time)

        if pyclblast is not None:
            def clblast_device():
                pyclblast.gemm(queue, m, n, k, a_dev, b_dev, c_dev, a_ld=k, b_ld=n, c_ld=n)
                queue.finish()

            c_dev.fill(np.float32(np.nan))
            clblast_device()
            check("pyclblast", c_dev.get(), expected, k)
            row["pyclblast"] = median_seconds(clblast_device, min_time)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[],
                        help="square sizes M = N = K")
    parser.add_argument("--shapes", type=parse_shape, nargs="*", default=[],
                        help="shapes MxNxK")
    parser.add_argument("--min-time", type=float, default=0.5,
                        help="seconds each timing repeats for (default 0.5)")
    args = parser.parse_args()
    shapes = [(s, s, s) for s in args.sizes] + args.shapes or [(s, s, s) for s in (128, 512)]

    queue = None
    if cl is not None:  # one context for all: clgemm and pyclblast on the same queue
        queue = cl.CommandQueue(cl.Context([pick_device()]))
        ctx = clgemm.Context.from_pyopencl(queue)
    else:
        ctx = clgemm.Context()
    print(f"device: {ctx.device.name}; numpy {np.__version__}, clgemm {clgemm.__version__}"
          + (f", pyopencl {cl.VERSION_TEXT}" if cl else "")
          + (f", pyclblast {importlib.metadata.version('pyclblast')}" if pyclblast else ""))
    columns = ["numpy", "clgemm numpy", "clgemm pyopencl", "pyclblast"]
    print("GFLOP/s (median of one call each; device calls include queue.finish())\n")
    print("| M x N x K | " + " | ".join(columns) + " | clgemm pyopencl / pyclblast | auto ran |")
    print("|---|" + "---:|" * (len(columns) + 1) + "---|")
    rng = np.random.default_rng(1)
    for m, n, k in shapes:
        row = bench_shape(m, n, k, args.min_time, ctx, queue, rng)
        gflops = {name: 2e-9 * m * n * k / row[name] for name in columns if name in row}
        cells = [f"{gflops[name]:.1f}" if name in gflops else "-" for name in columns]
        ratio = (f"{gflops['clgemm pyopencl'] / gflops['pyclblast']:.2f}x"
                 if "pyclblast" in gflops else "-")
        print(f"| {m}x{n}x{k} | " + " | ".join(cells) + f" | {ratio} | {row['kernel']} |",
              flush=True)


if __name__ == "__main__":
    main()
