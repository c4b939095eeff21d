// Internal: whether a device runs Hopper's warpgroup MMA (wgmma) through the PTX rewrite to
// sm_90a (ptx_rewrite.hpp). Asked once per device and process before a wgmma path is trusted.
#pragma once

#include <string>

#include "clgemm/device.hpp"
#include "opencl.hpp"

namespace clgemm::detail {

struct WgmmaSupport {
  bool available = false;
  std::string reason;  // why not, or what was confirmed
};

// An NVIDIA device (CL_DEVICE_VENDOR) of compute capability exactly 9.0 (from
// cl_nv_device_attribute_query: sm_90a code runs on no other), on which kernels/wgmma_probe.cl,
// built through the PTX rewrite, ran and computed its 64 x 8 x 8 product exactly. The reason
// begins "not an NVIDIA device", "compute capability ...", "rewrite build failed: ...",
// "wrong product: ..." or "the probe kernel failed: ..." when it is not available. The answer
// is remembered per device for the process.
WgmmaSupport probe_wgmma(const cl::Context& context, const cl::Device& device,
                         const DeviceLimits& limits);

}  // namespace clgemm::detail
