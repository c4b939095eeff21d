"""sgemm on PyOpenCL arrays and buffers, on the caller's queue, inside the caller's OpenCL
context (Context.from_pyopencl): both storage orders, transposed views, offsets into a
buffer, bare buffers with their sizes, events, batches of 3-D arrays, the epilogue with its
bias on the device, and the errors of the device path. As in
test_numpy.py, calls with transposes run `tile` (cheap to compile) and `auto` sees unaligned
sizes only."""

import itertools

import numpy as np
import pytest

cl = pytest.importorskip("pyopencl", reason="PyOpenCL is not installed (pip install pyopencl)")
cl_array = pytest.importorskip("pyopencl.array")

import clgemm  # noqa: E402
from conftest import assert_gemm, matrix, stack  # noqa: E402


@pytest.fixture(scope="module")
def queue(ctx):
    """A queue on the device the session's Context uses, in a context of PyOpenCL's own."""
    device = next(d for p in cl.get_platforms() for d in p.get_devices()
                  if d.name == ctx.device.name)
    return cl.CommandQueue(cl.Context([device]))


@pytest.fixture(scope="module")
def cl_ctx(queue):
    return clgemm.Context.from_pyopencl(queue)


def on_device(queue, x):
    return cl_array.to_device(queue, x)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (7, 13, 5), (65, 33, 127)])
def test_new_result(cl_ctx, queue, rng, m, n, k):
    a, b = matrix(rng, m, k), matrix(rng, k, n)
    c = cl_ctx.sgemm(on_device(queue, a), on_device(queue, b))
    assert isinstance(c, cl_array.Array) and c.shape == (m, n) and c.dtype == np.float32
    assert_gemm(c.get(), a, b)


@pytest.mark.parametrize("order_a,order_b,order_c", list(itertools.product("CF", repeat=3)))
def test_layouts_in_place(cl_ctx, queue, rng, order_a, order_b, order_c):
    m, n, k = 19, 11, 23
    a, b, c0 = matrix(rng, m, k, order_a), matrix(rng, k, n, order_b), matrix(rng, m, n, order_c)
    c = on_device(queue, c0)
    assert c.flags.f_contiguous == (order_c == "F")
    out = cl_ctx.sgemm(on_device(queue, a), on_device(queue, b), c, alpha=2.0, beta=0.5,
                       kernel="tile")
    assert out is c
    assert_gemm(c.get(), a, b, c0, alpha=2.0, beta=0.5)


def test_transposed_views_and_flags(cl_ctx, queue, rng):
    a, b = matrix(rng, 30, 17), matrix(rng, 23, 30)  # a.T is 17 x 30, b.T is 30 x 23
    a_dev, b_dev = on_device(queue, a), on_device(queue, b)
    assert_gemm(cl_ctx.sgemm(a_dev.T, b_dev.T, kernel="tile").get(), a.T, b.T)
    assert_gemm(cl_ctx.sgemm(a_dev, b_dev, trans_a=True, trans_b=True, kernel="tile").get(),
                a, b, trans_a=True, trans_b=True)


def test_offsets_into_a_buffer(cl_ctx, queue, rng):
    """Arrays that start inside a larger buffer (a view's offset) are read from there."""
    m, n, k = 9, 7, 5
    a, b = matrix(rng, m, k), matrix(rng, k, n)
    store = on_device(queue, np.concatenate([np.full(3, np.nan, np.float32), a.ravel(),
                                             np.full(2, np.nan, np.float32), b.ravel()]))
    a_view = store[3:3 + m * k].reshape(m, k)
    b_view = store[5 + m * k:5 + m * k + k * n].reshape(k, n)
    assert a_view.offset == 12
    c_store = cl_array.zeros(queue, 4 + m * n, np.float32)
    c_view = c_store[4:].reshape(m, n)
    cl_ctx.sgemm(a_view, b_view, c_view)
    assert_gemm(c_view.get(), a, b)
    assert np.all(c_store.get()[:4] == 0)


def test_bare_buffers(cl_ctx, queue, rng):
    m, n, k = 13, 11, 9
    a, b = matrix(rng, k, m), matrix(rng, k, n)  # a is stored transposed
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    a_buf = cl.Buffer(queue.context, flags, hostbuf=a)
    b_buf = cl.Buffer(queue.context, flags, hostbuf=b)
    c_buf = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, size=m * n * 4)
    out = cl_ctx.sgemm(a_buf, b_buf, c_buf, trans_a=True, m=m, n=n, k=k, kernel="tile")
    assert out is c_buf
    c = np.empty((m, n), np.float32)
    cl.enqueue_copy(queue, c, c_buf)
    assert_gemm(c, a, b, trans_a=True)


def test_bare_buffer_too_small(cl_ctx, queue):
    small = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, size=16 * 4)
    with pytest.raises(clgemm.Error) as caught:
        cl_ctx.sgemm(small, small, small, m=8, n=8, k=8)
    assert caught.value.code == "buffer-too-small"


def test_bare_buffers_need_sizes(cl_ctx, queue):
    buf = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, size=64)
    with pytest.raises(TypeError, match=r"bare pyopencl.Buffer: give the sizes m=, n=, k="):
        cl_ctx.sgemm(buf, buf, buf)


def test_events_and_record(cl_ctx, queue, rng):
    """The call waits for the operands' events, and C's array gets the call's event."""
    a, b = matrix(rng, 15, 9), matrix(rng, 9, 13)
    a_dev, b_dev = on_device(queue, a), on_device(queue, b)
    marker = cl.enqueue_marker(queue)
    c, record = cl_ctx.sgemm(a_dev, b_dev, wait_for=[marker], return_record=True)
    assert isinstance(record, clgemm.GemmRecord) and record.launches >= 1
    assert c.events and isinstance(c.events[-1], cl.Event)
    c.events[-1].wait()
    assert_gemm(c.get(), a, b)


def test_numpy_arrays_on_a_pyopencl_context(cl_ctx, rng):
    a, b = matrix(rng, 5, 6), matrix(rng, 6, 7)
    assert_gemm(cl_ctx.sgemm(a, b), a, b)


def test_device_errors(ctx, cl_ctx, queue, rng):
    a_dev = on_device(queue, matrix(rng, 4, 4))
    with pytest.raises(TypeError, match=r"a is a device operand, b is a host operand"):
        cl_ctx.sgemm(a_dev, matrix(rng, 4, 4))
    with pytest.raises(TypeError, match=r"^a has dtype float64"):
        cl_ctx.sgemm(on_device(queue, np.zeros((4, 4))), a_dev)
    with pytest.raises(ValueError, match=r"^a is a strided view.*a.copy\(\)"):
        cl_ctx.sgemm(on_device(queue, matrix(rng, 4, 8))[:, ::2], a_dev)
    with pytest.raises(ValueError, match=r"another OpenCL context than this Context"):
        ctx.sgemm(a_dev, a_dev)  # a Context that opened its own device
    with pytest.raises(clgemm.Error) as caught:
        cl_ctx.sgemm(a_dev, a_dev, kernel="nope")
    assert caught.value.code == "unknown-kernel"


def test_from_pyopencl_context_and_types(queue, rng):
    ctx = clgemm.Context.from_pyopencl(queue.context)
    a, b = matrix(rng, 6, 3), matrix(rng, 3, 2)
    buf = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, size=64)
    with pytest.raises(ValueError, match=r"no queue to enqueue on"):
        ctx.sgemm(buf, buf, buf, m=2, n=2, k=2)
    assert_gemm(ctx.sgemm(on_device(queue, a), on_device(queue, b)).get(), a, b)
    with pytest.raises(TypeError, match=r"^from_pyopencl takes a pyopencl.CommandQueue"):
        clgemm.Context.from_pyopencl("not a queue")


def test_empty_sizes_on_device(cl_ctx, queue, rng):
    """M = 0 (an array with no buffer) returns an empty C; K = 0 sets C = beta * C."""
    empty = cl_ctx.sgemm(cl_array.zeros(queue, (0, 5), np.float32),
                         cl_array.zeros(queue, (5, 3), np.float32))
    assert empty.shape == (0, 3)
    c0 = matrix(rng, 4, 3)
    c = cl_ctx.sgemm(cl_array.zeros(queue, (4, 0), np.float32),
                     cl_array.zeros(queue, (0, 3), np.float32), on_device(queue, c0), beta=2.0)
    np.testing.assert_allclose(c.get(), 2.0 * c0, rtol=1e-6)


def test_batched_on_device(cl_ctx, queue, rng):
    """3-D PyOpenCL arrays are the library's strided batch on the buffers, no host copy."""
    batch, m, n, k = 9, 7, 13, 5
    a, b = stack(rng, batch, m, k), stack(rng, batch, k, n)
    c, record = cl_ctx.sgemm(on_device(queue, a), on_device(queue, b), kernel="tile",
                             return_record=True)
    assert isinstance(c, cl_array.Array) and c.shape == (batch, m, n)
    assert record.batch == batch
    assert_gemm(c.get(), a, b)


def test_batched_layouts_on_device(cl_ctx, queue, rng):
    """A broadcast 2-D B, an A of F-order matrices (a transposed view), C in place with
    beta, and a C that is every other matrix of a larger array (its offset and stride)."""
    batch, m, n, k = 4, 11, 6, 9
    a = stack(rng, batch, k, m)  # a.transpose(0, 2, 1) is m x k, each F-contiguous
    b = matrix(rng, k, n)
    c0 = stack(rng, 2 * batch + 1, m, n)
    store = on_device(queue, c0)
    c = store[1::2]
    a_dev = on_device(queue, a).transpose((0, 2, 1))
    assert c.offset == m * n * 4 and c.strides[0] == 2 * m * n * 4
    out = cl_ctx.sgemm(a_dev, on_device(queue, b), c, alpha=2.0, beta=0.5, kernel="tile")
    assert out is c
    c.finish()  # the view holds the call's event
    result = store.get()
    assert_gemm(result[1::2], a.transpose(0, 2, 1), b, c0[1::2], alpha=2.0, beta=0.5)
    np.testing.assert_array_equal(result[0::2], c0[0::2])


def test_epilogue_on_device(cl_ctx, queue, rng):
    """The bias is a pyopencl array (the library's cl_mem path), here starting inside its
    buffer; batched with one vector per product."""
    batch, m, n, k = 3, 13, 9, 7
    a, b = stack(rng, batch, m, k), stack(rng, batch, k, n)
    bias = rng.uniform(-1, 1, (batch, n)).astype(np.float32)
    store = on_device(queue, np.concatenate([np.full(3, np.nan, np.float32), bias.ravel()]))
    bias_dev = store[3:].reshape(batch, n)
    c, record = cl_ctx.sgemm(on_device(queue, a), on_device(queue, b), bias=bias_dev,
                             act="relu", kernel="tile", return_record=True)
    assert record.epilogue == "per-column bias, relu"
    assert_gemm(c.get(), a, b, bias=bias, bias_along="n", act="relu")
    a2, b2 = matrix(rng, 21, 4), matrix(rng, 4, 17)
    row_bias = rng.uniform(-1, 1, 21).astype(np.float32)
    c2 = cl_ctx.sgemm(on_device(queue, a2), on_device(queue, b2),
                      bias=on_device(queue, row_bias), bias_along="rows", act=("clamp", -1.5, 2.5),
                      kernel="tile")
    assert_gemm(c2.get(), a2, b2, bias=row_bias, bias_along="m", act=("clamp", -1.5, 2.5))


def test_epilogue_errors_on_device(cl_ctx, queue, rng):
    a_dev, b_dev = on_device(queue, matrix(rng, 6, 4)), on_device(queue, matrix(rng, 4, 5))
    with pytest.raises(TypeError, match=r"^bias must be a pyopencl.array.Array"):
        cl_ctx.sgemm(a_dev, b_dev, bias=np.ones(5, np.float32))
    with pytest.raises(ValueError, match=r"^bias has length 7, but C is 6 x 5"):
        cl_ctx.sgemm(a_dev, b_dev, bias=on_device(queue, np.ones(7, np.float32)))
    with pytest.raises(ValueError, match=r"stacks of matrices differ in length"):
        cl_ctx.sgemm(on_device(queue, stack(rng, 3, 6, 4)), on_device(queue, stack(rng, 2, 4, 5)))
