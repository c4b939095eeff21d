#!/usr/bin/env python3
"""cuBLAS SGEMM on clgemm-bench's shape suites, FP32 and TF32, timed as the bench times.

Runs on the H200 device machine with python3 alone: cuBLAS and the CUDA driver are reached
through ctypes (libcublas from the CUDA toolkit or the nvidia-cublas wheel that PyTorch
installs; libcuda from the driver). The shapes come from tools/bench/bench_suites.json (--suite,
--max-size as clgemm-bench's) or from a clgemm-bench JSON (--shapes-from: exactly the shapes
that run measured). Each shape is row-major C (M x N) = A (M x K) * B (K x N), alpha 1, beta 0,
computed as the column-major C^T = B^T * A^T, with A and B uniform in [-1, 1); a clgemm-bench
row with trans_a or trans_b (clgemm-bench --transa t / --transb t) reads A stored K x M or B
stored N x K instead (CUBLAS_OP_T), and is labelled /NT, /TN or /TT as clgemm-bench labels it.
A batched shape (the suite's {"shape": [M, N, K], "batch": B}) runs B packed products in one
cublasSgemmStridedBatched. A shape with an epilogue ("bias": "row"|"col", "act": "relu"|"gelu")
runs as PyTorch would write it, imported only then: torch.nn.functional.linear (col bias, one
product), torch.addmm (row bias) or torch.baddbmm (a batch), followed by torch.relu or
torch.nn.functional.gelu(x, approximate="tanh"); TF32 off (torch.backends.cuda.matmul.allow_tf32)
for the fp32 figures, on for the tf32 ones. Those rows keep the contender names cublas-fp32 and
cublas-tf32 (PyTorch's matrix products are cuBLAS's), with "method" saying what ran.

For each shape and precision (fp32: CUBLAS_DEFAULT_MATH; tf32: CUBLAS_TF32_TENSOR_OP_MATH):
  per call      one cublasSgemm and a context synchronize, host-timed; the median over calls
                repeated until --min-time has passed and at least 3 were made (at most 200),
                after one warm-up call;
  back to back  batches of R calls with one synchronize, divided by R; R enough for half of
                --min-time (2 to 1000) unless --batch is given; 2 to 5 batches, the median;
and a few elements of C are checked against a double dot product (normalised error).

Writes JSON (-o, default stdout) in this form, the rows named as clgemm-bench's:
  {"tool": "cublas_suite.py", "device": str, "cublas_version": int, "suite": str|null,
   "max_size": int|null, "source": str, "timing": {...},
   "results": [{"contender": "cublas-fp32"|"cublas-tf32", "library": "cublas"|"torch",
                "method": str, "precision": "fp32"|"tf32", "m", "n", "k",
                "batch_count": int, "trans_a": bool, "trans_b": bool,
                "bias": "none"|"row"|"col",
                "activation": "none"|"relu"|"gelu", "shape": "MxNxK[*B][+colbias][+gelu]",
                "median_seconds", "gflops", "runs",
                "back_to_back_seconds", "back_to_back_gflops", "batch", "batches",
                "checked_elements", "max_normalised_error", "verified": bool}],
   "geometric_means": [{"contender", "shapes", "per_call_gflops", "back_to_back_gflops"}]}

    python3 tools/device/cublas_suite.py --suite standard -o cublas.json
    python3 tools/device/cublas_suite.py --shapes-from bench.json -o cublas.json
"""
import argparse
import array
import ctypes
import ctypes.util
import glob
import json
import math
import os
import random
import site
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SUITES = os.path.join(HERE, "..", "bench", "bench_suites.json")

CUBLAS_OP_N = 0
CUBLAS_OP_T = 1
CUBLAS_DEFAULT_MATH = 0
CUBLAS_TF32_TENSOR_OP_MATH = 3
PRECISIONS = (("fp32", CUBLAS_DEFAULT_MATH), ("tf32", CUBLAS_TF32_TENSOR_OP_MATH))
# Normalised error |c - ref| / sum |a b| above which a result is wrong, not merely rounded.
ERROR_BOUND = {"fp32": 1e-3, "tf32": 2e-2}
BLOCK = 1 << 20  # random floats tiled over each matrix


def fail(message):
    print(f"cublas_suite.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def note(message):
    print(f"cublas_suite.py: {message}", file=sys.stderr, flush=True)


# --- shapes -------------------------------------------------------------------------------
# A shape is (m, n, k, batch, bias, act): bias "none", "row" or "col", act "none", "relu" or
# "gelu", as tools/bench/bench_suites.json and clgemm-bench's rows ("batch_count", "bias",
# "activation") give them.

BIASES, ACTIVATIONS = ("none", "row", "col"), ("none", "relu", "gelu")


def suite_shape(entry):
    """[M, N, K] or {"shape": [M, N, K], "batch": B, "bias": ..., "act": ...}."""
    if isinstance(entry, dict):
        m, n, k = (int(v) for v in entry["shape"])
        shape = (m, n, k, int(entry.get("batch", 1)), entry.get("bias", "none"),
                 entry.get("act", "none"), False, False)
    else:
        m, n, k = (int(v) for v in entry)
        shape = (m, n, k, 1, "none", "none", False, False)
    if shape[4] not in BIASES or shape[5] not in ACTIVATIONS or shape[3] < 1:
        fail(f"{SUITES}: bad shape {entry}")
    return shape


def multiply_adds(shape):
    m, n, k, batch = shape[:4]
    return batch * m * n * k


def shape_label(shape):
    """clgemm-bench's label: MxNxK[*B][+rowbias|+colbias][+relu|+gelu][/NT|/TN|/TT]."""
    m, n, k, batch, bias, act, trans_a, trans_b = shape
    transposes = ("T" if trans_a else "N") + ("T" if trans_b else "N")
    return (f"{m}x{n}x{k}" + (f"*{batch}" if batch != 1 else "")
            + (f"+{bias}bias" if bias != "none" else "") + (f"+{act}" if act != "none" else "")
            + (f"/{transposes}" if transposes != "NN" else ""))


def suite_shapes(name, max_size, path=SUITES):
    with open(path, encoding="utf-8") as f:
        suites = json.load(f)["suites"]
    if name not in suites:
        fail(f"--suite: unknown suite '{name}'; the suites are {', '.join(suites)}")
    shapes = [suite_shape(s) for s in suites[name]["shapes"]]
    return [s for s in shapes if not max_size or multiply_adds(s) <= max_size ** 3]


def bench_shapes(path):
    """The shapes of a clgemm-bench JSON, in its order."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    rows = data.get("results", []) if isinstance(data, dict) else data
    shapes = []
    for row in rows:
        shape = (int(row["m"]), int(row["n"]), int(row["k"]), int(row.get("batch_count", 1)),
                 str(row.get("bias", "none")), str(row.get("activation", "none")),
                 bool(row.get("trans_a", False)), bool(row.get("trans_b", False)))
        if shape[4] not in BIASES or shape[5] not in ACTIVATIONS:
            fail(f"{path}: a row has bias '{shape[4]}' and activation '{shape[5]}', which this "
                 f"script does not time")
        if shape not in shapes:
            shapes.append(shape)
    return shapes, data if isinstance(data, dict) else {}


# --- libraries ----------------------------------------------------------------------------

def candidates(stem, explicit):
    """Paths to try for lib<stem>.so: the given one, the CUDA toolkit's, the nvidia wheels'
    and torch's (PyTorch's pip install), the driver's, then the loader's own search."""
    if explicit:
        return [explicit]
    roots = [os.environ.get("CUDA_HOME", ""), os.environ.get("CUDA_PATH", ""), "/usr/local/cuda"]
    dirs = [os.path.join(r, "lib64") for r in roots if r] + ["/usr/local/nvidia/lib64"]
    packages = list(sys.path)
    try:
        packages += site.getsitepackages() + [site.getusersitepackages()]
    except AttributeError:
        pass
    for p in packages:
        dirs += [os.path.join(p, "nvidia", "cublas", "lib"), os.path.join(p, "torch", "lib")]
    dirs += glob.glob("/usr/local/cuda-*/lib64") + ["/usr/lib/x86_64-linux-gnu"]
    found = []
    for d in dirs:
        found += sorted(glob.glob(os.path.join(d, f"lib{stem}.so*")), reverse=True)
    name = ctypes.util.find_library(stem)
    return found + ([name] if name else []) + [f"lib{stem}.so"]


def load(stem, explicit=None, preload=()):
    errors = []
    for path in candidates(stem, explicit):
        try:
            # cuBLAS needs its cublasLt from the same folder: load that first, globally.
            for other in preload:
                sibling = glob.glob(os.path.join(os.path.dirname(path), f"lib{other}.so*"))
                if sibling:
                    ctypes.CDLL(sorted(sibling)[-1], mode=ctypes.RTLD_GLOBAL)
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL), path
        except OSError as e:
            errors.append(f"{path}: {e}")
    fail(f"cannot load lib{stem}: " + "; ".join(errors[-3:]))


class Cuda:
    """The few CUDA driver calls needed: the primary context, memory, synchronize."""

    def __init__(self, path=None):
        self.lib, self.path = load("cuda", path)
        self.check(self.lib.cuInit(0), "cuInit")
        device = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
        name = ctypes.create_string_buffer(256)
        self.check(self.lib.cuDeviceGetName(name, 256, device), "cuDeviceGetName")
        self.device_name = name.value.decode()
        context = ctypes.c_void_p()
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), device),
                   "cuDevicePrimaryCtxRetain")
        self.check(self.lib.cuCtxSetCurrent(context), "cuCtxSetCurrent")
        # The runtime inside cuBLAS uses this primary context.
        self.lib.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
        self.lib.cuMemFree_v2.argtypes = [ctypes.c_uint64]
        self.lib.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
        self.lib.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]

    @staticmethod
    def check(status, what):
        if status != 0:
            fail(f"{what} failed with CUDA status {status}")

    def alloc(self, elements):
        pointer = ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(pointer), max(elements, 1) * 4),
                   "cuMemAlloc")
        return pointer.value

    def free(self, pointer):
        self.lib.cuMemFree_v2(pointer)

    def fill(self, pointer, elements, block):
        """Tiles the host block of floats over the device array."""
        address, _ = block.buffer_info()
        for start in range(0, elements, len(block)):
            count = min(len(block), elements - start)
            self.check(self.lib.cuMemcpyHtoD_v2(pointer + 4 * start, address, 4 * count),
                       "cuMemcpyHtoD")

    def read(self, pointer, index):
        value = ctypes.c_float()
        self.check(self.lib.cuMemcpyDtoH_v2(ctypes.byref(value), pointer + 4 * index, 4),
                   "cuMemcpyDtoH")
        return value.value

    def synchronize(self):
        self.check(self.lib.cuCtxSynchronize(), "cuCtxSynchronize")


class Cublas:
    def __init__(self, path=None):
        self.lib, self.path = load("cublas", path, preload=("cublasLt",))
        self.handle = ctypes.c_void_p()
        self.check(self.lib.cublasCreate_v2(ctypes.byref(self.handle)), "cublasCreate")
        version = ctypes.c_int()
        self.check(self.lib.cublasGetVersion_v2(self.handle, ctypes.byref(version)),
                   "cublasGetVersion")
        self.version = version.value
        f = self.lib.cublasSgemm_v2
        f.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.POINTER(ctypes.c_float), ctypes.c_uint64,
                      ctypes.c_int, ctypes.c_uint64, ctypes.c_int,
                      ctypes.POINTER(ctypes.c_float), ctypes.c_uint64, ctypes.c_int]
        g = self.lib.cublasSgemmStridedBatched
        g.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.POINTER(ctypes.c_float),
                      ctypes.c_uint64, ctypes.c_int, ctypes.c_longlong,
                      ctypes.c_uint64, ctypes.c_int, ctypes.c_longlong,
                      ctypes.POINTER(ctypes.c_float),
                      ctypes.c_uint64, ctypes.c_int, ctypes.c_longlong, ctypes.c_int]
        self.alpha, self.beta = ctypes.c_float(1.0), ctypes.c_float(0.0)

    @staticmethod
    def check(status, what):
        if status != 0:
            fail(f"{what} failed with cuBLAS status {status}")

    def math_mode(self, mode):
        self.check(self.lib.cublasSetMathMode(self.handle, mode), "cublasSetMathMode")

    def sgemm_call(self, m, n, k, a, b, c, trans_a=False, trans_b=False):
        """A callable that enqueues row-major C = op(A) * op(B) as column-major
        C^T = op(B)^T * op(A)^T: B (K x N, or N x K transposed) and A (M x K, or K x M) packed."""
        f, handle, alpha, beta = self.lib.cublasSgemm_v2, self.handle, self.alpha, self.beta
        pa, pb = ctypes.byref(alpha), ctypes.byref(beta)
        op_b, ldb = (CUBLAS_OP_T, k) if trans_b else (CUBLAS_OP_N, n)
        op_a, lda = (CUBLAS_OP_T, m) if trans_a else (CUBLAS_OP_N, k)

        def call():
            status = f(handle, op_b, op_a, n, m, k, pa, b, ldb, a, lda, pb, c, n)
            if status != 0:
                fail(f"cublasSgemm failed with cuBLAS status {status}")
        return call

    def strided_batched_call(self, m, n, k, batch, a, b, c, trans_a=False, trans_b=False):
        """A callable that enqueues `batch` packed row-major products C_p = op(A_p) * op(B_p)."""
        f, handle = self.lib.cublasSgemmStridedBatched, self.handle
        pa, pb = ctypes.byref(self.alpha), ctypes.byref(self.beta)
        op_b, ldb = (CUBLAS_OP_T, k) if trans_b else (CUBLAS_OP_N, n)
        op_a, lda = (CUBLAS_OP_T, m) if trans_a else (CUBLAS_OP_N, k)

        def call():
            status = f(handle, op_b, op_a, n, m, k, pa, b, ldb, k * n, a, lda, m * k,
                       pb, c, n, m * n, batch)
            if status != 0:
                fail(f"cublasSgemmStridedBatched failed with cuBLAS status {status}")
        return call


# --- timing -------------------------------------------------------------------------------

def repeat(call, min_runs, max_runs, min_seconds):
    times, start = [], time.perf_counter()
    while len(times) < max_runs and (len(times) < min_runs
                                     or time.perf_counter() - start < min_seconds):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return times


def measure(enqueue, synchronize, min_time, batch):
    def one():
        enqueue()
        synchronize()
    one()  # warm-up
    per_call = statistics.median(repeat(one, 3, 200, min_time))
    calls = batch or int(min(max(math.ceil(0.5 * min_time / max(per_call, 1e-9)), 2), 1000))

    def batch_of_calls():
        for _ in range(calls):
            enqueue()
        synchronize()
    batches = repeat(batch_of_calls, 2, 5, min_time)
    return per_call, statistics.median(batches) / calls, calls, len(batches)


def check_elements(cuda, c, m, n, k, block, count=4, batch=1, trans_a=False, trans_b=False):
    """The worst normalised error |c - ref| / sum |a b| over a few elements of C (of the first
    and the last product of a batch)."""
    # A and B were each filled with the block tiled from its start, the products packed; op(A)
    # (i, p) is at i * k + p, or p * m + i transposed; op(B)(p, j) at p * n + j, or j * k + p.
    worst, checked = 0.0, 0
    picks = [(0, 0), (m - 1, n - 1), (m // 2, n // 3), (m // 3, n // 2)][:count]
    for product in sorted({0, batch - 1}):
        a0, b0, c0 = product * m * k, product * k * n, product * m * n
        for i, j in picks:
            ref = magnitude = 0.0
            for p in range(k):
                a_at = p * m + i if trans_a else i * k + p
                b_at = j * k + p if trans_b else p * n + j
                value = block[(a0 + a_at) % len(block)] * block[(b0 + b_at) % len(block)]
                ref += value
                magnitude += abs(value)
            error = abs(cuda.read(c, c0 + i * n + j) - ref)
            worst = max(worst, error / magnitude if magnitude else error)
            checked += 1
    return checked, worst


# --- epilogues through PyTorch -----------------------------------------------------------

def torch_module():
    try:
        import torch  # noqa: PLC0415 (only the epilogue shapes need it)
    except ImportError:
        fail("the shapes with an epilogue are timed through PyTorch, which this python3 lacks")
    if not torch.cuda.is_available():
        fail("the shapes with an epilogue are timed through PyTorch, which sees no CUDA device")
    return torch


def torch_epilogue(shape, precision):
    """(method, call, check, synchronize) for a shape with an epilogue: `call` enqueues it as
    PyTorch code would be written, `check` returns (elements checked, worst normalised error)
    of its last result against float64 on a few rows of the first and last product."""
    torch = torch_module()
    functional = torch.nn.functional
    m, n, k, batch, bias_kind, act = shape[:6]
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    torch.backends.cudnn.allow_tf32 = precision == "tf32"
    generator = torch.Generator(device="cuda").manual_seed(1)

    def uniform(*size):
        return torch.rand(*size, device="cuda", generator=generator) * 2 - 1
    batched = batch > 1
    a = uniform(batch, m, k) if batched else uniform(m, k)
    # B's transpose, as torch.nn.Linear stores its weight; one per product of a batch.
    w = uniform(batch, n, k) if batched else uniform(n, k)
    b = w.transpose(-1, -2)
    bias = uniform(m if bias_kind == "row" else n) if bias_kind != "none" else None
    activations = {"none": (lambda x: x, "none"),
                   "relu": (torch.relu, "torch.relu"),
                   "gelu": (lambda x: functional.gelu(x, approximate="tanh"),
                            "gelu(approximate='tanh')")}
    activate, act_name = activations[act]
    if bias_kind == "none":
        product, product_name = ((lambda: torch.bmm(a, b), "torch.bmm")
                                 if batched else (lambda: torch.mm(a, b), "torch.mm"))
    elif bias_kind == "col" and not batched:
        product, product_name = (lambda: functional.linear(a, w, bias)), "F.linear"
    else:
        view = bias.view(m, 1) if bias_kind == "row" else bias.view(1, n)
        product, product_name = ((lambda: torch.baddbmm(view.unsqueeze(0), a, b),
                                  "torch.baddbmm")
                                 if batched else (lambda: torch.addmm(view, a, b), "torch.addmm"))
    result = {}

    def call():
        result["c"] = activate(product())

    def check():
        rows = sorted({0, m // 2, m - 1})
        worst, checked = 0.0, 0
        for p in sorted({0, batch - 1}):
            a_p = (a[p] if batched else a)[rows].double()
            c_p = (result["c"][p] if batched else result["c"])[rows].double()
            w_p = (w[p] if batched else w).double()
            ref = a_p @ w_p.t()
            magnitude = a_p.abs() @ w_p.abs().t()
            if bias is not None:
                added = bias.double()[rows].view(-1, 1) if bias_kind == "row" else bias.double()
                ref, magnitude = ref + added, magnitude + added.abs()
            if act == "relu":
                ref = torch.relu(ref)
            elif act == "gelu":
                ref = functional.gelu(ref, approximate="tanh")
            error = ((c_p - ref).abs() / magnitude.clamp_min(1e-30)).max().item()
            worst, checked = max(worst, error), checked + c_p.numel()
        return checked, worst
    return f"{product_name} + {act_name}", call, check, torch.cuda.synchronize


def geometric_means(rows):
    means = []
    for name in dict.fromkeys(r["contender"] for r in rows):
        mine = [r for r in rows if r["contender"] == name
                and r["gflops"] > 0 and r["back_to_back_gflops"] > 0]
        if mine:
            means.append({
                "contender": name, "shapes": len(mine),
                "per_call_gflops": math.exp(sum(math.log(r["gflops"]) for r in mine) / len(mine)),
                "back_to_back_gflops": math.exp(
                    sum(math.log(r["back_to_back_gflops"]) for r in mine) / len(mine))})
    return means


def main():
    parser = argparse.ArgumentParser(
        prog="cublas_suite.py",
        description="Time cuBLAS SGEMM (FP32 and TF32) on clgemm-bench's suite shapes, per "
                    "call and back to back, and write JSON.")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--suite", default="standard",
                        help="a suite of tools/bench/bench_suites.json (default: standard)")
    source.add_argument("--shapes-from", metavar="BENCH_JSON",
                        help="take the shapes of this clgemm-bench --json file instead")
    parser.add_argument("--max-size", type=int, default=0, metavar="S",
                        help="skip the suite's shapes whose M*N*K is above S^3, as clgemm-bench")
    parser.add_argument("--precisions", default="fp32,tf32", help="fp32, tf32 or both")
    parser.add_argument("--min-time", type=float, default=0.3,
                        help="seconds of repeated calls per measurement (default 0.3)")
    parser.add_argument("--batch", type=int, default=0,
                        help="calls per back-to-back batch (default: enough for half of "
                             "--min-time, 2 to 1000)")
    parser.add_argument("--cublas", help="path of libcublas.so (default: searched)")
    parser.add_argument("--cuda", help="path of libcuda.so (default: searched)")
    parser.add_argument("-o", "--output", help="JSON file to write (default: stdout)")
    args = parser.parse_args()

    precisions = [p for p in PRECISIONS if p[0] in args.precisions.split(",")]
    if not precisions or len(precisions) != len(args.precisions.split(",")):
        fail(f"--precisions: expected fp32, tf32 or both, got '{args.precisions}'")
    if not (math.isfinite(args.min_time) and 0 <= args.min_time <= 3600):
        fail(f"--min-time: expected 0 to 3600 seconds, got {args.min_time}")
    if args.shapes_from:
        shapes, _ = bench_shapes(args.shapes_from)
        suite, where = None, args.shapes_from
    else:
        shapes, suite, where = suite_shapes(args.suite, args.max_size), args.suite, SUITES
    if not shapes:
        fail("no shapes to measure")

    cuda = Cuda(args.cuda)
    cublas = Cublas(args.cublas)
    note(f"{cuda.device_name}, cuBLAS {cublas.version} ({cublas.path}); {len(shapes)} shapes")
    generator = random.Random(1)
    block = array.array("f", (generator.uniform(-1.0, 1.0) for _ in range(BLOCK)))

    rows = []
    for shape in shapes:
        m, n, k, batch, bias, act, trans_a, trans_b = shape
        epilogue = bias != "none" or act != "none"
        if epilogue and (trans_a or trans_b):
            fail(f"{shape_label(shape)}: epilogue shapes are timed through PyTorch untransposed "
                 f"only")
        if not epilogue:
            a, b = cuda.alloc(batch * m * k), cuda.alloc(batch * k * n)
            c = cuda.alloc(batch * m * n)
            cuda.fill(a, batch * m * k, block)
            cuda.fill(b, batch * k * n, block)
            cuda.fill(c, batch * m * n, block)
            cuda.synchronize()
        for precision, mode in precisions:
            if epilogue:
                method, call, check, synchronize = torch_epilogue(shape, precision)
                library = "torch"
            else:
                cublas.math_mode(mode)
                library = "cublas"
                method = "cublasSgemmStridedBatched" if batch > 1 else "cublasSgemm"
                call = (cublas.strided_batched_call(m, n, k, batch, a, b, c, trans_a, trans_b)
                        if batch > 1 else cublas.sgemm_call(m, n, k, a, b, c, trans_a, trans_b))
                synchronize = cuda.synchronize
                check = lambda: check_elements(cuda, c, m, n, k, block, batch=batch,  # noqa: E731
                                               trans_a=trans_a, trans_b=trans_b)
            per_call, back_to_back, calls, batches = measure(call, synchronize, args.min_time,
                                                             args.batch)
            checked, error = check()
            flops = 2.0 * batch * m * n * k
            row = {"contender": f"cublas-{precision}", "library": library, "method": method,
                   "precision": precision, "m": m, "n": n, "k": k, "batch_count": batch,
                   "trans_a": trans_a, "trans_b": trans_b,
                   "bias": bias, "activation": act, "shape": shape_label(shape),
                   "median_seconds": per_call, "gflops": flops / per_call * 1e-9,
                   "back_to_back_seconds": back_to_back,
                   "back_to_back_gflops": flops / back_to_back * 1e-9,
                   "batch": calls, "batches": batches, "checked_elements": checked,
                   "max_normalised_error": error,
                   "verified": error <= ERROR_BOUND[precision]}
            rows.append(row)
            note(f"{shape_label(shape)} {precision} ({method}): per call {per_call * 1e3:.3f} ms "
                 f"{row['gflops']:.1f} GFLOP/s, back to back {back_to_back * 1e3:.3f} ms "
                 f"{row['back_to_back_gflops']:.1f} GFLOP/s, error {error:.2e}"
                 + ("" if row["verified"] else " WRONG"))
        if not epilogue:
            for pointer in (a, b, c):
                cuda.free(pointer)

    report = {"tool": "cublas_suite.py", "device": cuda.device_name,
              "cublas_version": cublas.version, "suite": suite,
              "max_size": args.max_size or None, "source": where,
              "timing": {"per_call": "median over calls, each cublasSgemm followed by "
                                     "cuCtxSynchronize (host wall time)",
                         "back_to_back": "median over batches of `batch` calls with one "
                                         "cuCtxSynchronize, divided by `batch`"},
              "results": rows, "geometric_means": geometric_means(rows)}
    text = json.dumps(report, indent=1) + "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
        note(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return 0 if all(r["verified"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
