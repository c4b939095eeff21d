"""sgemm's epilogue arguments, ``bias=``, ``bias_along=`` and ``act=``, in one checked form.

The epilogue is applied to each element of C after alpha * op(A) * op(B) + beta * C: a bias
from a vector (one value per row of C, "m", or per column, "n"), then an activation: "relu",
"gelu" (the tanh form) or ("clamp", lo, hi). :func:`describe_epilogue` checks the arguments'
types and lengths; whether the library can run the epilogue is decided in
``_problem.refuse_unavailable``.
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

    bias: object = None  # a 1-D float32 vector of the operands' kind, or None
    bias_along: Optional[str] = None  # "m": bias[i] is added to row i; "n": to column j
    activation: str = "none"  # "none", "relu", "gelu" or "clamp"
    clamp_range: Optional[Tuple[float, float]] = None  # (lo, hi) for "clamp"

    @property
    def is_identity(self):
        return self.bias is None and self.activation == "none"


def _bias_direction(length, bias_along, m, n):
    """ "m" or "n" for a bias of `length` on an m x n C; ValueError when it fits neither."""
    if bias_along is not None:
        if bias_along not in ("m", "n"):
            raise ValueError(f"bias_along must be 'm' (per row) or 'n' (per column), "
                             f"not {bias_along!r}")
        wanted = m if bias_along == "m" else n
        if length != wanted:
            raise ValueError(f"bias has length {length}, but bias_along={bias_along!r} "
                             f"needs {wanted} (C is {m} x {n})")
        return bias_along
    if length == m and length == n:
        raise ValueError(f"bias has length {length} and C is {m} x {n}: say bias_along='m' "
                         f"(one value per row) or bias_along='n' (one per column)")
    if length == m:
        return "m"
    if length == n:
        return "n"
    raise ValueError(f"bias has length {length}, but C is {m} x {n}: a bias holds one value "
                     f"per row (M = {m}) or per column (N = {n})")


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


def describe_epilogue(bias, bias_along, act, m, n, kind):
    """The checked Epilogue for C of m x n, with operands of `kind` (HOST or DEVICE)."""
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
    if bias.ndim != 1:
        raise ValueError(f"bias must be a vector (1-D), but it has shape {tuple(bias.shape)}")
    if bias.shape[0] > 1 and bias.strides[0] != bias.dtype.itemsize:
        raise ValueError(f"bias is a strided view (stride {bias.strides[0]} bytes): "
                         f"pass a contiguous copy")
    along = _bias_direction(bias.shape[0], bias_along, m, n)
    return Epilogue(bias=bias, bias_along=along, activation=activation, clamp_range=clamp_range)
