// Internal: whether a kernel runs on a Context's device in a precision (its precisions, the
// tensor cores or wgmma it needs), and which tensor cores `auto` may use there.
#pragma once

#include "catalog/kernel_spec.hpp"
#include "clgemm/tuning.hpp"
#include "runtime/device_runtime.hpp"

namespace clgemm::detail {

// Throws Error(UnsupportedPrecision) when the kernel does not compute `precision`, or needs
// tensor cores (or wgmma) this device lacks.
void check_precision(const KernelSpec& spec, Precision precision, DeviceRuntime& device);

// The tensor cores `auto` may choose for `precision` here; the probes run only for a precision
// that tensor cores could serve.
TensorCores tensor_cores_for(Precision precision, DeviceRuntime& device);

}  // namespace clgemm::detail
