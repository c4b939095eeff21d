"""clgemm.matmul: numpy.matmul's rules on the library's strided batched SGEMM.

``matmul(a, b)`` takes what ``numpy.matmul`` takes and gives what it gives, in float32: 2-D
matrices, stacks of them with any number of leading (batch) axes broadcast against each other,
and 1-D vectors promoted as numpy.matmul promotes them (a vector ``a`` is a row, a vector ``b``
a column, and the added axis is removed from the result). The batch axes become the library's
strided batch (``GemmProblem::batch``, ``stride_a/b/c``): a broadcast axis has stride 0, and
axes whose strides line up are merged into one batch, so a stack broadcast against a matrix or
against another stack is one library call; axes that cannot be merged (``(2, 1, M, K) @ (1, 3,
K, N)``) are looped over, one call per index of the outer ones.

Where ``Context.sgemm`` refuses, matmul converts: another dtype becomes float32 and an operand
the library cannot read in place (a strided or reversed view, a stack whose batch axis is
innermost, a list) is copied, unless ``copy=False`` forbids it (then ValueError). float64 (and
any float wider than float32, and complex) is still refused unless ``casting=`` asks for the
rounding, as numpy.can_cast spells it (``casting="same_kind"``): silently losing precision is
worse than an error. ``out=`` is written in place (through a temporary and a copy where the
library cannot write it directly, or where it shares memory with an operand).

The module-level :func:`matmul` runs on :func:`default_context`, one Context made on first use
(thread-safe); ``Context.matmul`` runs on a given one.
"""

import itertools
import threading

import numpy as np

from ._operands import _FLOAT_BYTES, _matrix_orders, cl, cl_array

CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")

_default_context = None
_default_lock = threading.Lock()


def default_context():
    """The Context the module-level clgemm.matmul runs on: clgemm.Context() (first GPU, else
    accelerator, else CPU, or $CLGEMM_PLATFORM / $CLGEMM_DEVICE), made on first use; one per
    process, shared by every thread. A failure to open it is raised, and retried next time."""
    global _default_context
    if _default_context is None:
        with _default_lock:
            if _default_context is None:
                from ._context import Context  # here: _context imports this module

                _default_context = Context()
    return _default_context


def _check_keywords(casting, copy):
    if casting is not None and not isinstance(casting, str):
        raise TypeError(f"casting must be None or a str, not {type(casting).__name__}")
    if casting is not None and casting not in CASTINGS:
        raise ValueError(f"casting must be None (the default: integers and smaller floats are "
                         f"converted, wider floats refused) or one of {', '.join(CASTINGS)}, "
                         f"not {casting!r}")
    if copy is not None and not isinstance(copy, (bool, np.bool_)):
        raise TypeError(f"copy must be None, True or False, not {type(copy).__name__}")


def _castable(dtype, casting):
    """Whether `dtype` may be converted to float32 under `casting` (None: the default rule,
    numpy's "safe" plus integers and booleans, which float32 holds exactly up to 2^24)."""
    if casting is None:
        return np.can_cast(dtype, np.float32, "safe") or dtype.kind in "biu"
    return np.can_cast(dtype, np.float32, casting)


def _operand(x, name, casting, copy):
    """x as a float32 numpy.ndarray of at least one axis, converted when it is not one."""
    if not isinstance(x, np.ndarray):
        if cl_array is not None and isinstance(x, (cl_array.Array, cl.MemoryObject)):
            raise TypeError(f"{name} is a PyOpenCL operand, but matmul computes on NumPy arrays: "
                            "use clgemm.Context.from_pyopencl(queue).sgemm on device arrays")
        if copy is False:
            raise ValueError(f"{name} is a {type(x).__name__}, not a numpy.ndarray, and making "
                             f"one is a copy that copy=False forbids: pass an array")
        x = np.asarray(x)
    elif type(x) is not np.ndarray:
        x = np.asarray(x)  # a subclass (numpy.matrix keeps 2 axes) as a plain view, no copy
    if x.ndim == 0:
        raise ValueError(f"{name} is a scalar (0-D), but matmul multiplies vectors and "
                         f"matrices (as numpy.matmul does): use * to scale")
    if x.dtype != np.float32:  # another type, or float32 in the other byte order
        if not _castable(x.dtype, casting):
            if x.dtype.kind == "f":
                fix = (f"pass casting='same_kind' to round it to float32, or "
                       f"{name}.astype(numpy.float32)")
                why = "would round it"
            else:
                fix = f"pass {name}.astype(numpy.float32) if that is what you mean"
                why = "cannot hold it"
            rule = "" if casting is None else f" under casting={casting!r}"
            raise TypeError(f"{name} has dtype {x.dtype}, but matmul computes in float32, which "
                            f"{why}{rule}: {fix}")
        if copy is False:
            raise ValueError(f"{name} has dtype {x.dtype}: converting it to float32 is a copy "
                             f"that copy=False forbids")
        try:
            x = x.astype(np.float32)
        except (TypeError, ValueError) as error:
            raise TypeError(f"{name} of dtype {x.dtype} cannot be converted to float32: "
                            f"{error}") from None
    return x


def _readable(x):
    """Whether the library reads (or writes) x in place: aligned, each matrix (the last two
    axes) C- or F-contiguous, and the other axes' strides non-negative whole floats."""
    if x.size == 0:
        return True
    if not x.flags.aligned:
        return False
    if any(s % _FLOAT_BYTES or (s < 0 and i < x.ndim - 2)
           for i, (s, size) in enumerate(zip(x.strides, x.shape)) if size > 1):
        return False
    rows, cols = x.shape[-2:]
    return bool(_matrix_orders(rows, cols, x.strides[-2] // _FLOAT_BYTES,
                               x.strides[-1] // _FLOAT_BYTES))


def _in_place(x, name, copy):
    """x itself when the library can read it, else a C-contiguous copy (ValueError when
    copy=False forbids it)."""
    if _readable(x):
        return x
    if copy is False:
        raise ValueError(f"{name} (shape {tuple(x.shape)}, strides {tuple(x.strides)} bytes) "
                         "cannot be read in place: each matrix must be C- or F-contiguous and "
                         "the stack's strides non-negative; copying it is what copy=False "
                         "forbids")
    return np.ascontiguousarray(x)


def _batch_groups(batch, operands):
    """Splits the batch axes into outer axes, looped over, and one inner group merged into a
    single strided batch: (outer axes, inner axes, the inner group's stride of each operand
    in bytes). Axes of length 1 are in neither. The inner group grows outward from the last
    axis while every operand's strides line up (stride[d] == stride[inner] * length)."""
    axes = [i for i, length in enumerate(batch) if length != 1]
    if not axes:
        return [], [], [0] * len(operands)
    inner = [axes[-1]]
    strides = [x.strides[axes[-1]] for x in operands]
    count = batch[axes[-1]]
    for axis in reversed(axes[:-1]):
        if all(x.strides[axis] == s * count for x, s in zip(operands, strides)):
            inner.insert(0, axis)
            count *= batch[axis]
        else:
            break
    outer = [axis for axis in axes if axis not in inner]
    return outer, inner, strides


def matmul(context, a, b, out=None, *, casting=None, copy=None, precision="fp32",
           kernel="auto", return_records=False):
    """numpy.matmul(a, b, out) in float32 on `context` (see the module's docstring)."""
    _check_keywords(casting, copy)
    a = _operand(a, "a", casting, copy)
    b = _operand(b, "b", casting, copy)
    a2 = a[np.newaxis, :] if a.ndim == 1 else a  # numpy.matmul's promotion of vectors
    b2 = b[:, np.newaxis] if b.ndim == 1 else b
    (m, k), (k_b, n) = a2.shape[-2:], b2.shape[-2:]
    if k != k_b:
        which = "only axis" if b.ndim == 1 else "second-to-last axis"
        raise ValueError(f"a has shape {a.shape} and b {b.shape}: the last axis of a ({k}) "
                         f"must match the {which} of b ({k_b})")
    try:
        batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    except ValueError:
        raise ValueError(f"a has shape {a.shape} and b {b.shape}: their stacks (the axes "
                         f"before the last two) do not broadcast, as numpy.matmul needs (each "
                         f"axis equal, or 1 in one of them)") from None
    shape = batch + ((m,) if a.ndim > 1 else ()) + ((n,) if b.ndim > 1 else ())
    if out is not None:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out must be a numpy.ndarray, not {type(out).__name__}")
        if out.dtype != np.float32:
            raise TypeError(f"out has dtype {out.dtype}, but matmul's results are float32: "
                            f"pass a float32 out (or none)")
        if out.shape != shape:
            raise ValueError(f"out has shape {out.shape}, but the product is {shape}")
        if not out.flags.writeable:
            raise ValueError("out is read-only, but matmul writes the result into it")

    a2, b2 = _in_place(a2, "a", copy), _in_place(b2, "b", copy)
    temporary = False  # whether the result goes through a temporary into out
    if out is None:
        result = np.empty(batch + (m, n), np.float32)
        target = result
    else:
        result = out
        target = out if a.ndim > 1 else np.expand_dims(out, len(batch))
        target = target if b.ndim > 1 else np.expand_dims(target, len(batch) + 1)
        if (not _readable(target) or np.may_share_memory(target, a2)
                or np.may_share_memory(target, b2)):
            if copy is False:
                raise ValueError("out cannot be written in place (its matrices are not C- or "
                                 "F-contiguous, or it shares memory with a or b); writing "
                                 "through a temporary is a copy that copy=False forbids")
            target, temporary = np.empty(batch + (m, n), np.float32), True

    records = []
    if target.size:
        operands = [np.broadcast_to(a2, batch + (m, k)), np.broadcast_to(b2, batch + (k, n)),
                    target]
        outer, inner, strides = _batch_groups(batch, operands)
        count = int(np.prod([batch[axis] for axis in inner], dtype=np.int64))
        for index in itertools.product(*(range(batch[axis]) for axis in outer)):
            at = dict(zip(outer, index))
            at = tuple(at.get(axis, 0) for axis in range(len(batch)))
            views = []
            for x, stride in zip(operands, strides):
                first = x[at]  # the first matrix of the group at this outer index
                if inner:  # the group: `count` matrices, `stride` bytes apart (0: broadcast)
                    first = np.lib.stride_tricks.as_strided(
                        first, (count,) + first.shape, (stride,) + first.strides,
                        writeable=x is target)
                views.append(first)
            _, record = context.sgemm(*views, precision=precision, kernel=kernel,
                                      return_record=True)
            records.append(record)
        if temporary:
            np.copyto(out, _squeeze(target, a, b))
    if out is None:
        result = _squeeze(result, a, b)
        if result.ndim == 0:
            result = result[()]  # as numpy.matmul: two vectors give a scalar
    return (result, records) if return_records else result


def _squeeze(c, a, b):
    """C without the axes that promoted a vector a (rows) or b (columns)."""
    if b.ndim == 1:
        c = c[..., 0]
    if a.ndim == 1:
        c = c[..., 0, :] if b.ndim > 1 else c[..., 0]
    return c
