"""Describing sgemm's operands as matrices the library can read.

An operand is a NumPy array (the host path) or a PyOpenCL array or buffer (the device path).
Each becomes a :class:`Matrix`: its rows and columns, the storage orders it can be read in
("C": row-major, "F": column-major; both for a vector or an empty matrix), and where its
elements are. A 3-D operand is a stack of matrices: ``batch`` is its first axis and
``batch_stride`` the elements between consecutive matrices (any whole number of them, 0 for
a stack of one); each matrix must be C- or F-contiguous on its own, as a C-contiguous stack
or its ``transpose(0, 2, 1)`` view is. Everything else is refused here, naming the argument:
another dtype (TypeError), a strided or misaligned view, a stack whose matrices are not
contiguous, or a rank other than 2 or 3 (ValueError), host and device operands mixed
(TypeError).
"""

from dataclasses import dataclass
from typing import FrozenSet, Optional

import numpy as np

try:  # the device path needs PyOpenCL; the host path does not
    import pyopencl as cl
    import pyopencl.array as cl_array
except ImportError:  # pragma: no cover - exercised where PyOpenCL is missing
    cl = None
    cl_array = None

HOST = "host"  # NumPy arrays
DEVICE = "device"  # pyopencl.array.Array or pyopencl.Buffer

_FLOAT_BYTES = 4


@dataclass(frozen=True)
class Matrix:
    """One operand as the library reads it (see the module's docstring)."""

    name: str  # "a", "b" or "c", for messages
    kind: str  # HOST or DEVICE
    rows: int
    cols: int
    orders: FrozenSet[str]  # the storage orders that describe it: {"C"}, {"F"} or both
    batch: Optional[int] = None  # None for a matrix (2-D), the stack's length for 3-D
    batch_stride: int = 0  # elements between consecutive matrices of a stack
    array: object = None  # the numpy.ndarray or pyopencl.array.Array, when there is one
    buffer: object = None  # device path: the pyopencl.Buffer holding the elements
    offset: int = 0  # device path: elements from the buffer's start to the first element

    def leading_dimension(self, order):
        """Elements between consecutive rows ("C") or columns ("F"), at least 1."""
        return max(1, self.cols if order == "C" else self.rows)


def operand_kind(x, name):
    """HOST or DEVICE for a supported operand; TypeError naming `name` for anything else."""
    if isinstance(x, np.ndarray):
        return HOST
    if cl_array is not None and isinstance(x, (cl_array.Array, cl.MemoryObject)):
        return DEVICE
    device = ", a pyopencl.array.Array or a pyopencl.Buffer" if cl is not None else ""
    raise TypeError(f"{name} must be a numpy.ndarray{device}, not {type(x).__name__}")


def common_kind(named_operands):
    """The kind every given operand shares; TypeError when host and device ones are mixed."""
    kinds = {name: operand_kind(x, name) for name, x in named_operands if x is not None}
    if len(set(kinds.values())) > 1:
        listed = ", ".join(f"{name} is a {kind} operand" for name, kind in kinds.items())
        raise TypeError(
            f"{listed}: pass all of them as NumPy arrays, or all as PyOpenCL arrays or buffers"
        )
    return next(iter(kinds.values()))


def _matrix_orders(rows, cols, row_stride, col_stride):
    """The orders whose strides (in elements) these are; a line of one element has any stride."""
    orders = set()
    if (rows <= 1 or row_stride == cols) and (cols <= 1 or col_stride == 1):
        orders.add("C")
    if (rows <= 1 or row_stride == 1) and (cols <= 1 or col_stride == rows):
        orders.add("F")
    if rows == 0 or cols == 0:
        orders = {"C", "F"}
    return frozenset(orders)


def describe_array(x, name, kind, writable=False):
    """A Matrix for a numpy.ndarray or pyopencl.array.Array (2-D, or 3-D for a stack)."""
    if x.dtype != np.float32:
        raise TypeError(
            f"{name} has dtype {x.dtype}, but sgemm computes in float32: "
            f"pass {name}.astype(numpy.float32)"
        )
    if x.ndim not in (2, 3):
        raise ValueError(
            f"{name} must be a matrix (2-D) or a stack of matrices (3-D), "
            f"but it has shape {tuple(x.shape)}"
        )
    if kind == HOST:
        if not x.flags.aligned:
            raise ValueError(f"{name} is not aligned to 4 bytes: pass {name}.copy()")
        if writable and not x.flags.writeable:
            raise ValueError(f"{name} is read-only, but sgemm writes the result into it")
    strides = tuple(x.strides)
    if x.size == 0:  # nothing is read or written: any order describes it
        orders = frozenset("CF")
    elif any(s % _FLOAT_BYTES for s, size in zip(strides, x.shape) if size > 1):
        orders = frozenset()
    else:
        rows, cols = x.shape[-2:]
        orders = _matrix_orders(
            rows, cols, strides[-2] // _FLOAT_BYTES, strides[-1] // _FLOAT_BYTES
        )
    batch, batch_stride = None, 0
    if x.ndim == 3:
        batch = x.shape[0]
        batch_stride = strides[0] // _FLOAT_BYTES if batch > 1 and x.size else 0
        if batch_stride < 0:
            orders = frozenset()
    if not orders:
        copy = f"numpy.ascontiguousarray({name})" if kind == HOST else f"{name}.copy()"
        what = ("each matrix of a stack (the last two axes) must be C- or F-contiguous, with "
                "a non-negative whole number of floats between matrices" if x.ndim == 3 else
                "sgemm reads C- or F-contiguous matrices")
        raise ValueError(
            f"{name} is a strided view (shape {tuple(x.shape)}, strides {strides} bytes): "
            f"{what}; pass {copy}"
        )
    matrix = dict(name=name, kind=kind, rows=x.shape[-2], cols=x.shape[-1], orders=orders,
                  batch=batch, batch_stride=batch_stride, array=x)
    if kind == DEVICE:
        if x.offset % _FLOAT_BYTES:
            raise ValueError(f"{name} starts {x.offset} bytes into its buffer, not at a float")
        matrix.update(buffer=x.base_data, offset=x.offset // _FLOAT_BYTES)
    return Matrix(**matrix)


def describe_buffer(buffer, name, rows, cols):
    """A Matrix for a pyopencl.Buffer holding a packed row-major rows x cols matrix."""
    return Matrix(name=name, kind=DEVICE, rows=rows, cols=cols, orders=frozenset("C"),
                  buffer=buffer)


def is_buffer(x):
    """Whether x is a bare pyopencl.Buffer (which carries no shape), not an array."""
    return cl is not None and isinstance(x, cl.MemoryObject)
