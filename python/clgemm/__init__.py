"""clgemm: OpenCL SGEMM whose kernels are built at run time for the device.

    import numpy as np, clgemm
    ctx = clgemm.Context()                        # first GPU, else accelerator, else CPU
    a = np.random.rand(300, 200).astype(np.float32)
    b = np.asfortranarray(np.random.rand(200, 100).astype(np.float32))
    c = ctx.sgemm(a, b)                           # a @ b, a new 300 x 100 float32 array
    y = clgemm.matmul(np.ones((8, 300, 200), np.float32), b)   # numpy.matmul's rules

``Context.sgemm`` is the BLAS-style call: NumPy arrays (blocking) or PyOpenCL arrays and
buffers (enqueued on the caller's queue, see ``Context.from_pyopencl``), float32 and laid out
as the library reads them. ``clgemm.matmul`` follows numpy.matmul's rules instead (stacks,
broadcasting, vectors, out=), converting or copying operands where it must. The kernels and tuning files this package
carries are found without any environment variable: importing the package names its
``kernels/`` directory to the library (searched after $CLGEMM_KERNEL_DIR, which still wins).
"""

from collections import namedtuple
from pathlib import Path

from . import _clgemm
from ._context import Context
from ._errors import BuildError, Error, OpenCLError
from ._matmul import default_context

GemmRecord = _clgemm.GemmRecord
DeviceLimits = _clgemm.DeviceLimits

__version__ = _clgemm.version()
__all__ = ["Context", "Error", "BuildError", "OpenCLError", "GemmRecord", "DeviceLimits",
           "Kernel", "kernels", "list_devices", "kernel_search_path", "kernel_source_path",
           "matmul", "default_context"]

_PACKAGED_KERNELS = Path(__file__).resolve().parent / "kernels"
if _PACKAGED_KERNELS.is_dir():
    _clgemm.set_kernel_directory(str(_PACKAGED_KERNELS))

Kernel = namedtuple("Kernel", "name summary precisions")
Kernel.__doc__ = "A kernel of the catalogue: its name, the idea it shows, the precisions it computes."


def matmul(a, b, out=None, *, casting=None, copy=None, precision="fp32", kernel="auto",
           return_records=False):
    """numpy.matmul(a, b, out=out), computed by the library in float32 on default_context().

    numpy.matmul's rules: 2-D matrices, stacks with leading axes broadcast against each other
    (the library's strided batch; a broadcast axis has stride 0), a 1-D a is a row and a 1-D
    b a column, the added axis removed from the result (two vectors give a scalar). The result
    is float32: a new C-contiguous array, or `out` (float32, the result's shape) written in
    place and returned.

    Operands are converted or copied where the library cannot read them as they are: another
    dtype becomes float32, a strided, reversed or otherwise non-contiguous view (or a list)
    is copied. copy=False forbids both (ValueError instead); copy=True is the same as None
    (the operands are never written). A float wider than float32 (float64, longdouble) or a
    complex array is a TypeError unless casting= allows it as numpy.can_cast does
    (casting="same_kind" rounds float64 to float32); None, the default, converts integers,
    booleans and float16 only.

    precision: "fp32", "tf32" or "3xtf32"; kernel: as in Context.sgemm. return_records=True
    returns (result, records): the GemmRecord of each library call (one per index of the
    batch axes that could not be merged into one strided batch; none for an empty result).
    """
    return default_context().matmul(a, b, out, casting=casting, copy=copy, precision=precision,
                                    kernel=kernel, return_records=return_records)


def kernels():
    """Every kernel ``sgemm(kernel=...)`` takes, in ladder order, as Kernel tuples."""
    return [Kernel(*entry) for entry in _clgemm.kernel_catalog()]


def list_devices():
    """(platform index, device index, DeviceLimits) for every OpenCL device."""
    return _clgemm.list_devices()


def kernel_search_path():
    """The directories kernel sources are looked for in, in order."""
    return _clgemm.kernel_search_path()


def kernel_source_path(name):
    """The file a kernel source (e.g. "tile.cl") is loaded from; clgemm.Error if none."""
    return _clgemm.kernel_source_path(name)
