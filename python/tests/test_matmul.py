"""clgemm.matmul against numpy.matmul: 2-D and stacked operands with their batch axes
broadcast, 1-D operands promoted and their axis removed, empty axes, strided, reversed and
transposed views, other dtypes (converted; float64 only with casting=), copy=False, out=, the
records of the library calls (broadcast axes merged into one strided batch) and the default
context shared by threads.

The products run `tile` (compiled in a second or two on PoCL) except where the test is about
the default kernel; `auto` runs `blocked`, whose variants take half a minute each there."""

import threading

import numpy as np
import pytest

import clgemm
from conftest import assert_gemm

TILE = dict(kernel="tile")


def values(rng, shape, dtype=np.float32):
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def check(a, b, result):
    """result is numpy.matmul(a, b) in float32: the same shape, type and values (within the
    float32 rounding bound, against float64)."""
    expected = np.matmul(a, b)
    assert np.shape(result) == expected.shape
    if expected.ndim == 0:
        assert isinstance(result, np.float32)
    else:
        assert isinstance(result, np.ndarray) and result.dtype == np.float32
    assert_gemm(np.asarray(result), np.asarray(a, np.float64), np.asarray(b, np.float64))


SHAPES = [  # (a's shape, b's shape), as numpy.matmul takes them
    ((7, 5), (5, 3)),
    ((1, 1), (1, 1)),
    ((5,), (5, 3)),  # a vector is a row: (3,)
    ((7, 5), (5,)),  # b vector is a column: (7,)
    ((5,), (5,)),  # two vectors: a scalar
    ((4, 7, 5), (5, 3)),  # a stack times one matrix: b broadcast (stride 0)
    ((7, 5), (4, 5, 3)),
    ((4, 7, 5), (4, 5, 3)),
    ((1, 7, 5), (4, 5, 3)),  # a stack of one, broadcast
    ((2, 3, 7, 5), (3, 5, 4)),  # two batch axes, the outer broadcast for b
    ((2, 1, 7, 5), (1, 3, 5, 4)),  # broadcast both ways: two calls of 3 products
    ((3, 1, 2, 7, 5), (2, 5, 4)),
    ((2, 3, 1, 7, 5), (3, 4, 5, 2)),
    ((4, 7, 5), (5,)),  # a stack times a vector
    ((5,), (4, 5, 3)),  # a vector times a stack
    ((2, 3, 5), (5,)),
    ((0, 7, 5), (5, 3)),  # empty batch
    ((2, 0, 7, 5), (5, 3)),
    ((0, 5), (5, 3)),  # M = 0
    ((7, 5), (5, 0)),  # N = 0
    ((7, 0), (0, 3)),  # K = 0: zeros
    ((4, 7, 0), (4, 0, 3)),
    ((0,), (0,)),  # an empty dot product: 0
    ((0,), (0, 3)),
]


@pytest.mark.parametrize("a_shape,b_shape", SHAPES, ids=[f"{a}@{b}" for a, b in SHAPES])
def test_shapes(rng, a_shape, b_shape):
    a, b = values(rng, a_shape), values(rng, b_shape)
    check(a, b, clgemm.matmul(a, b, **TILE))


def test_default_kernel(rng):
    a, b = values(rng, (7, 5)), values(rng, (5, 13))
    check(a, b, clgemm.matmul(a, b))


def test_batch_axes_become_one_strided_batch(rng):
    """Axes that line up are merged into one library call; a broadcast operand is read in
    place (copy=False holds) with stride 0."""
    a, b = values(rng, (2, 3, 7, 5)), values(rng, (5, 4))
    c, records = clgemm.matmul(a, b, copy=False, return_records=True, **TILE)
    check(a, b, c)
    assert [r.batch for r in records] == [6]
    a1, b1 = values(rng, (2, 1, 7, 5)), values(rng, (1, 3, 5, 4))
    c, records = clgemm.matmul(a1, b1, copy=False, return_records=True, **TILE)
    check(a1, b1, c)
    assert [r.batch for r in records] == [3, 3]  # the outer axis cannot merge: one call each
    _, records = clgemm.matmul(values(rng, (0, 7, 5)), b, return_records=True, **TILE)
    assert records == []


def view_cases(rng):
    """(name, a, b): views numpy.matmul takes and the library cannot read in place."""
    wide = values(rng, (7, 10))
    stack = values(rng, (4, 7, 5))
    return [
        ("columns-strided", wide[:, ::2], values(rng, (5, 3))),
        ("rows-strided", values(rng, (14, 5))[::2], values(rng, (5, 3))),
        ("padded-rows", wide[:, :5], values(rng, (5, 3))),
        ("reversed-rows", values(rng, (7, 5))[::-1], values(rng, (5, 3))[::-1]),
        ("reversed-columns", values(rng, (7, 5))[:, ::-1], values(rng, (5, 3))),
        ("reversed-both", values(rng, (7, 5))[::-1, ::-1], values(rng, (5, 3))[:, ::-1]),
        ("reversed-batch", stack[::-1], values(rng, (4, 5, 3))[::-1]),
        ("every-other-reversed", values(rng, (8, 7, 5))[::-2], values(rng, (5, 3))),
        ("batch-innermost", np.asfortranarray(stack), values(rng, (5, 3))),
        ("slice-inside-matrices", stack[:, 1:6, ::2], values(rng, (3, 3))),
        ("vector-strided", values(rng, (10,))[::2], values(rng, (5, 3))),
        ("vector-reversed", values(rng, (7, 5)), values(rng, (5,))[::-1]),
        ("non-contiguous-4d", values(rng, (2, 3, 7, 10))[:, ::-1, :, ::2], values(rng, (5, 3))),
    ]


@pytest.mark.parametrize("case", range(13))
def test_views_are_copied(rng, case):
    name, a, b = view_cases(rng)[case]
    a_before, b_before = a.copy(), b.copy()
    check(a, b, clgemm.matmul(a, b, **TILE))
    np.testing.assert_array_equal(a, a_before)  # operands are never written
    np.testing.assert_array_equal(b, b_before)
    with pytest.raises(ValueError, match=r"^[ab] \(shape .*\) cannot be read in place.*copy=False"):
        clgemm.matmul(a, b, copy=False, **TILE)


def test_views_read_in_place(rng):
    """Transposed matrices (F-order), every other matrix of a stack, broadcast stacks: no
    copy is needed, so copy=False holds."""
    a, b = values(rng, (5, 7)).T, values(rng, (3, 5)).T
    check(a, b, clgemm.matmul(a, b, copy=False, **TILE))
    stack = values(rng, (8, 5, 7)).transpose(0, 2, 1)[::2]
    check(stack, b, clgemm.matmul(stack, b, copy=False, **TILE))
    broadcast = np.broadcast_to(values(rng, (7, 5)), (3, 7, 5))
    check(broadcast, b, clgemm.matmul(broadcast, b, copy=False, **TILE))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16, np.bool_,
                                   np.float16, ">f4"])
def test_other_dtypes_are_converted(rng, dtype):
    a = (rng.integers(-3, 4, (6, 4)) if np.dtype(dtype).kind in "iu" else
         values(rng, (6, 4))).astype(dtype)
    if np.dtype(dtype).kind == "u":
        a = np.abs(a)
    b = values(rng, (4, 5))
    result = clgemm.matmul(a, b, **TILE)
    check(a.astype(np.float32), b, result)
    with pytest.raises(ValueError, match=rf"^a has dtype {np.dtype(dtype)}: converting it .*"
                                         r"copy=False"):
        clgemm.matmul(a, b, copy=False, **TILE)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # numpy.matrix's own
def test_subclasses_are_plain_arrays(rng):
    """numpy.matrix (which keeps two axes when indexed) is read as the array it holds."""
    a = np.asmatrix(values(rng, (3, 4)))
    b = values(rng, (4,))
    check(np.asarray(a), b, clgemm.matmul(a, b, copy=False, **TILE))


def test_lists_are_converted(rng):
    a = [[1, 2], [3, 4], [5, 6]]
    check(np.array(a), np.eye(2, dtype=np.float32), clgemm.matmul(a, np.eye(2, dtype=np.float32)))
    with pytest.raises(ValueError, match=r"^a is a list, not a numpy.ndarray.*copy=False"):
        clgemm.matmul(a, np.eye(2, dtype=np.float32), copy=False)


@pytest.mark.parametrize("dtype", [np.float64, np.longdouble])
def test_wider_floats_need_casting(rng, dtype):
    a, b = values(rng, (6, 4), dtype), values(rng, (4, 5))
    with pytest.raises(TypeError, match=rf"^a has dtype {np.dtype(dtype)}, but matmul computes "
                                        r"in float32, which would round it: pass "
                                        r"casting='same_kind'"):
        clgemm.matmul(a, b, **TILE)
    with pytest.raises(TypeError, match=rf"^b has dtype {np.dtype(dtype)}.*under casting='safe'"):
        clgemm.matmul(b, a.T, casting="safe", **TILE)
    result = clgemm.matmul(a, b, casting="same_kind", **TILE)
    check(a.astype(np.float32), b, result)
    check(a.astype(np.float32), b, clgemm.matmul(a, b, casting="unsafe", **TILE))


def test_complex_is_refused(rng):
    a = values(rng, (3, 2)).astype(np.complex64)
    with pytest.raises(TypeError, match=r"^a has dtype complex64, but matmul computes in "
                                        r"float32, which cannot hold it"):
        clgemm.matmul(a, np.ones((2, 2), np.float32), casting="same_kind")


def test_casting_and_copy_arguments(rng):
    a = values(rng, (3, 2))
    with pytest.raises(ValueError, match=r"^casting must be None .* not 'sometimes'"):
        clgemm.matmul(a, a.T, casting="sometimes")
    with pytest.raises(TypeError, match=r"^casting must be None or a str"):
        clgemm.matmul(a, a.T, casting=1)
    with pytest.raises(TypeError, match=r"^copy must be None, True or False"):
        clgemm.matmul(a, a.T, copy="no")
    check(a, a.T, clgemm.matmul(a, a.T, copy=True, **TILE))  # True: the same as None


OUT_CASES = [((7, 5), (5, 3)), ((4, 7, 5), (5, 3)), ((5,), (5, 3)), ((7, 5), (5,)),
             ((5,), (5,)), ((2, 1, 7, 5), (1, 3, 5, 4)), ((0, 7, 5), (5, 3))]


@pytest.mark.parametrize("a_shape,b_shape", OUT_CASES,
                         ids=[f"{a}@{b}" for a, b in OUT_CASES])
def test_out(rng, a_shape, b_shape):
    a, b = values(rng, a_shape), values(rng, b_shape)
    out = np.full(np.matmul(a, b).shape, np.nan, np.float32)
    result = clgemm.matmul(a, b, out=out, copy=False, **TILE)
    assert result is out
    check(a, b, out[()] if out.ndim == 0 else out)


def test_out_written_through_a_temporary(rng):
    """An F-order out is written in place; a strided, reversed or overlapping one through a
    temporary (which copy=False forbids)."""
    a, b = values(rng, (7, 5)), values(rng, (5, 3))
    f_out = np.asfortranarray(np.zeros((7, 3), np.float32))
    assert clgemm.matmul(a, b, out=f_out, copy=False, **TILE) is f_out
    check(a, b, f_out)
    store = np.zeros((7, 6), np.float32)
    for out in (store[:, ::2], store[::-1, :3]):
        assert clgemm.matmul(a, b, out=out, **TILE) is out
        check(a, b, out)
        with pytest.raises(ValueError, match=r"^out cannot be written in place.*copy=False"):
            clgemm.matmul(a, b, out=out, copy=False, **TILE)
    square = values(rng, (5, 5))
    expected = np.matmul(square, square)
    clgemm.matmul(square, square.copy(), out=square, **TILE)  # out is a: read before written
    np.testing.assert_allclose(square, expected, rtol=1e-5, atol=1e-5)


def test_out_errors(rng):
    a, b = values(rng, (7, 5)), values(rng, (5, 3))
    with pytest.raises(ValueError, match=r"^out has shape \(3, 7\), but the product is \(7, 3\)"):
        clgemm.matmul(a, b, out=np.zeros((3, 7), np.float32))
    with pytest.raises(TypeError, match=r"^out has dtype float64, but matmul's results are "
                                        r"float32"):
        clgemm.matmul(a, b, out=np.zeros((7, 3)))
    with pytest.raises(TypeError, match=r"^out must be a numpy.ndarray, not list"):
        clgemm.matmul(a, b, out=[0.0] * 21)
    readonly = np.zeros((7, 3), np.float32)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match=r"^out is read-only"):
        clgemm.matmul(a, b, out=readonly)


def test_shape_errors(rng):
    with pytest.raises(ValueError, match=r"^a has shape \(7, 5\) and b \(4, 3\): the last axis "
                                         r"of a \(5\) must match the second-to-last axis of b"):
        clgemm.matmul(values(rng, (7, 5)), values(rng, (4, 3)))
    with pytest.raises(ValueError, match=r"the last axis of a \(5\) must match the only axis"):
        clgemm.matmul(values(rng, (7, 5)), values(rng, (4,)))
    with pytest.raises(ValueError, match=r"^a has shape \(2, 7, 5\) and b \(3, 5, 4\): their "
                                         r"stacks .* do not broadcast"):
        clgemm.matmul(values(rng, (2, 7, 5)), values(rng, (3, 5, 4)))
    with pytest.raises(ValueError, match=r"^b is a scalar \(0-D\).*use \*"):
        clgemm.matmul(values(rng, (7, 5)), np.float32(2))


def test_settings_and_precision(rng):
    a, b = values(rng, (7, 5)), values(rng, (5, 3))
    with pytest.raises(clgemm.Error) as caught:
        clgemm.matmul(a, b, kernel="nope")
    assert caught.value.code == "unknown-kernel"
    c = clgemm.matmul(a, b, precision="tf32")
    assert_gemm(c, a, b, precision="tf32")


def test_context_matmul(ctx, rng):
    a, b = values(rng, (3, 7, 5)), values(rng, (5, 4))
    check(a, b, ctx.matmul(a, b, **TILE))


def test_default_context_is_shared_by_threads(rng, monkeypatch):
    """Made once on first use, whichever thread comes first; every thread gets the same one
    and can run products on it at the same time."""
    monkeypatch.setattr(clgemm._matmul, "_default_context", None)  # not made yet
    contexts, results, errors = [], {}, []
    a, b = values(rng, (4, 7, 5)), values(rng, (5, 3))
    start = threading.Barrier(8)

    def work(i):
        try:
            start.wait()
            contexts.append(clgemm.default_context())
            results[i] = clgemm.matmul(a * i, b, **TILE)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(contexts) == 8 and all(c is contexts[0] for c in contexts)
    assert isinstance(contexts[0], clgemm.Context)
    for i, c in results.items():
        check(a * i, b, c)
