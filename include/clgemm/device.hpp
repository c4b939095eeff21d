// Choosing an OpenCL device and describing its limits. DeviceLimits is a plain value so that
// the option derivation can be exercised with invented devices in tests.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "clgemm/export.h"

namespace clgemm {

enum class DeviceType { GPU, Accelerator, CPU, Other };

// What the library needs to know about a device to build and launch its kernels.
struct CLGEMM_API DeviceLimits {
  std::string platform_name;
  std::string platform_version;
  std::string name;
  std::string vendor;
  std::string driver_version;
  DeviceType type = DeviceType::Other;
  std::size_t compute_units = 1;
  std::size_t max_work_group_size = 256;
  std::size_t max_work_item_sizes[3] = {256, 256, 256};
  std::size_t local_memory_bytes = 32 * 1024;
  std::size_t max_allocation_bytes = std::size_t(1) << 30;
  std::size_t global_memory_bytes = std::size_t(1) << 32;
  std::size_t base_address_align_bits = 1024;  // CL_DEVICE_MEM_BASE_ADDR_ALIGN
  bool host_unified_memory = false;            // CL_DEVICE_HOST_UNIFIED_MEMORY (CPUs, iGPUs)
  int compute_capability = 0;  // NVIDIA: major * 10 + minor (cl_nv_device_attribute_query); else 0
  std::string extensions;
};

CLGEMM_API const char* device_type_name(DeviceType type);

// Which device to use. Empty fields fall back to the environment variables CLGEMM_PLATFORM and
// CLGEMM_DEVICE, then to the default: the first GPU, else any accelerator, else the CPU. Each
// selector is an index ("0", "1", ...) or a case-insensitive substring of the name.
struct CLGEMM_API DeviceRequest {
  std::string platform;
  std::string device;
};

// One entry per device on every platform, in enumeration order.
struct CLGEMM_API DeviceListing {
  std::size_t platform_index;
  std::size_t device_index;
  DeviceLimits limits;
};
CLGEMM_API std::vector<DeviceListing> list_devices();

}  // namespace clgemm
