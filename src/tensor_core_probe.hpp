// Internal: whether a device runs the tensor-core kernel. Asked once per device and process.
#pragma once

#include <string>

#include "clgemm/device.hpp"
#include "opencl.hpp"

namespace clgemm::detail {

struct TensorCoreSupport {
  bool available = false;
  std::string reason;  // why not, or what was confirmed
};

// An NVIDIA device (CL_DEVICE_VENDOR), compute capability 8.0 or newer (from
// cl_nv_device_attribute_query), on which kernels/tensorcore_probe.cl built, ran and computed
// its 16 x 8 x 8 product exactly. The answer is remembered per device for the process.
TensorCoreSupport probe_tensor_cores(const cl::Context& context, const cl::Device& device,
                                     const DeviceLimits& limits);

}  // namespace clgemm::detail
