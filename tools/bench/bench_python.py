#!/usr/bin/env python3
"""Times SGEMM from Python on the same matrices four ways and prints a table: NumPy's
``a @ b`` (its own BLAS, on the host), clgemm on NumPy arrays (blocking: upload, run,
download), clgemm on PyOpenCL arrays (enqueued on the queue, no host round trip) and pyclblast
(CLBlast) on the same PyOpenCL arrays and queue. Every result is first checked against float64
NumPy; each timing is one call and, for the device ones, queue.finish(), repeated after a
warm-up call until --min-time has passed, and the median is reported.

    python tools/bench/bench_python.py --sizes 128 256 512 1024       # square M = N = K
    python tools/bench/bench_python.py --shapes 1024x64x1024 64x1024x1024
    python tools/bench/bench_python.py --shapes 32x128x128x128 512x512x512+gelu

A shape of four sizes, BxMxNxK, is a batch of B products (3-D arrays: NumPy's matmul on the
stack, clgemm's strided batch, pyclblast's GemmStridedBatched); a shape ending in +relu or
+gelu adds a bias per column and that activation (clgemm: fused into its store; NumPy: the
product, then the bias and activation as array operations; pyclblast: the product, then
PyOpenCL array operations, the bias added as a C-sized array since those do not broadcast).

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
    import pyopencl.clmath as clmath
except ImportError as missing:
    cl = cl_array = clmath = None
    print(f"bench: no PyOpenCL ({missing}): host columns only", file=sys.stderr)
try:
    import pyclblast
except ImportError as missing:
    pyclblast = None
    print(f"bench: no pyclblast ({missing}): its column is empty", file=sys.stderr)


def parse_shape(text):
    """(batch or None, M, N, K, activation or None) from [Bx]MxNxK[+relu|+gelu]."""
    text, _, act = text.lower().partition("+")
    if act not in ("", "relu", "gelu"):
        raise argparse.ArgumentTypeError(f"unknown epilogue +{act} (relu or gelu)")
    sizes = [int(x) for x in text.split("x")]
    if len(sizes) not in (3, 4):
        raise argparse.ArgumentTypeError(f"{text}: give MxNxK or BxMxNxK")
    batch = sizes.pop(0) if len(sizes) == 4 else None
    return (batch, *sizes, act or None)


def shape_name(batch, m, n, k, act):
    return (f"{batch}x" if batch else "") + f"{m}x{n}x{k}" + (f" +bias,{act}" if act else "")


def activation(x, act, xp=np):
    """The epilogue's activation on an array (NumPy, or PyOpenCL through pyopencl.clmath)."""
    if act == "relu":
        return np.maximum(x, 0) if xp is np else cl_array.maximum(x, 0)
    tanh = np.tanh if xp is np else clmath.tanh
    return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


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


def bench_shape(batch, m, n, k, act, min_time, ctx, queue, rng):
    lead = (batch,) if batch else ()
    a = rng.uniform(-1, 1, lead + (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, lead + (k, n)).astype(np.float32)
    c = np.empty(lead + (m, n), np.float32)
    bias = rng.uniform(-1, 1, n).astype(np.float32) if act else None
    along = "cols" if act else None  # one bias value per column of C
    expected = a.astype(np.float64) @ b.astype(np.float64)
    if act:
        expected = activation(expected + bias, act)
    row = {}

    def numpy_call():
        np.matmul(a, b, out=c)
        if act:
            c[...] = activation(c + bias, act)

    numpy_call()
    check("numpy", c, expected, k)
    row["numpy"] = median_seconds(numpy_call, min_time)

    _, record = ctx.sgemm(a, b, c, bias=bias, bias_along=along, act=act,
                            return_record=True)
    check("clgemm (numpy arrays)", c, expected, k)
    row["kernel"] = record.kernel
    row["clgemm numpy"] = median_seconds(
        lambda: ctx.sgemm(a, b, c, bias=bias, bias_along=along, act=act), min_time)

    if queue is not None:
        a_dev, b_dev = cl_array.to_device(queue, a), cl_array.to_device(queue, b)
        c_dev = cl_array.empty(queue, lead + (m, n), np.float32)
        bias_dev = cl_array.to_device(queue, bias) if act else None

        def clgemm_device():
            ctx.sgemm(a_dev, b_dev, c_dev, bias=bias_dev, bias_along=along, act=act)
            queue.finish()

        clgemm_device()
        check("clgemm (pyopencl arrays)", c_dev.get(), expected, k)
        row["clgemm pyopencl"] = median_seconds(clgemm_device, min_time)

        if pyclblast is not None:
            out = [c_dev]
            if act:
                bias_full = cl_array.to_device(queue, np.broadcast_to(bias, c.shape).copy())

            def clblast_device():
                if batch:
                    pyclblast.gemmStridedBatched(  # it takes 2-D arrays: the stacks' rows
                        queue, m, n, k, batch, a_dev.reshape(batch * m, k),
                        b_dev.reshape(batch * k, n), c_dev.reshape(batch * m, n), a_ld=k,
                        b_ld=n, c_ld=n, a_stride=m * k, b_stride=k * n, c_stride=m * n)
                else:
                    pyclblast.gemm(queue, m, n, k, a_dev, b_dev, c_dev, a_ld=k, b_ld=n, c_ld=n)
                if act:  # unfused: the bias and activation as array operations
                    out[0] = activation(c_dev + bias_full, act, cl_array)
                queue.finish()

            c_dev.fill(np.float32(np.nan))
            clblast_device()
            check("pyclblast", out[0].get(), expected, k)
            row["pyclblast"] = median_seconds(clblast_device, min_time)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[],
                        help="square sizes M = N = K")
    parser.add_argument("--shapes", type=parse_shape, nargs="*", default=[],
                        help="shapes MxNxK, BxMxNxK (a batch of B), either with +relu or "
                             "+gelu (a bias per column and that activation)")
    parser.add_argument("--min-time", type=float, default=0.5,
                        help="seconds each timing repeats for (default 0.5)")
    args = parser.parse_args()
    shapes = ([(None, s, s, s, None) for s in args.sizes] + args.shapes or
              [(None, s, s, s, None) for s in (128, 512)]
              + [(16, 128, 128, 128, None), (None, 512, 512, 512, "gelu")])

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
    print("| [B x] M x N x K | " + " | ".join(columns) + " | clgemm pyopencl / pyclblast | auto ran |")
    print("|---|" + "---:|" * (len(columns) + 1) + "---|")
    rng = np.random.default_rng(1)
    for batch, m, n, k, act in shapes:
        row = bench_shape(batch, m, n, k, act, args.min_time, ctx, queue, rng)
        flops = 2e-9 * (batch or 1) * m * n * k
        gflops = {name: flops / row[name] for name in columns if name in row}
        cells = [f"{gflops[name]:.1f}" if name in gflops else "-" for name in columns]
        ratio = (f"{gflops['clgemm pyopencl'] / gflops['pyclblast']:.2f}x"
                 if "pyclblast" in gflops else "-")
        print(f"| {shape_name(batch, m, n, k, act)} | " + " | ".join(cells) + f" | {ratio} | {row['kernel']} |",
              flush=True)


if __name__ == "__main__":
    main()
