"""sgemm's epilogue arguments, ``bias=``, ``bias_along=`` and ``act=``, in one checked form.

The epilogue is applied to each element of C after alpha * op(A) * op(B) + beta * C: a bias
from a vector (one value per column of C, ``bias_along="cols"``, the default, as in
torch.nn.functional.linear; or one per row, ``"rows"``), then an activation: "relu",
"gelu" (the tanh form) or ("clamp", lo, hi). For a batched call the bias is one vector shared
by every product, or a (batch, length) array of one vector per product (each row contiguous;
a first axis of 1 is shared too). :func:`describe_epilogue` checks the arguments' types,
shapes and lengths; ``_problem.gemm_problem`` puts the result into the library's Epilogue.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from ._operands import HOST, operand_kind

ACTIVATIONS = ("relu", "gelu")
_ACT_FORMS = "None, 'relu', 'gelu' or ('clamp', lo, hi)"


@dataclass(frozen=True)
class Epilogue:
    """What to apply to C after the product (see the module's docstring)."""

    bias: object = None  # a float32 vector (or a batch of them) of the operands' kind, or None
    bias_along: Optional[str] = None  # "m": bias[i] is added to row i; "n": to column j
    bias_stride: int = 0  # elements between the vectors of consecutive products (0: shared)
    bias_offset: int = 0  # device path: elements from the buffer's start to the vector
    activation: str = "none"  # "none", "relu", "gelu" or "clamp"
    clamp_range: Optional[Tuple[float, float]] = None  # (lo, hi) for "clamp"

    @property
    def is_identity(self):
        return self.bias is None and self.activation == "none"


# bias_along's names: one value per row of C ("rows", M values) or per column ("cols", N
# values); "m" and "n", the names of earlier versions, are the same two.
_ALONG = {"rows": "m", "cols": "n", "m": "m", "n": "n"}


def _bias_direction(length, bias_along, m, n):
    """ "m" (per row) or "n" (per column) for a bias of `length` on an m x n C. The direction
    is said, never guessed from the length: None is "cols", one value per column, as in
    torch.nn.functional.linear (a bias along the last axis). ValueError for another name, or
    a length that is not the one the direction needs (naming the other direction when the
    length fits it)."""
    if bias_along is not None and (not isinstance(bias_along, str) or bias_along not in _ALONG):
        raise ValueError(f"bias_along must be 'rows' (one value per row of C) or 'cols' (one "
                         f"per column, the default), not {bias_along!r}")
    along = _ALONG[bias_along if bias_along is not None else "cols"]
    wanted = m if along == "m" else n
    if length == wanted:
        return along
    other = "rows" if along == "n" else "cols"
    hint = (f"; for one value per {other[:-1]}, pass bias_along={other!r}"
            if length == (m if other == "rows" else n) else "")
    if bias_along is None:
        raise ValueError(f"bias has length {length}, but C is {m} x {n}: a bias holds one "
                         f"value per column (N = {n}) unless bias_along says otherwise, as in "
                         f"torch.nn.functional.linear{hint}")
    unit = "row" if along == "m" else "column"
    raise ValueError(f"bias has length {length}, but bias_along={bias_along!r} needs {wanted} "
                     f"(one value per {unit}; C is {m} x {n}){hint}")


def _activation(act):
    """(name, clamp range) for an ``act=`` argument; ValueError naming the accepted forms."""
    if act is None or (isinstance(act, str) and act == "none"):
        return "none", None
    if isinstance(act, str):
        if act in ACTIVATIONS:
            return act, None
        raise ValueError(f"act must be {_ACT_FORMS}, not {act!r}")
    if isinstance(act, (tuple, list)) and len(act) == 3 and act[0] == "clamp":
        try:
            lo, hi = float(act[1]), float(act[2])
        except (TypeError, ValueError):
            raise ValueError(f"act=('clamp', lo, hi) needs numbers, got {tuple(act)!r}") from None
        if not lo <= hi:
            raise ValueError(f"act=('clamp', lo, hi) needs lo <= hi, got lo={lo}, hi={hi}")
        return "clamp", (lo, hi)
    raise ValueError(f"act must be {_ACT_FORMS}, not {act!r}")


def _bias_vectors(bias, batch):
    """(vector length, stride in elements between the vectors) of a checked bias array."""
    item = bias.dtype.itemsize
    if bias.ndim == 1 or batch is None:
        if bias.ndim != 1:
            raise ValueError(f"bias must be a vector (1-D), but it has shape {tuple(bias.shape)}"
                             " (a 2-D bias, one vector per product, goes with 3-D operands)")
        if bias.shape[0] > 1 and bias.strides[0] != item:
            raise ValueError(f"bias is a strided view (stride {bias.strides[0]} bytes): "
                             f"pass a contiguous copy")
        return bias.shape[0], 0
    if bias.ndim != 2:
        raise ValueError(f"bias must be a vector (1-D) or one vector per product (2-D), "
                         f"but it has shape {tuple(bias.shape)}")
    count, length = bias.shape
    if count not in (1, batch):
        raise ValueError(f"bias holds {count} vectors, but the batch has {batch} products "
                         f"(give one vector per product, or a single one)")
    row, column = bias.strides
    if (length > 1 and column != item) or (count > 1 and (row < 0 or row % item)):
        raise ValueError(f"bias is a strided view (strides {tuple(bias.strides)} bytes): each "
                         f"vector must be contiguous; pass a contiguous copy")
    return length, (row // item if count > 1 else 0)


def describe_epilogue(bias, bias_along, act, m, n, kind, batch=None):
    """The checked Epilogue for C of m x n (a stack of `batch` of them, None for one matrix),
    with operands of `kind` (HOST or DEVICE)."""
    activation, clamp_range = _activation(act)
    if bias is None:
        if bias_along is not None:
            raise ValueError("bias_along was given without a bias")
        return Epilogue(activation=activation, clamp_range=clamp_range)
    if operand_kind(bias, "bias") != kind or not hasattr(bias, "dtype"):
        wanted = "a numpy.ndarray" if kind == HOST else "a pyopencl.array.Array"
        raise TypeError(f"bias must be {wanted}, like the other operands, "
                        f"not {type(bias).__name__}")
    if bias.dtype != np.float32:
        raise TypeError(f"bias has dtype {bias.dtype}, but sgemm computes in float32: "
                        f"pass bias.astype(numpy.float32)")
    length, stride = _bias_vectors(bias, batch)
    along = _bias_direction(length, bias_along, m, n)
    offset = 0
    if kind != HOST:
        if bias.offset % bias.dtype.itemsize:
            raise ValueError(f"bias starts {bias.offset} bytes into its buffer, not at a float")
        offset = bias.offset // bias.dtype.itemsize
    return Epilogue(bias=bias, bias_along=along, bias_stride=stride, bias_offset=offset,
                    activation=activation, clamp_range=clamp_range)
