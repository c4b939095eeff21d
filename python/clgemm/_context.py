"""clgemm.Context: one OpenCL device, and sgemm on NumPy arrays or on PyOpenCL arrays and
buffers (and matmul, numpy.matmul's rules, on NumPy arrays: clgemm/_matmul.py).

On NumPy arrays the call blocks and C holds the result when it returns. On PyOpenCL operands
it is enqueued on the caller's queue, with no host round trip: the library's buffer path,
inside the caller's OpenCL context (so the Context must come from
:meth:`Context.from_pyopencl`). The record of what ran comes back with ``return_record=True``.
"""

import numpy as np

from . import _clgemm, _matmul
from ._epilogue import describe_epilogue
from ._operands import (DEVICE, HOST, cl, cl_array, common_kind, describe_array,
                        describe_buffer, is_buffer)
from ._problem import check_result_shape, gemm_problem, product_batch, product_sizes


def _selector(value, name):
    """A DeviceRequest field: "" (the default), an index or a name's substring."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(f"{name} must be None, an index or a name's substring, "
                        f"not {type(value).__name__}")
    if isinstance(value, int) and value < 0:
        raise ValueError(f"{name} index {value} is negative")
    return str(value)


# The BLAS transpose letters: "C" (conjugate transpose) is the transpose of a real matrix.
_TRANSPOSE_LETTERS = {"N": False, "T": True, "C": True}


def transpose_flag(value, name):
    """trans_a / trans_b as a bool: False / True, or a BLAS letter "N", "T" or "C" (either
    case). TypeError for another type (an int, None, ...), ValueError for another string:
    the flag is never read for its truthiness, in which "N" would mean "transpose"."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str):
        flag = _TRANSPOSE_LETTERS.get(value.upper())
        if flag is None:
            raise ValueError(f"{name} must be False, True or a BLAS letter 'N' (no transpose), "
                             f"'T' or 'C' (transpose), not {value!r}")
        return flag
    raise TypeError(f"{name} must be a bool or a BLAS letter 'N', 'T' or 'C', "
                    f"not {type(value).__name__}")


def _require_str(value, name):
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    return value


def _describe_operands(kind, a, b, c, trans_a, trans_b, sizes):
    """The Matrix of each operand (None for a missing c), (M, N, K) and the stack length.
    `sizes` are the m=, n=, k= arguments: needed for bare pyopencl.Buffer operands, which
    carry no shape, and refused with arrays, which do."""
    bare = [name for name, x in (("a", a), ("b", b), ("c", c)) if is_buffer(x)]
    if bare and None in sizes:
        raise TypeError(f"{', '.join(bare)} {'is a' if len(bare) == 1 else 'are'} bare "
                        "pyopencl.Buffer: give the sizes m=, n=, k= (or pass arrays)")
    if not bare and sizes != (None, None, None):
        raise TypeError("m=, n=, k= go with bare pyopencl.Buffer operands; "
                        "arrays carry their shapes")
    m, n, k = sizes

    def describe(x, name, rows, cols, writable=False):
        if is_buffer(x):
            return describe_buffer(x, name, rows, cols)
        return describe_array(x, name, kind, writable)

    a_m = describe(a, "a", *((k, m) if trans_a else (m, k)))
    b_m = describe(b, "b", *((n, k) if trans_b else (k, n)))
    m, n, k = product_sizes(a_m, b_m, trans_a, trans_b)
    c_m = describe(c, "c", m, n, writable=True) if c is not None else None
    batch = product_batch(a_m, b_m)
    if c_m is not None:
        check_result_shape(c_m, m, n, batch)
    return a_m, b_m, c_m, (m, n, k), batch


class Context:
    """One OpenCL device and the programs built for it; safe to use from several threads.

    ``Context(platform=None, device=None)`` opens a device: each selector is an index or a
    case-insensitive substring of the name (``clgemm.list_devices()`` shows both); None falls
    back to $CLGEMM_PLATFORM / $CLGEMM_DEVICE, then to the first GPU, else accelerator, else
    CPU. :meth:`from_pyopencl` works inside a PyOpenCL context instead.
    """

    def __init__(self, platform=None, device=None):
        self._native = _clgemm.Context(_selector(platform, "platform"),
                                       _selector(device, "device"))
        self._queue = None  # the default queue of a Context made from a PyOpenCL queue

    @classmethod
    def from_pyopencl(cls, context_or_queue, device=None):
        """A Context inside a PyOpenCL context (retained, not taken over), so that sgemm runs
        on PyOpenCL arrays and buffers of it. Given a CommandQueue, its context and device are
        used and it becomes the default queue of sgemm calls on PyOpenCL operands; given a
        pyopencl.Context, `device` (default: its first device) is used."""
        if cl is None:
            raise ImportError("Context.from_pyopencl needs PyOpenCL: pip install pyopencl")
        queue = None
        if isinstance(context_or_queue, cl.CommandQueue):
            queue = context_or_queue
            context, device = queue.context, device or queue.device
        elif isinstance(context_or_queue, cl.Context):
            context, device = context_or_queue, device or context_or_queue.devices[0]
        else:
            raise TypeError("from_pyopencl takes a pyopencl.CommandQueue or pyopencl.Context, "
                            f"not {type(context_or_queue).__name__}")
        self = cls.__new__(cls)
        self._native = _clgemm.Context.from_opencl(context.int_ptr, device.int_ptr)
        self._queue = queue
        return self

    @property
    def device(self):
        """The device's DeviceLimits (name, vendor, type, platform_name, memory sizes, ...)."""
        return self._native.device

    @property
    def cl_context(self):
        """The cl_context handle as an integer (what PyOpenCL's int_ptr gives)."""
        return self._native.cl_context

    @property
    def cl_device(self):
        """The cl_device_id handle as an integer."""
        return self._native.cl_device

    def has_tensor_cores(self):
        """Whether tf32 and 3xtf32 run on tensor cores here (else on a portable kernel)."""
        return self._native.has_tensor_cores()

    def warm_up(self, kernel="auto", precision="fp32", progress=None):
        """Builds ahead every program a call with `kernel` (default "auto": every kernel auto
        may choose on this device) and `precision` may need, in every variant (transposes,
        alignment, split K) with its helper kernels, so that later calls compile nothing;
        bias and activation variants are built on demand. Programs already built or in the
        disk cache are left; the others are compiled and stored there. `progress`, when given,
        is called after each program with a dict (index, total, kernel, build_options,
        outcome: "in memory", "on disk", "compiled" or "failed", seconds, error). Returns a
        dict: programs, compiled, on_disk, in_memory, failed, seconds, first_error."""
        _require_str(kernel, "kernel")
        _require_str(precision, "precision")
        return self._native.warm_up(kernel, precision, progress)

    @property
    def warming_in_background(self):
        """Whether the background warming this Context started when it opened (CLGEMM_WARM:
        by default on GPUs, not on CPUs) is still running."""
        return self._native.warming_in_background

    def __repr__(self):
        return f"clgemm.Context(device={self.device.name!r})"

    def sgemm(self, a, b, c=None, alpha=1.0, beta=0.0, trans_a=False, trans_b=False,
              precision="fp32", kernel="auto", bias=None, act=None, *, bias_along=None,
              queue=None, wait_for=None, m=None, n=None, k=None, return_record=False):
        """C = alpha * op(A) @ op(B) + beta * C, with op(X) = X.T where trans_x.

        a, b, c: float32 matrices, all NumPy arrays (the call blocks) or all PyOpenCL arrays
            or buffers (the call is enqueued). Each may be C-contiguous (row-major) or
            F-contiguous (column-major), in any mix; strided views are refused. c=None
            returns a new C-contiguous array (then beta must be 0); a given c is written in
            place and returned. As in BLAS, beta = 0 never reads c (NaN there is overwritten).
            Batched: 3-D arrays are stacks of matrices, (batch, M, K) @ (batch, K, N) ->
            (batch, M, N), each matrix C- or F-contiguous, any whole number of floats
            between matrices; a 2-D a or b, or a stack of 1, is broadcast to the batch. c
            must then have the batch dimension, and its matrices must not overlap.
        trans_a, trans_b: False / True, or the BLAS letters "N" (no transpose), "T" or "C"
            (transpose; either case). Anything else is a TypeError or ValueError.
        precision: "fp32" (default), "tf32" or "3xtf32".
        kernel: "auto" (default), a name from clgemm.kernels(), or a name with parameter
            overrides such as "coarsened:TILE=16,ITEM=4".
        bias, bias_along, act: the fused epilogue, C = act(alpha * op(A) @ op(B) + beta * C
            + bias): a float32 vector of the operands' kind (a pyopencl.array.Array on the
            device path), bias[j] added to column j (bias_along="cols", the default when
            None, as in torch.nn.functional.linear) or bias[i] to row i ("rows"; "n" and
            "m" are the older names of the two); never guessed from the length; batched, also a
            (batch, length) array of one vector per product. act: None, "relu", "gelu" (the
            tanh form) or ("clamp", lo, hi); NaN stays NaN in each.
        queue: PyOpenCL operands only: the queue to enqueue on (default: c's, else a's or
            b's queue, else the queue the Context was made from). wait_for: events the call
            waits for, besides the operands' own. m, n, k: the sizes, for bare
            pyopencl.Buffer operands only (packed row-major matrices).
        return_record: return (c, record), the GemmRecord of what ran (kernel,
            kernel_choice, options, precision_path, launches, batch, epilogue, ...),
            instead of c.

        Raises TypeError / ValueError for arguments of the wrong type, layout or shape
        (naming the argument), clgemm.Error for what the library refuses or fails at, and
        KeyboardInterrupt when a Ctrl-C came during the call (raised once it returns: the
        library cannot be stopped mid-call). The first call of a kernel variant that is still
        building after a second says so on stderr ($CLGEMM_BUILD_NOTICE: seconds, or "off").
        """
        kind = common_kind((("a", a), ("b", b), ("c", c)))
        trans_a, trans_b = transpose_flag(trans_a, "trans_a"), transpose_flag(trans_b, "trans_b")
        precision = _require_str(precision, "precision")
        kernel = _require_str(kernel, "kernel")
        alpha, beta = float(alpha), float(beta)
        if kind == HOST and (queue is not None or wait_for is not None):
            raise TypeError("queue= and wait_for= go with PyOpenCL operands, not NumPy arrays")
        a_m, b_m, c_m, (m, n, k), batch = _describe_operands(kind, a, b, c, trans_a, trans_b,
                                                             (m, n, k))
        if c_m is None and beta != 0.0:
            raise ValueError(f"beta = {beta} scales c, but no c was given")
        epilogue = describe_epilogue(bias, bias_along, act, m, n, kind, batch)
        shape = (m, n) if batch is None else (batch, m, n)

        if kind == HOST:
            if c is None:
                c = np.empty(shape, dtype=np.float32)
                c_m = describe_array(c, "c", kind, writable=True)
            problem = gemm_problem(a_m, b_m, c_m, m, n, k, alpha, beta, trans_a, trans_b,
                                   batch, epilogue)
            record = self._native.sgemm_host(problem, a, b, c, kernel, precision,
                                             epilogue.bias)
        else:
            queue = self._queue_for(queue, a, b, c)
            if c is None:
                c = cl_array.empty(queue, shape, np.float32)
                c_m = describe_array(c, "c", kind, writable=True)
            problem = gemm_problem(a_m, b_m, c_m, m, n, k, alpha, beta, trans_a, trans_b,
                                   batch, epilogue)
            record = self._enqueue(problem, (a_m, b_m, c_m), epilogue.bias, queue, wait_for,
                                   kernel, precision)
        return (c, record) if return_record else c

    def matmul(self, a, b, out=None, *, casting=None, copy=None, precision="fp32",
               kernel="auto", return_records=False):
        """numpy.matmul(a, b, out=out) in float32 on this Context; see clgemm.matmul."""
        return _matmul.matmul(self, a, b, out, casting=casting, copy=copy, precision=precision,
                              kernel=kernel, return_records=return_records)

    def _queue_for(self, queue, *operands):
        """The queue of a device call: the given one, else an operand's, else the default."""
        if queue is None:
            arrays = [x for x in reversed(operands) if isinstance(x, cl_array.Array)]
            queue = next((x.queue for x in arrays if x.queue is not None), self._queue)
        if queue is None:
            raise ValueError("no queue to enqueue on: pass queue=, or make the Context with "
                             "clgemm.Context.from_pyopencl(queue)")
        if not isinstance(queue, cl.CommandQueue):
            raise TypeError(f"queue must be a pyopencl.CommandQueue, not {type(queue).__name__}")
        if queue.context.int_ptr != self._native.cl_context:
            raise ValueError("the queue belongs to another OpenCL context than this Context: "
                             "make the Context with clgemm.Context.from_pyopencl(queue)")
        return queue

    def _enqueue(self, problem, matrices, bias, queue, wait_for, kernel, precision):
        """The library's buffer path on `queue`; the completion event goes to C's array."""
        events = list(wait_for or [])
        for x in matrices:
            if isinstance(x.array, cl_array.Array):
                events.extend(x.array.events)
        handles = [x.buffer.int_ptr if x.buffer is not None else 0 for x in matrices]
        bias_handle = 0
        if bias is not None:
            events.extend(bias.events)
            bias_handle = bias.base_data.int_ptr if bias.base_data is not None else 0
        record, done = self._native.sgemm_buffers(problem, *handles, queue.int_ptr, kernel,
                                                  precision, [e.int_ptr for e in events],
                                                  bias_handle)
        c = matrices[2].array
        if done:
            event = cl.Event.from_int_ptr(done, retain=False)
            if isinstance(c, cl_array.Array):
                c.add_event(event)
        return record
