"""Batched sgemm on NumPy arrays: stacks of matrices (3-D) against float64 numpy.matmul, odd
shapes and batch counts, a 2-D operand or a stack of one broadcast to the batch, transposes,
each matrix C- or F-contiguous, gaps between the matrices, alpha and beta, and the errors of
batches. The layout tests run `tile` (one cheap program per transpose pair, shared with
test_numpy.py); one test runs `auto`."""

import numpy as np
import pytest

import clgemm
from conftest import assert_gemm, matrix, stack


@pytest.mark.parametrize("batch,m,n,k", [(1000, 1, 1, 1), (9, 7, 13, 5), (3, 65, 33, 127)])
def test_odd_shapes(ctx, rng, batch, m, n, k):
    a, b = stack(rng, batch, m, k), stack(rng, batch, k, n)
    c, record = ctx.sgemm(a, b, kernel="tile", return_record=True)
    assert c.shape == (batch, m, n) and c.dtype == np.float32 and c.flags.c_contiguous
    assert_gemm(c, a, b)
    assert record.batch == batch and not record.product_table and record.epilogue == "none"


def test_auto(ctx, rng):
    a, b = stack(rng, 4, 33, 17), stack(rng, 4, 17, 21)
    c, record = ctx.sgemm(a, b, return_record=True)
    assert_gemm(c, a, b)
    assert record.batch == 4 and record.kernel != "auto"


@pytest.mark.parametrize("a_shape,b_shape", [
    ((7, 5), (6, 5, 9)),  # a 2-D A is every product's A
    ((6, 7, 5), (5, 9)),  # a 2-D B
    ((1, 7, 5), (6, 5, 9)),  # a stack of one
    ((6, 7, 5), (1, 5, 9)),
])
def test_broadcast(ctx, rng, a_shape, b_shape):
    a = rng.uniform(-1, 1, a_shape).astype(np.float32)
    b = rng.uniform(-1, 1, b_shape).astype(np.float32)
    c, record = ctx.sgemm(a, b, kernel="tile", return_record=True)
    assert c.shape == (6, 7, 9) and record.batch == 6
    assert_gemm(c, a, b)


def test_stacks_of_one_and_none(ctx, rng):
    a, b = stack(rng, 1, 4, 3), stack(rng, 1, 3, 2)
    c = ctx.sgemm(a, b, kernel="tile")
    assert c.shape == (1, 4, 2)
    assert_gemm(c, a, b)
    empty, record = ctx.sgemm(stack(rng, 0, 4, 3), b, return_record=True)
    assert empty.shape == (0, 4, 2) and record.kernel == "none"


@pytest.mark.parametrize("trans_a,trans_b", [(False, True), (True, False), (True, True)])
@pytest.mark.parametrize("orders", ["CCC", "FCF", "CFC", "FFF"])
def test_transposes_and_orders(ctx, rng, trans_a, trans_b, orders):
    batch, m, n, k = 5, 11, 9, 13
    a = stack(rng, batch, *((k, m) if trans_a else (m, k)), orders[0])
    b = stack(rng, batch, *((n, k) if trans_b else (k, n)), orders[1])
    c0 = stack(rng, batch, m, n, orders[2])
    c = c0.copy(order="K")
    assert c.strides == c0.strides
    out = ctx.sgemm(a, b, c, alpha=-1.5, beta=0.25, trans_a=trans_a, trans_b=trans_b,
                    kernel="tile")
    assert out is c
    assert_gemm(c, a, b, c0, alpha=-1.5, beta=0.25, trans_a=trans_a, trans_b=trans_b)


def test_transposed_views(ctx, rng):
    """x.transpose(0, 2, 1) of a C-contiguous stack is a stack of F-contiguous matrices."""
    a, b = stack(rng, 4, 12, 10), stack(rng, 4, 8, 12)
    at, bt = a.transpose(0, 2, 1), b.transpose(0, 2, 1)  # 10 x 12 and 12 x 8
    assert_gemm(ctx.sgemm(at, bt, kernel="tile"), at, bt)


def test_gaps_between_matrices(ctx, rng):
    """Every other matrix of a larger stack (a whole number of floats between them) is read,
    and written: the matrices in between stay as they were."""
    a, b = stack(rng, 8, 6, 5), stack(rng, 8, 5, 7)
    store = stack(rng, 8, 6, 7)
    before = store.copy()
    c = store[::2]
    ctx.sgemm(a[::2], b[1::2], c, kernel="tile")
    assert_gemm(c, a[::2], b[1::2])
    np.testing.assert_array_equal(store[1::2], before[1::2])


def test_broadcast_views(ctx, rng):
    """np.broadcast_to gives a stride of 0 between matrices: read as a broadcast operand."""
    a, b = matrix(rng, 6, 4), stack(rng, 3, 4, 5)
    wide = np.broadcast_to(a, (3, 6, 4))
    assert wide.strides[0] == 0
    assert_gemm(ctx.sgemm(wide, b, kernel="tile"), wide, b)


def test_stacks_must_agree(ctx, rng):
    with pytest.raises(ValueError, match=r"stacks of matrices differ in length: a holds 3, b holds 2"):
        ctx.sgemm(stack(rng, 3, 6, 4), stack(rng, 2, 4, 5))


def test_c_needs_the_batch(ctx, rng):
    a, b = stack(rng, 3, 6, 4), stack(rng, 3, 4, 5)
    with pytest.raises(ValueError, match=r"c has shape \(6, 5\), but the product is "
                                         r"\(3, 6, 5\): c must have the batch dimension"):
        ctx.sgemm(a, b, matrix(rng, 6, 5))
    with pytest.raises(ValueError, match=r"c must hold one matrix per product"):
        ctx.sgemm(a, b, stack(rng, 1, 6, 5))
    with pytest.raises(ValueError, match=r"c has shape \(2, 6, 5\), but the product is "
                                         r"\(3, 6, 5\)$"):
        ctx.sgemm(a, b, stack(rng, 2, 6, 5))
    with pytest.raises(ValueError, match=r"c has shape \(3, 6, 5\), but the product is \(6, 5\)"):
        ctx.sgemm(a[0], b[0], stack(rng, 3, 6, 5))


@pytest.mark.parametrize("stride", [0, 29])  # one C is 6 x 5 = 30 elements
def test_overlapping_c_is_the_librarys_error(ctx, rng, stride):
    a, b = stack(rng, 3, 6, 4), stack(rng, 3, 4, 5)
    store = np.zeros(200, np.float32)
    c = np.lib.stride_tricks.as_strided(store, (3, 6, 5), (4 * stride, 20, 4), writeable=True)
    with pytest.raises(clgemm.Error) as caught:
        ctx.sgemm(a, b, c, kernel="tile")
    assert caught.value.code == "overlapping-output" and caught.value.argument == "stride_c"
    assert np.all(store == 0)


def test_non_contiguous_stacks_are_refused(ctx, rng):
    a, b = stack(rng, 3, 6, 4), stack(rng, 3, 4, 5)
    with pytest.raises(ValueError, match=r"^a is a strided view.*each matrix of a stack"):
        ctx.sgemm(np.asfortranarray(a), b)  # the batch axis is the innermost one
    with pytest.raises(ValueError, match=r"^b is a strided view.*each matrix of a stack"):
        ctx.sgemm(a, stack(rng, 3, 4, 10)[:, :, ::2])
    with pytest.raises(ValueError, match=r"^a is a strided view.*ascontiguousarray"):
        ctx.sgemm(a[::-1], b)
    with pytest.raises(ValueError, match=r"^c is a strided view"):
        ctx.sgemm(a, b, stack(rng, 3, 12, 5)[:, ::2])


def test_batch_errors_of_the_library(ctx, rng):
    """A problem the Python layer would never build reaches the library's batch checks."""
    from clgemm import _clgemm
    a, b, c = matrix(rng, 2, 2), matrix(rng, 2, 2), matrix(rng, 2, 2)
    problem = _clgemm.GemmProblem()
    problem.layout, problem.m, problem.n, problem.k = 101, 2, 2, 2
    problem.lda = problem.ldb = problem.ldc = 2
    problem.batch = -1
    with pytest.raises(clgemm.Error) as caught:
        ctx._native.sgemm_host(problem, a, b, c, "tile", "fp32")
    assert caught.value.code == "invalid-size" and caught.value.argument == "batch"
    problem.batch, problem.stride_a = 1, -4
    with pytest.raises(clgemm.Error) as caught:
        ctx._native.sgemm_host(problem, a, b, c, "tile", "fp32")
    assert caught.value.code == "invalid-argument" and caught.value.argument == "stride_a"
    problem.stride_a, problem.batch = 0, 2  # C spans 8 floats, c holds 4
    problem.stride_c = 4
    with pytest.raises(ValueError, match=r"c spans 4 floats, but the problem reads 8"):
        ctx._native.sgemm_host(problem, a, b, c, "tile", "fp32")
