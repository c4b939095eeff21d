"""Shared fixtures of the Python tests: one Context for the whole session (its programs stay
built between tests, and the library's disk cache keeps them between runs), random float32
matrices in either storage order, and the float64 reference with its error bound."""

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
    return x.T if trans else x


def assert_gemm(c, a, b, c0=None, alpha=1.0, beta=0.0, trans_a=False, trans_b=False,
                precision="fp32"):
    """c matches alpha * op(a) @ op(b) + beta * c0 computed in float64, within the rounding
    bound of the products and sums (2 (K + 2) u |alpha| |op(a)| |op(b)| + ...)."""
    a64, b64 = op(a, trans_a).astype(np.float64), op(b, trans_b).astype(np.float64)
    expected = alpha * (a64 @ b64)
    magnitude = abs(alpha) * (np.abs(a64) @ np.abs(b64))
    if beta != 0.0:
        expected += beta * c0.astype(np.float64)
        magnitude += abs(beta) * np.abs(c0.astype(np.float64))
    k = a64.shape[1]
    bound = (2 * _OPERAND_ROUNDING[precision] + 2 * (k + 2) * _FP32_UNIT) * magnitude + 1e-30
    assert c.shape == expected.shape
    error = np.abs(c.astype(np.float64) - expected)
    worst = np.unravel_index(np.argmax(error - bound), error.shape) if error.size else None
    assert np.all(error <= bound), (
        f"error {error[worst]:.3g} above the bound {bound[worst]:.3g} at {worst}")
