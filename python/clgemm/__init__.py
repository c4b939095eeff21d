"""clgemm: OpenCL SGEMM whose kernels are built at run time for the device.

    import numpy as np, clgemm
    ctx = clgemm.Context()                        # first GPU, else accelerator, else CPU
    a = np.random.rand(300, 200).astype(np.float32)
    b = np.asfortranarray(np.random.rand(200, 100).astype(np.float32))
    c = ctx.sgemm(a, b)                           # a @ b, a new 300 x 100 float32 array

``Context.sgemm`` takes NumPy arrays (blocking) or PyOpenCL arrays and buffers (enqueued on
the caller's queue, see ``Context.from_pyopencl``). The kernels and tuning files this package
carries are found without any environment variable: importing the package names its
``kernels/`` directory to the library (searched after $CLGEMM_KERNEL_DIR, which still wins).
"""

from collections import namedtuple
from pathlib import Path

from . import _clgemm
from ._context import Context
from ._errors import BuildError, Error, OpenCLError

GemmRecord = _clgemm.GemmRecord
DeviceLimits = _clgemm.DeviceLimits

__version__ = _clgemm.version()
__all__ = ["Context", "Error", "BuildError", "OpenCLError", "GemmRecord", "DeviceLimits",
           "Kernel", "kernels", "list_devices", "kernel_search_path", "kernel_source_path"]

_PACKAGED_KERNELS = Path(__file__).resolve().parent / "kernels"
if _PACKAGED_KERNELS.is_dir():
    _clgemm.set_kernel_directory(str(_PACKAGED_KERNELS))

Kernel = namedtuple("Kernel", "name summary precisions")
Kernel.__doc__ = "A kernel of the catalogue: its name, the idea it shows, the precisions it computes."


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
