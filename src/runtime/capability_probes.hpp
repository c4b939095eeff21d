// Internal: whether a device runs the tensor-core kernels, asked once per device and process
// before a tensor-core path is trusted: mma.sync (kernel 'tensorcore') and Hopper's warpgroup
// MMA through the PTX rewrite to sm_90a (kernel 'wgmma', runtime/ptx_rewrite.hpp).
#pragma once

#include <string>

#include "clgemm/device.hpp"
#include "support/opencl.hpp"

namespace clgemm::detail {

struct Capability {
  bool available = false;
  std::string reason;  // why not, or what was confirmed
};

// An NVIDIA device (CL_DEVICE_VENDOR), compute capability 8.0 or newer (from
// cl_nv_device_attribute_query), on which kernels/tensorcore_probe.cl built, ran and computed
// its 16 x 8 x 8 product exactly and rounded to TF32 as the portable path does.
Capability probe_tensor_cores(const cl::Context& context, const cl::Device& device,
                              const DeviceLimits& limits);

// An NVIDIA device of compute capability exactly 9.0 (sm_90a code runs on no other), on which
// kernels/wgmma_probe.cl, built through the PTX rewrite, ran and computed its 64 x 8 x 8
// product exactly. The reason begins "not an NVIDIA device", "compute capability ...",
// "rewrite build failed: ...", "wrong product: ..." or "the probe kernel failed: ..." when it
// is not available.
Capability probe_wgmma(const cl::Context& context, const cl::Device& device,
                       const DeviceLimits& limits);

}  // namespace clgemm::detail
