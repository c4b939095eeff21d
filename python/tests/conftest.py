"""Shared fixtures of the Python tests: one Context for the whole session (its programs stay
built between tests, and the library's disk cache keeps them between runs), random float32
matrices and stacks of them in either storage order, and the float64 reference (with the
epilogue's bias and activation) and its error bound."""

import numpy as np
import pytest

import clgemm

# Unit roundoff of each precision mode's products: fp32, TF32 operands (10-bit mantissa), and
# 3xTF32 (the dropped lo*lo term, about 2^-22 relative).
_OPERAND_ROUNDING = {"fp32": 0.0, "tf32": 2.0 ** -11, "3xtf32": 2.0 ** -21}
_FP32_UNIT = 2.0 ** -24


@pytest.fixture(scope="session")
def ctx():
    return clgemm.Context()


@pytest.fixture
def rng():
    return np.random.default_rng(20261201)


def matrix(rng, rows, cols, order="C"):
    """A rows x cols float32 matrix of values in [-1, 1), C- or F-contiguous."""
    values = rng.uniform(-1.0, 1.0, size=(rows, cols)).astype(np.float32)
    return np.asfortranarray(values) if order == "F" else np.ascontiguousarray(values)


def op(x, trans):
    """op(x): x, or the transpose of each matrix of x (the last two axes)."""
    return np.swapaxes(x, -1, -2) if trans else x


def stack(rng, batch, rows, cols, order="C"):
    """A (batch, rows, cols) float32 stack; "C": C-contiguous, "F": each matrix F-contiguous
    (the transpose(0, 2, 1) view of a C-contiguous (batch, cols, rows) array)."""
    values = rng.uniform(-1.0, 1.0, size=(batch, rows, cols)).astype(np.float32)
    if order == "F":
        return np.ascontiguousarray(values.transpose(0, 2, 1)).transpose(0, 2, 1)
    return values


def activation(x, act):
    """The library's activations in float64 (clgemm/epilogue.hpp): ReLU(x) = x < 0 ? 0 : x,
    GELU in its tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) with GELU(-inf) = -0,
    clamp to [lo, hi] (float32 bounds); NaN stays NaN in each."""
    if act is None:
        return x
    if act == "relu":
        return np.where(x < 0, 0.0, x)
    if act == "gelu":
        with np.errstate(over="ignore", invalid="ignore"):
            u = np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)
            out = 0.5 * x * (1.0 + np.tanh(u))
        return np.where(x == -np.inf, -0.0, out)
    _, lo, hi = act
    return np.clip(x, np.float64(np.float32(lo)), np.float64(np.float32(hi)))


def assert_gemm(c, a, b, c0=None, alpha=1.0, beta=0.0, trans_a=False, trans_b=False,
                precision="fp32", bias=None, bias_along=None, act=None):
    """c matches act(alpha * op(a) @ op(b) + beta * c0 + bias) computed in float64, within
    the rounding bound of the products and sums (2 (K + 3) u |alpha| |op(a)| |op(b)| + ...),
    times 1.2 for the activation's slope, plus a few units in the last place of the
    activation itself. Stacks (3-D) broadcast as in numpy.matmul; a bias is a vector (shared)
    or one per product (2-D), along "m" (per row) or "n" (per column). Where the expected
    value is not finite (inf, NaN) c must hold the same."""
    a64, b64 = op(a, trans_a).astype(np.float64), op(b, trans_b).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        expected = alpha * (a64 @ b64)
        magnitude = abs(alpha) * (np.abs(a64) @ np.abs(b64))
        if beta != 0.0:
            expected = expected + beta * c0.astype(np.float64)
            magnitude = magnitude + abs(beta) * np.abs(c0.astype(np.float64))
        if bias is not None:
            v = bias.astype(np.float64)
            v = v[..., :, None] if bias_along == "m" else v[..., None, :]
            expected = expected + v
            magnitude = magnitude + np.abs(v)
        expected = activation(expected, act)
    k = a64.shape[-1]
    slope = 1.0 if act is None else 1.2
    bound = slope * (2 * _OPERAND_ROUNDING[precision] + 2 * (k + 3) * _FP32_UNIT) * magnitude
    bound = bound + 8 * _FP32_UNIT * np.abs(np.nan_to_num(expected)) + 1e-30
    assert c.shape == expected.shape
    finite = np.isfinite(expected)
    bound = np.where(finite & ~np.isnan(bound), bound, np.inf)  # inf inputs: no bound
    assert np.array_equal(c[~finite], expected[~finite], equal_nan=True), (
        f"non-finite values differ: {c[~finite]} for {expected[~finite]}")
    error = np.where(finite, np.abs(c.astype(np.float64) - np.nan_to_num(expected)), 0.0)
    error = np.where(np.isnan(error), np.inf, error)
    worst = np.unravel_index(np.argmax(error - bound), error.shape) if error.size else None
    assert np.all(error <= bound), (
        f"error {error[worst]:.3g} above the bound {bound[worst]:.3g} at {worst}")
