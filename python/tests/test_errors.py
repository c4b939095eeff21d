"""Every way a call is refused: Python-level TypeError / ValueError naming the argument for
operands of the wrong type, dtype, layout or shape, and clgemm.Error carrying the library's
code, argument and message for what the library refuses. A refused call leaves C as it was."""

import numpy as np
import pytest

import clgemm
from clgemm import _clgemm
from conftest import matrix


@pytest.fixture
def abc(rng):
    return matrix(rng, 6, 4), matrix(rng, 4, 5), matrix(rng, 6, 5)


@pytest.mark.parametrize("name", ["a", "b", "c"])
@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int32, ">f4"])
def test_other_dtypes_are_refused(ctx, abc, name, dtype):
    args = dict(zip("abc", abc))
    args[name] = args[name].astype(dtype)
    with pytest.raises(TypeError, match=rf"^{name} has dtype .*float32"):
        ctx.sgemm(**args)


def test_non_arrays_are_refused(ctx, abc):
    a, b, _ = abc
    with pytest.raises(TypeError, match=r"^a must be a numpy.ndarray.* not list"):
        ctx.sgemm(a.tolist(), b)


@pytest.mark.parametrize("name", ["a", "b", "c"])
def test_strided_views_are_refused(ctx, rng, abc, name):
    args = dict(zip("abc", abc))
    wide = matrix(rng, args[name].shape[0], 2 * args[name].shape[1])
    args[name] = wide[:, ::2]
    with pytest.raises(ValueError, match=rf"^{name} is a strided view.*ascontiguousarray"):
        ctx.sgemm(**args)


def test_padded_rows_are_refused(ctx, rng, abc):
    """A slice of columns has unit stride but rows longer than the matrix: still refused."""
    _, b, _ = abc
    with pytest.raises(ValueError, match=r"^a is a strided view"):
        ctx.sgemm(matrix(rng, 6, 9)[:, :4], b)


def test_reversed_views_are_refused(ctx, abc):
    a, b, _ = abc
    with pytest.raises(ValueError, match=r"^a is a strided view"):
        ctx.sgemm(a[::-1], b)


@pytest.mark.parametrize("shape", [(24,), (2, 3, 2, 2)])
def test_other_ranks_are_refused(ctx, abc, shape):
    _, b, _ = abc
    with pytest.raises(ValueError, match=r"^a must be a matrix \(2-D\)"):
        ctx.sgemm(np.zeros(shape, np.float32), b)


def test_inner_sizes_must_agree(ctx, rng):
    with pytest.raises(ValueError, match=r"^a is 6 x 4 but b is 5 x 5"):
        ctx.sgemm(matrix(rng, 6, 4), matrix(rng, 5, 5))
    with pytest.raises(ValueError, match=r"^a.T is 4 x 6 but b is 4 x 5"):
        ctx.sgemm(matrix(rng, 6, 4), matrix(rng, 4, 5), trans_a=True)


@pytest.mark.parametrize("name", ["trans_a", "trans_b"])
@pytest.mark.parametrize("flag", ["X", "", "NT", "no", "transpose"])
def test_transpose_flag_values(ctx, abc, name, flag):
    with pytest.raises(ValueError, match=rf"^{name} must be False, True or a BLAS letter"):
        ctx.sgemm(*abc, **{name: flag})


@pytest.mark.parametrize("name", ["trans_a", "trans_b"])
@pytest.mark.parametrize("flag", [1, 0, None, 1.0, b"T", ["T"]])
def test_transpose_flag_types(ctx, abc, name, flag):
    """Only a bool or a letter: 0, 1 or None are not read for their truthiness either."""
    with pytest.raises(TypeError, match=rf"^{name} must be a bool or a BLAS letter"):
        ctx.sgemm(*abc, **{name: flag})


def test_c_shape_must_match(ctx, abc):
    a, b, _ = abc
    with pytest.raises(ValueError, match=r"^c has shape \(5, 6\), but the product is \(6, 5\)"):
        ctx.sgemm(a, b, np.zeros((5, 6), np.float32))


def test_c_must_be_writable(ctx, abc):
    a, b, c = abc
    c.flags.writeable = False
    with pytest.raises(ValueError, match=r"^c is read-only"):
        ctx.sgemm(a, b, c)


def test_beta_without_c(ctx, abc):
    a, b, _ = abc
    with pytest.raises(ValueError, match=r"^beta = 0.5 scales c, but no c was given"):
        ctx.sgemm(a, b, beta=0.5)


def test_queue_needs_device_operands(ctx, abc):
    with pytest.raises(TypeError, match=r"^queue= and wait_for= go with PyOpenCL operands"):
        ctx.sgemm(*abc, queue=object())


def test_sizes_only_for_bare_buffers(ctx, abc):
    with pytest.raises(TypeError, match=r"^m=, n=, k= go with bare pyopencl.Buffer operands"):
        ctx.sgemm(*abc, m=6)


def test_unknown_kernel(ctx, abc):
    a, b, c = abc
    before = c.copy()
    with pytest.raises(clgemm.Error) as caught:
        ctx.sgemm(a, b, c, beta=1.0, kernel="nope")
    error = caught.value
    assert isinstance(error, RuntimeError)
    assert error.code == "unknown-kernel"
    assert "nope" in error.message and "tile" in error.message  # lists the valid names
    assert str(error).endswith("[unknown-kernel]")
    np.testing.assert_array_equal(c, before)  # a refused call leaves C untouched


def test_bad_kernel_option(ctx, abc):
    with pytest.raises(clgemm.Error) as caught:
        ctx.sgemm(*abc, kernel="tile:NOPE=3")
    assert caught.value.code == "invalid-option"
    with pytest.raises(clgemm.Error) as caught:
        ctx.sgemm(*abc, kernel="tile:TILE=")
    assert caught.value.code == "invalid-option"


def test_bad_precision(ctx, abc):
    with pytest.raises(clgemm.Error) as caught:
        ctx.sgemm(*abc, precision="fp16")
    assert caught.value.code == "invalid-argument" and caught.value.argument == "precision"
    assert "3xtf32" in caught.value.message  # names the valid values


def test_precision_the_kernel_cannot_compute(ctx, abc):
    with pytest.raises(clgemm.Error) as caught:
        ctx.sgemm(*abc, kernel="tile", precision="tf32")
    assert caught.value.code == "unsupported-precision"


@pytest.mark.parametrize("argument", ["kernel", "precision"])
def test_settings_must_be_strings(ctx, abc, argument):
    with pytest.raises(TypeError, match=rf"^{argument} must be a str"):
        ctx.sgemm(*abc, **{argument: 3})


def test_device_selectors(ctx):
    with pytest.raises(TypeError, match=r"^device must be None, an index"):
        clgemm.Context(device=1.5)
    with pytest.raises(ValueError, match=r"^platform index -1 is negative"):
        clgemm.Context(platform=-1)
    with pytest.raises(clgemm.Error) as caught:
        clgemm.Context(device="no device is called this")
    assert caught.value.code == "no-platform"


def test_binding_checks_array_extents(ctx, abc):
    """The extension itself never reads past an array, whatever the problem claims."""
    a, b, c = abc
    problem = _clgemm.GemmProblem()
    problem.layout, problem.m, problem.n, problem.k = 101, 6, 5, 8  # A would be 6 x 8
    problem.lda, problem.ldb, problem.ldc = 8, 5, 5
    with pytest.raises(ValueError, match=r"a spans 24 floats, but the problem reads 48"):
        ctx._native.sgemm_host(problem, a, b, c, "auto", "fp32")
    with pytest.raises(TypeError):  # no silent conversion of C into a temporary copy
        ctx._native.sgemm_host(problem, a, b, c.astype(np.float64), "auto", "fp32")


def test_library_errors_from_the_binding(ctx, abc):
    """A problem the Python layer would never build reaches the library's own checks."""
    a, b, c = abc
    problem = _clgemm.GemmProblem()
    problem.layout, problem.m, problem.n, problem.k = 101, 6, 5, 4
    problem.lda, problem.ldb, problem.ldc = 3, 5, 5  # lda < K
    with pytest.raises(clgemm.Error) as caught:
        ctx._native.sgemm_host(problem, a, b, c, "auto", "fp32")
    assert caught.value.code == "invalid-leading-dimension"
    assert caught.value.argument == "lda"


def test_build_error_carries_the_log(abc, tmp_path, monkeypatch):
    """A kernel source the OpenCL compiler rejects (CLGEMM_KERNEL_DIR, searched first, holds a
    broken tile.cl) is a clgemm.BuildError with the kernel, options and the build log."""
    (tmp_path / "tile.cl").write_text("__kernel void gemm_tile(__global float* c) { c[0] = ; }\n")
    monkeypatch.setenv("CLGEMM_KERNEL_DIR", str(tmp_path))
    a, b, c = abc
    before = c.copy()
    with pytest.raises(clgemm.BuildError) as caught:
        clgemm.Context().sgemm(a, b, c, beta=1.0, kernel="tile")
    error = caught.value
    assert isinstance(error, clgemm.Error) and error.code == "build-failed"
    assert error.kernel == "tile" and "-D TILE=" in error.options and error.log
    np.testing.assert_array_equal(c, before)
