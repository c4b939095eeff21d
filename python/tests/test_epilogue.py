"""The fused epilogue on NumPy arrays, C = act(alpha * op(A) @ op(B) + beta * C + bias), against
float64 NumPy: a bias per row or per column, each activation (values around their kinks, and
infinities and NaN: ReLU(x) = x < 0 ? 0 : x, GELU's tanh form with GELU(-inf) = -0, clamp; NaN
stays NaN in each), with storage orders and transposes, batched with a shared bias or one per
product, the record, and every error of the arguments.

Each epilogue (bias kind x activation) is a program of its own, so these tests run `tile`
without transposes wherever they can: eleven programs in all."""

import numpy as np
import pytest

import clgemm
from clgemm import _clgemm
from conftest import assert_gemm, matrix, stack

ACTS = [None, "relu", "gelu", ("clamp", -1.5, 2.5)]
SPECIAL = np.array([-np.inf, -1e30, -100.0, -10.0, -3.0, -1.5, -1.0, -0.5, -1e-3, -1e-7, -0.0,
                    0.0, 1e-7, 1e-3, 0.5, 1.0, 2.5, 3.0, 10.0, 100.0, 1e30, np.inf, np.nan],
                   np.float32)
# Around the clamp bounds: the bounds and their float32 neighbours.
SPECIAL = np.concatenate([SPECIAL] + [np.nextafter(np.float32(x), np.float32(t))[None]
                                      for x in (-1.5, 2.5) for t in (-np.inf, np.inf)])


@pytest.fixture
def ab(rng):
    return matrix(rng, 6, 4), matrix(rng, 4, 5)  # C is 6 x 5


def special_operands():
    """A (M x 1) holding the special values and B = ones (1 x 3): C[i, j] = A[i] exactly."""
    return SPECIAL[:, None].copy(), np.ones((1, 3), np.float32)


@pytest.mark.parametrize("act", ACTS[1:], ids=["relu", "gelu", "clamp"])
def test_activation_special_values(ctx, act):
    a, b = special_operands()
    c, record = ctx.sgemm(a, b, act=act, kernel="tile", return_record=True)
    assert_gemm(c, a, b, act=act)
    assert np.all(np.isnan(c[SPECIAL != SPECIAL]))  # NaN stays NaN
    if act == "gelu":
        at_minus_inf = c[0]
        assert np.all(at_minus_inf == 0) and np.all(np.signbit(at_minus_inf))  # GELU(-inf) = -0
        np.testing.assert_array_equal(c[SPECIAL == np.inf], np.inf)
    if act == "relu":
        assert np.all(c[(SPECIAL < 0)] == 0)
        np.testing.assert_array_equal(c[SPECIAL > 0], np.repeat(SPECIAL[SPECIAL > 0, None], 3, 1))
    if act == ACTS[3]:
        assert np.nanmin(c) == np.float32(-1.5) and np.nanmax(c) == np.float32(2.5)
    name = "clamp to [-1.5, 2.5]" if act == ACTS[3] else act
    assert record.epilogue == name


@pytest.mark.parametrize("act", ACTS, ids=["none", "relu", "gelu", "clamp"])
@pytest.mark.parametrize("along", ["m", "n"])
def test_bias(ctx, rng, along, act):
    m, n, k = 37, 29, 43
    a, b = matrix(rng, m, k), matrix(rng, k, n)
    bias = rng.uniform(-2, 2, m if along == "m" else n).astype(np.float32)
    c, record = ctx.sgemm(a, b, bias=bias, bias_along="rows" if along == "m" else None, act=act,
                          kernel="tile", return_record=True)
    assert_gemm(c, a, b, bias=bias, bias_along=along, act=act)
    kind = "per-row" if along == "m" else "per-column"
    assert record.epilogue.startswith(f"{kind} bias")


def test_bias_with_special_values(ctx):
    """inf + finite stays inf, and the bias goes in before the activation."""
    a, b = special_operands()
    bias = np.array([0.0, 1.0, -1.0], np.float32)
    c = ctx.sgemm(a, b, bias=bias, act="gelu", kernel="tile")
    assert_gemm(c, a, b, bias=bias, bias_along="n", act="gelu")


def test_bias_along_square(ctx, rng):
    a, b = matrix(rng, 8, 3), matrix(rng, 3, 8)
    bias = np.arange(8, dtype=np.float32)
    assert_gemm(ctx.sgemm(a, b, bias=bias, bias_along="m", kernel="tile"), a, b, bias=bias,
                bias_along="m")
    assert_gemm(ctx.sgemm(a, b, bias=bias, bias_along="n", kernel="tile"), a, b, bias=bias,
                bias_along="n")


@pytest.mark.parametrize("order_a,order_b,order_c", ["FFC", "CCF"])
def test_orders_transposes_and_beta(ctx, rng, order_a, order_b, order_c):
    """Transposed operands stored in the other order, and an F-order C (a column-major
    problem, in which C's rows are the kernel's columns): the bias still goes to C's rows.
    These map to products without transposes, so they reuse the programs above."""
    m, n, k = 19, 11, 23
    a, b, c0 = matrix(rng, k, m, order_a), matrix(rng, n, k, order_b), matrix(rng, m, n, order_c)
    bias = rng.uniform(-1, 1, m).astype(np.float32)
    c = c0.copy(order="K")
    ctx.sgemm(a, b, c, alpha=0.5, beta=-1.0, trans_a=True, trans_b=True, bias=bias,
              bias_along="rows", act="gelu", kernel="tile")
    assert_gemm(c, a, b, c0, alpha=0.5, beta=-1.0, trans_a=True, trans_b=True, bias=bias,
                bias_along="m", act="gelu")


@pytest.mark.parametrize("shared", [True, False])
def test_batched_bias(ctx, rng, shared):
    batch, m, n, k = 7, 13, 9, 5
    a, b = stack(rng, batch, m, k), stack(rng, batch, k, n)
    bias = rng.uniform(-1, 1, n if shared else (batch, n)).astype(np.float32)
    c, record = ctx.sgemm(a, b, bias=bias, act="relu", kernel="tile", return_record=True)
    assert_gemm(c, a, b, bias=bias, bias_along="n", act="relu")
    assert record.batch == batch and record.epilogue == "per-column bias, relu"


def test_batched_bias_views(ctx, rng):
    """A (1, length) bias is shared; the rows of a larger array are one vector per product."""
    batch, m, n, k = 4, 6, 5, 3
    a, b = stack(rng, batch, m, k), stack(rng, batch, k, n)
    one = rng.uniform(-1, 1, (1, m)).astype(np.float32)
    assert_gemm(ctx.sgemm(a, b, bias=one, bias_along="rows", kernel="tile"), a, b, bias=one,
                bias_along="m")
    wide = rng.uniform(-1, 1, (batch, 2 * m + 1)).astype(np.float32)
    rows = wide[:, 1:m + 1]  # 2 m + 1 floats between the vectors
    assert_gemm(ctx.sgemm(a, b, bias=rows, bias_along="rows", kernel="tile"), a, b, bias=rows,
                bias_along="m")


def test_bias_must_fit_c(ctx, ab):
    with pytest.raises(ValueError, match=r"^bias has length 7, but C is 6 x 5"):
        ctx.sgemm(*ab, bias=np.ones(7, np.float32))
    with pytest.raises(ValueError, match=r"^bias has length 6, but bias_along='n' needs 5"):
        ctx.sgemm(*ab, bias=np.ones(6, np.float32), bias_along="n")
    with pytest.raises(ValueError, match=r"^bias_along must be 'rows' .* or 'cols'"):
        ctx.sgemm(*ab, bias=np.ones(6, np.float32), bias_along="row")
    with pytest.raises(ValueError, match=r"^bias_along was given without a bias"):
        ctx.sgemm(*ab, bias_along="m")


def test_square_c_takes_the_default(ctx, rng):
    """The direction is said, not guessed from the length: on a square C (where guessing used
    to be an error) the default is one value per column, as in torch.nn.functional.linear."""
    a, b = matrix(rng, 5, 3), matrix(rng, 3, 5)
    bias = np.arange(5, dtype=np.float32)
    c, record = ctx.sgemm(a, b, bias=bias, kernel="tile", return_record=True)
    assert record.epilogue == "per-column bias"
    assert_gemm(c, a, b, bias=bias, bias_along="n")
    c, record = ctx.sgemm(a, b, bias=bias, bias_along="rows", kernel="tile", return_record=True)
    assert record.epilogue == "per-row bias"
    assert_gemm(c, a, b, bias=bias, bias_along="m")


@pytest.mark.parametrize("along,kind", [("rows", "per-row"), ("m", "per-row"),
                                        ("cols", "per-column"), ("n", "per-column")])
def test_bias_along_names(ctx, rng, along, kind):
    """bias_along is "rows" or "cols"; "m" and "n", the older names, mean the same."""
    a, b = matrix(rng, 4, 3), matrix(rng, 3, 6)
    bias = np.arange(4 if kind == "per-row" else 6, dtype=np.float32)
    c, record = ctx.sgemm(a, b, bias=bias, bias_along=along, kernel="tile", return_record=True)
    assert record.epilogue == f"{kind} bias"
    assert_gemm(c, a, b, bias=bias, bias_along="m" if kind == "per-row" else "n")


def test_bias_direction_is_never_guessed(ctx, ab):
    """A length-M bias without bias_along is an error naming the fix, not a per-row bias."""
    with pytest.raises(ValueError, match=r"^bias has length 6, but C is 6 x 5: .* one value per "
                                         r"column .*pass bias_along='rows'$"):
        ctx.sgemm(*ab, bias=np.ones(6, np.float32))
    with pytest.raises(ValueError, match=r"^bias has length 5, but bias_along='rows' needs 6 "
                                         r".*pass bias_along='cols'$"):
        ctx.sgemm(*ab, bias=np.ones(5, np.float32), bias_along="rows")
    with pytest.raises(ValueError, match=r"^bias_along must be 'rows'"):
        ctx.sgemm(*ab, bias=np.ones(5, np.float32), bias_along=1)


def test_bias_type_and_layout(ctx, ab):
    with pytest.raises(TypeError, match=r"^bias has dtype float64"):
        ctx.sgemm(*ab, bias=np.ones(6))
    with pytest.raises(ValueError, match=r"^bias must be a vector \(1-D\).*3-D operands"):
        ctx.sgemm(*ab, bias=np.ones((6, 1), np.float32))
    with pytest.raises(ValueError, match=r"^bias is a strided view"):
        ctx.sgemm(*ab, bias=np.ones(12, np.float32)[::2])
    with pytest.raises(TypeError, match=r"^bias must be a numpy.ndarray"):
        ctx.sgemm(*ab, bias=[1.0] * 6)


def test_batched_bias_errors(ctx, rng):
    a, b = stack(rng, 3, 6, 4), stack(rng, 3, 4, 5)
    with pytest.raises(ValueError, match=r"^bias holds 2 vectors, but the batch has 3"):
        ctx.sgemm(a, b, bias=np.ones((2, 5), np.float32))
    with pytest.raises(ValueError, match=r"^bias has length 4, but C is 6 x 5"):
        ctx.sgemm(a, b, bias=np.ones((3, 4), np.float32))
    with pytest.raises(ValueError, match=r"^bias is a strided view.*each vector"):
        ctx.sgemm(a, b, bias=np.ones((3, 10), np.float32)[:, ::2])
    with pytest.raises(ValueError, match=r"^bias must be a vector \(1-D\) or one vector per"):
        ctx.sgemm(a, b, bias=np.ones((3, 1, 5), np.float32))


@pytest.mark.parametrize("act", ["tanh", "RELU", ("clamp", 1.0, 0.0), ("clamp", "x", 1),
                                 ("clamp", np.nan, 1.0), ("relu",), 3])
def test_bad_activations(ctx, ab, act):
    with pytest.raises(ValueError, match=r"act"):
        ctx.sgemm(*ab, act=act)


def test_refused_call_leaves_c(ctx, ab, rng):
    c = matrix(rng, 6, 5)
    before = c.copy()
    with pytest.raises(ValueError):
        ctx.sgemm(*ab, c, bias=np.ones(7, np.float32))
    np.testing.assert_array_equal(c, before)


def problem_for(m, n, k):
    problem = _clgemm.GemmProblem()
    problem.layout, problem.m, problem.n, problem.k = 101, m, n, k
    problem.lda, problem.ldb, problem.ldc = k, n, n
    return problem


def test_epilogue_errors_of_the_library(ctx, ab, rng):
    """Epilogues the Python layer would never build reach the library's own checks."""
    a, b = ab
    c = matrix(rng, 6, 5)
    problem = problem_for(6, 5, 4)
    problem.epilogue.activation = "clamp"
    problem.epilogue.clamp_low, problem.epilogue.clamp_high = 1.0, 0.0
    with pytest.raises(clgemm.Error) as caught:
        ctx._native.sgemm_host(problem, a, b, c, "tile", "fp32")
    assert caught.value.code == "invalid-argument" and caught.value.argument == "activation"
    problem = problem_for(6, 5, 4)
    problem.epilogue.bias = "per-row"  # and no vector
    with pytest.raises(clgemm.Error) as caught:
        ctx._native.sgemm_host(problem, a, b, c, "tile", "fp32")
    assert caught.value.code == "invalid-argument" and caught.value.argument == "bias"
    with pytest.raises(ValueError, match=r"bias spans 5 floats, but the problem reads 6"):
        ctx._native.sgemm_host(problem, a, b, c, "tile", "fp32", np.ones(5, np.float32))
    with pytest.raises(clgemm.Error) as caught:
        problem.epilogue.activation = "tanh"
    assert caught.value.code == "invalid-argument" and caught.value.argument == "activation"
    assert "relu" in caught.value.message
    with pytest.raises(clgemm.Error) as caught:
        problem.epilogue.bias = "rows"
    assert caught.value.argument == "bias"


def test_problem_shows_the_epilogue():
    problem = problem_for(6, 5, 4)
    problem.epilogue.bias, problem.epilogue.activation = "per-column", "gelu"
    assert problem.epilogue.bias == "per-column" and problem.bias_elements() == 5
    assert "per-column bias, gelu" in repr(problem)
