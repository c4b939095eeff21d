// The pieces of the extension module clgemm._clgemm, each bound in a file of its own and
// registered by module.cpp. The module is a thin layer over the C++ API: the Python package
// (python/clgemm/) turns NumPy and PyOpenCL operands into a GemmProblem and calls it.
#pragma once

#include <nanobind/nanobind.h>

namespace clgemm::python {

// clgemm::Error and its subclasses raised as clgemm.Error, BuildError and OpenCLError.
void bind_errors(nanobind::module_& module);
// The value types: GemmProblem (read-write), GemmRecord and DeviceLimits (read-only).
void bind_values(nanobind::module_& module);
// Context and its two sgemm paths (host arrays, OpenCL buffers on a caller's queue).
void bind_context(nanobind::module_& module);
// The catalogue, the kernel directory and the device list.
void bind_library(nanobind::module_& module);

}  // namespace clgemm::python
