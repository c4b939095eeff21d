// Internal: opening the OpenCL device a DeviceRequest names, and reading its limits.
#pragma once

#include "clgemm/device.hpp"
#include "support/opencl.hpp"

namespace clgemm::detail {

struct SelectedDevice {
  cl::Platform platform;
  cl::Device device;
  DeviceLimits limits;
};

SelectedDevice select_device(const DeviceRequest& request);
DeviceLimits query_limits(const cl::Platform& platform, const cl::Device& device);

}  // namespace clgemm::detail
