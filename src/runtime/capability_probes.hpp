// Internal: what a device runs beyond what its driver says, asked once per device and process
// before it is trusted: the tensor-core kernels (mma.sync, kernel 'tensorcore'; Hopper's
// warpgroup MMA through the PTX rewrite to sm_90a, kernel 'wgmma', runtime/ptx_rewrite.hpp),
// and work-groups of a kernel's required size above its reported CL_KERNEL_WORK_GROUP_SIZE.
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

// Whether a kernel compiled with reqd_work_group_size runs work-groups of that size when the
// driver reports a smaller CL_KERNEL_WORK_GROUP_SIZE. NVIDIA's OpenCL driver (580 on an H200)
// reports 256 for every kernel, a 10-register one included, against a
// CL_DEVICE_MAX_WORK_GROUP_SIZE of 1024; its compiler writes reqd_work_group_size into the PTX
// as `.reqntid`, so ptxas fits the kernel's registers to that many work-items or refuses to
// build it, and groups of 512 and 1024 run and compute right. So on an NVIDIA device, where
// kernels/group_size_probe.cl ran a group of CL_DEVICE_MAX_WORK_GROUP_SIZE and summed exactly,
// a kernel's limit is its required size (DeviceRuntime::work_group_limit). Other devices: not
// probed, the reported size is the limit.
Capability probe_required_group_sizes(const cl::Context& context, const cl::Device& device,
                                      const DeviceLimits& limits);

// The probe's kernel, run once on any device as work-groups of `group` (tests run it on PoCL).
Capability run_work_groups_of(const cl::Context& context, const cl::Device& device,
                              std::size_t group);

}  // namespace clgemm::detail
