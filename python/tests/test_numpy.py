"""sgemm on NumPy arrays against float64 NumPy: odd shapes, both storage orders of each
operand, transposes, alpha and beta (beta = 0 never reads C), C written in place, every fp32
kernel of the catalogue and the precision modes.

PoCL takes about half a minute to compile each variant of `blocked`, the kernel `auto` runs
here, and the transposes and the alignment of the leading dimensions (multiples of 8) are
compiled in. So the tests of `auto` keep to unaligned sizes without transposes (one program),
and the layout tests, which check how operands are mapped to the library's problem, run
`tile`, which compiles in a second or two."""

import itertools

import numpy as np
import pytest

import clgemm
from conftest import assert_gemm, matrix

SHAPES = [  # (M, N, K)
    (1, 1, 1),
    (7, 13, 5),
    (65, 33, 127),
    (300, 4, 25),  # tall
    (4, 300, 25),  # wide
    (48, 40, 1),  # thin K
    (3, 5, 700),  # deep K
]


def operands(rng, m, n, k, trans_a=False, trans_b=False, order_a="C", order_b="C"):
    a = matrix(rng, *((k, m) if trans_a else (m, k)), order_a)
    b = matrix(rng, *((n, k) if trans_b else (k, n)), order_b)
    return a, b


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_shapes_new_result(ctx, rng, m, n, k):
    a, b = operands(rng, m, n, k)
    c = ctx.sgemm(a, b)
    assert c.dtype == np.float32 and c.flags.c_contiguous
    assert_gemm(c, a, b)


@pytest.mark.parametrize("order_a,order_b,order_c", list(itertools.product("CF", repeat=3)))
@pytest.mark.parametrize("trans_a,trans_b", list(itertools.product([False, True], repeat=2)))
def test_layouts_and_transposes(ctx, rng, order_a, order_b, order_c, trans_a, trans_b):
    m, n, k = 19, 11, 23
    a, b = operands(rng, m, n, k, trans_a, trans_b, order_a, order_b)
    c0 = matrix(rng, m, n, order_c)
    c = c0.copy(order="K")
    out = ctx.sgemm(a, b, c, alpha=0.75, beta=-0.5, trans_a=trans_a, trans_b=trans_b,
                    kernel="tile")
    assert out is c
    assert_gemm(c, a, b, c0, alpha=0.75, beta=-0.5, trans_a=trans_a, trans_b=trans_b)


@pytest.mark.parametrize("flag,transposed", [
    ("N", False), ("n", False), ("T", True), ("t", True), ("C", True), ("c", True),
    (False, False), (True, True), (np.bool_(True), True), (np.bool_(False), False)])
def test_transpose_letters(ctx, rng, flag, transposed):
    """trans_a / trans_b take the BLAS letters for what they mean: "N" is no transpose (it
    used to be read for its truthiness, as a transpose)."""
    m, n, k = 7, 5, 3
    a, b = operands(rng, m, n, k, transposed, transposed)
    c = ctx.sgemm(a, b, trans_a=flag, trans_b=flag, kernel="tile")
    assert c.shape == (m, n)
    assert_gemm(c, a, b, trans_a=transposed, trans_b=transposed)


def test_transposed_views_are_column_major_operands(ctx, rng):
    """a.T of a C-contiguous array is F-contiguous: no copy, the same product as numpy's."""
    a, b = matrix(rng, 29, 17), matrix(rng, 31, 29)  # (a.T) is 17 x 29, (b.T) is 29 x 31
    assert_gemm(ctx.sgemm(a.T, b.T, kernel="tile"), a.T, b.T)
    assert_gemm(ctx.sgemm(a, b, trans_a=True, trans_b=True, kernel="tile"), a, b,
                trans_a=True, trans_b=True)


def test_vectors_in_either_order(ctx, rng):
    """A 1 x K row and a K x 1 column are both C- and F-contiguous."""
    row, col = matrix(rng, 1, 41), matrix(rng, 41, 1)
    assert_gemm(ctx.sgemm(row, col), row, col)
    assert_gemm(ctx.sgemm(col, row), col, row)


@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (2.5, 0.0), (-1.0, 1.0), (0.5, -2.0)])
def test_alpha_beta(ctx, rng, alpha, beta):
    m, n, k = 33, 21, 45
    a, b = operands(rng, m, n, k)
    c0 = matrix(rng, m, n)
    c = c0.copy()
    ctx.sgemm(a, b, c, alpha=alpha, beta=beta)
    assert_gemm(c, a, b, c0, alpha=alpha, beta=beta)


@pytest.mark.parametrize("order_c,kernel", [("C", "auto"), ("F", "tile")])
def test_beta_zero_never_reads_c(ctx, rng, order_c, kernel):
    a, b = operands(rng, 9, 14, 6)
    c = np.full((9, 14), np.nan, dtype=np.float32, order=order_c)
    ctx.sgemm(a, b, c, beta=0.0, kernel=kernel)
    assert np.isfinite(c).all()
    assert_gemm(c, a, b)


def test_alpha_zero_scales_c_without_reading_a_or_b(ctx, rng):
    a = np.full((6, 4), np.nan, dtype=np.float32)
    b = np.full((4, 5), np.inf, dtype=np.float32)
    c0 = matrix(rng, 6, 5)
    c, record = ctx.sgemm(a, b, c0.copy(), alpha=0.0, beta=3.0, return_record=True)
    np.testing.assert_allclose(c, 3.0 * c0, rtol=1e-6)
    assert record.kernel == "scale_c"


def test_empty_sizes(ctx, rng):
    """M = 0 returns an empty C; K = 0 sets C = beta * C (BLAS semantics)."""
    assert ctx.sgemm(np.zeros((0, 5), np.float32), np.zeros((5, 3), np.float32)).shape == (0, 3)
    c0 = matrix(rng, 4, 3)
    c = ctx.sgemm(np.zeros((4, 0), np.float32), np.zeros((0, 3), np.float32), c0.copy(),
                  beta=0.5)
    np.testing.assert_allclose(c, 0.5 * c0, rtol=1e-6)


def test_read_only_operands(ctx, rng):
    a, b = operands(rng, 9, 7, 5)
    a.flags.writeable = False
    b.flags.writeable = False
    assert_gemm(ctx.sgemm(a, b), a, b)


FP32_KERNELS = [k.name for k in clgemm.kernels() if "fp32" in k.precisions]


@pytest.mark.parametrize("kernel", FP32_KERNELS)
def test_every_fp32_kernel(ctx, rng, kernel):
    m, n, k = 37, 29, 41
    a, b = operands(rng, m, n, k)
    c0 = matrix(rng, m, n)
    c, record = ctx.sgemm(a, b, c0.copy(), beta=0.25, kernel=kernel, return_record=True)
    assert_gemm(c, a, b, c0, beta=0.25)
    assert record.kernel == kernel and record.launches >= 1


def test_kernel_with_overrides(ctx, rng):
    a, b = operands(rng, 20, 24, 16)
    c, record = ctx.sgemm(a, b, kernel="tile:TILE=4", return_record=True)
    assert_gemm(c, a, b)
    assert record.kernel == "tile" and record.options["TILE"] == 4


@pytest.mark.parametrize("precision", ["fp32", "tf32", "3xtf32"])
def test_precision_modes(ctx, rng, precision):
    m, n, k = 41, 23, 71
    a, b = operands(rng, m, n, k)
    c, record = ctx.sgemm(a, b, precision=precision, return_record=True)
    assert_gemm(c, a, b, precision=precision)
    assert record.precision == precision
    assert record.precision_path != "none"


def test_tf32_rounds_the_operands(ctx):
    """1 + 2^-12 is not a TF32 value: tf32 rounds it to 1, fp32 keeps it."""
    a = np.full((4, 4), 1.0 + 2.0 ** -12, np.float32)
    b = np.eye(4, dtype=np.float32)
    assert np.all(ctx.sgemm(a, b, precision="fp32") == a)
    assert np.all(ctx.sgemm(a, b, precision="tf32") == 1.0)


def test_record(ctx, rng):
    a, b = operands(rng, 17, 15, 13)
    c, record = ctx.sgemm(a, b, return_record=True)
    assert isinstance(record, clgemm.GemmRecord)
    assert record.kernel in {k.name for k in clgemm.kernels()}
    assert record.kernel_choice.startswith("auto")
    assert isinstance(record.options, dict) and record.options
    assert record.precision_path == "fp32"
    assert record.origin in {"compiled", "disk cache", "memory"}
    assert "GemmRecord(kernel=" in repr(record)
