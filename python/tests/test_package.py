"""The installed package finds what it carries: the kernels and the tuning files inside it,
with no environment variable, and nothing from the machine it was built on."""

import os
from pathlib import Path

import pytest

import clgemm
from clgemm import _clgemm

PACKAGE = Path(clgemm.__file__).resolve().parent


def test_kernels_come_from_the_package():
    if os.environ.get("CLGEMM_KERNEL_DIR"):
        pytest.skip("CLGEMM_KERNEL_DIR is set, and is searched first")
    assert clgemm.kernel_search_path()[0] == str(PACKAGE / "kernels")
    assert Path(clgemm.kernel_source_path("tile.cl")) == PACKAGE / "kernels" / "tile.cl"
    assert Path(_clgemm.shipped_tuning_directory()) == PACKAGE / "tuning"


def test_package_carries_kernels_and_tuning_files():
    assert (PACKAGE / "kernels" / "blocked.cl").is_file()
    assert (PACKAGE / "kernels" / "gemm_common.clh").is_file()
    assert any((PACKAGE / "tuning").glob("*.json"))
    assert any(PACKAGE.glob("libclgemm.so*"))


def test_no_directory_outside_the_installation():
    """A wheel searches only its own places (CLGEMM_KERNEL_DIR_FALLBACKS=OFF)."""
    env = os.environ.get("CLGEMM_KERNEL_DIR")
    site = PACKAGE.parent
    for directory in clgemm.kernel_search_path():
        if directory != env:
            assert Path(directory).is_relative_to(site.parent), directory


def test_catalogue_and_version():
    names = [k.name for k in clgemm.kernels()]
    assert names[0] == "base" and "blocked" in names and "tile" in names
    # Every kernel computes fp32 except the tensor-core ones, which compute tf32 and 3xtf32 only.
    tensor_core = {"tensorcore", "wgmma"}
    assert all(("fp32" in k.precisions) != (k.name in tensor_core) for k in clgemm.kernels())
    assert all(set(k.precisions) == {"tf32", "3xtf32"} for k in clgemm.kernels()
               if k.name in tensor_core)
    assert clgemm.__version__.count(".") == 2


def test_devices(ctx):
    listed = clgemm.list_devices()
    assert listed and all(isinstance(d, clgemm.DeviceLimits) for _, _, d in listed)
    assert ctx.device.name in {d.name for _, _, d in listed}
    assert ctx.device.type in {"GPU", "CPU", "accelerator", "other"}
    assert ctx.cl_context and ctx.cl_device
    assert "clgemm.Context(device=" in repr(ctx)
