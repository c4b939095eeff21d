"""The arguments of features the library does not run yet (a fused bias and activation, stacks
of matrices) are checked like the others, then refused with NotImplementedError."""

import numpy as np
import pytest

from conftest import matrix


@pytest.fixture
def ab(rng):
    return matrix(rng, 6, 4), matrix(rng, 4, 5)  # C is 6 x 5


@pytest.mark.parametrize("bias_length,bias_along", [(6, None), (5, None), (6, "m"), (5, "n")])
def test_bias_is_not_available_yet(ctx, ab, bias_length, bias_along):
    with pytest.raises(NotImplementedError, match=r"does not support a fused bias"):
        ctx.sgemm(*ab, bias=np.ones(bias_length, np.float32), bias_along=bias_along)


@pytest.mark.parametrize("act", ["relu", "gelu", ("clamp", 0.0, 1.0)])
def test_activation_is_not_available_yet(ctx, ab, act):
    with pytest.raises(NotImplementedError, match=r"does not support a fused activation"):
        ctx.sgemm(*ab, act=act)


def test_stacks_are_not_available_yet(ctx, rng):
    a = np.stack([matrix(rng, 6, 4)] * 3)
    with pytest.raises(NotImplementedError, match=r"does not support batched products"):
        ctx.sgemm(a, matrix(rng, 4, 5))


def test_bias_must_fit_c(ctx, ab):
    with pytest.raises(ValueError, match=r"^bias has length 7, but C is 6 x 5"):
        ctx.sgemm(*ab, bias=np.ones(7, np.float32))
    with pytest.raises(ValueError, match=r"^bias has length 6, but bias_along='n' needs 5"):
        ctx.sgemm(*ab, bias=np.ones(6, np.float32), bias_along="n")
    with pytest.raises(ValueError, match=r"^bias_along must be 'm'"):
        ctx.sgemm(*ab, bias=np.ones(6, np.float32), bias_along="rows")
    with pytest.raises(ValueError, match=r"^bias_along was given without a bias"):
        ctx.sgemm(*ab, bias_along="m")


def test_square_c_needs_bias_along(ctx, rng):
    a, b = matrix(rng, 5, 3), matrix(rng, 3, 5)
    with pytest.raises(ValueError, match=r"say bias_along='m'"):
        ctx.sgemm(a, b, bias=np.ones(5, np.float32))


def test_bias_type_and_layout(ctx, ab):
    with pytest.raises(TypeError, match=r"^bias has dtype float64"):
        ctx.sgemm(*ab, bias=np.ones(6))
    with pytest.raises(ValueError, match=r"^bias must be a vector"):
        ctx.sgemm(*ab, bias=np.ones((6, 1), np.float32))
    with pytest.raises(ValueError, match=r"^bias is a strided view"):
        ctx.sgemm(*ab, bias=np.ones(12, np.float32)[::2])
    with pytest.raises(TypeError, match=r"^bias must be a numpy.ndarray"):
        ctx.sgemm(*ab, bias=[1.0] * 6)


@pytest.mark.parametrize("act", ["tanh", ("clamp", 1.0, 0.0), ("clamp", "x", 1), ("relu",), 3])
def test_bad_activations(ctx, ab, act):
    with pytest.raises(ValueError, match=r"act"):
        ctx.sgemm(*ab, act=act)


def test_stacks_must_agree(ctx, rng):
    a = np.stack([matrix(rng, 6, 4)] * 3)
    b = np.stack([matrix(rng, 4, 5)] * 2)
    with pytest.raises(ValueError, match=r"stacks of matrices differ in length: a holds 3, b holds 2"):
        ctx.sgemm(a, b)
