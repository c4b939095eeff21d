// Device choice: explicit request, then CLGEMM_PLATFORM / CLGEMM_DEVICE, then the first GPU,
// else any accelerator, else the CPU. Selectors are indices or case-insensitive name substrings.
#include "runtime/device_selection.hpp"

#include <CL/cl_ext.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "clgemm/errors.hpp"

namespace clgemm {

const char* device_type_name(DeviceType type) {
  switch (type) {
    case DeviceType::GPU:
      return "GPU";
    case DeviceType::Accelerator:
      return "accelerator";
    case DeviceType::CPU:
      return "CPU";
    case DeviceType::Other:
      return "other";
  }
  return "other";
}

namespace detail {
namespace {

const char* kNoPlatformHelp =
    "no OpenCL platform found. Install an OpenCL driver: on Debian, 'apt-get install "
    "pocl-opencl-icd' runs kernels on the CPU; GPU vendors ship their own ICD "
    "(check /etc/OpenCL/vendors or OCL_ICD_VENDORS)";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool is_index(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// True when `selector` (an index or a name substring) picks entry `index` named `name`.
bool matches(const std::string& selector, std::size_t index, const std::string& name) {
  if (selector.empty()) return true;
  if (is_index(selector)) {  // compared as digits, so no index is too long to read
    const std::size_t first = std::min(selector.find_first_not_of('0'), selector.size() - 1);
    return selector.substr(first) == std::to_string(index);
  }
  return lower(name).find(lower(selector)) != std::string::npos;
}

std::string from_env(const std::string& value, const char* variable) {
  if (!value.empty()) return value;
  const char* env = std::getenv(variable);
  return env ? env : "";
}

DeviceType to_type(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return DeviceType::GPU;
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return DeviceType::Accelerator;
  if (type & CL_DEVICE_TYPE_CPU) return DeviceType::CPU;
  return DeviceType::Other;
}

std::vector<cl::Platform> platforms() {
  std::vector<cl::Platform> list;
  // With no ICD registered the loader reports CL_PLATFORM_NOT_FOUND_KHR (-1001).
  try {
    cl::Platform::get(&list);
  } catch (const cl::Error&) {
    list.clear();
  }
  if (list.empty()) throw Error(ErrorCode::NoPlatform, kNoPlatformHelp);
  return list;
}

std::vector<cl::Device> devices_of(const cl::Platform& platform) {
  std::vector<cl::Device> list;
  try {
    platform.getDevices(CL_DEVICE_TYPE_ALL, &list);
  } catch (const cl::Error&) {
    list.clear();  // CL_DEVICE_NOT_FOUND: a platform with no devices
  }
  return list;
}

}  // namespace

DeviceLimits query_limits(const cl::Platform& platform, const cl::Device& device) {
  DeviceLimits d;
  d.platform_name = platform.getInfo<CL_PLATFORM_NAME>();
  d.platform_version = platform.getInfo<CL_PLATFORM_VERSION>();
  d.name = device.getInfo<CL_DEVICE_NAME>();
  d.vendor = device.getInfo<CL_DEVICE_VENDOR>();
  d.driver_version = device.getInfo<CL_DRIVER_VERSION>();
  d.type = to_type(device.getInfo<CL_DEVICE_TYPE>());
  d.compute_units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  d.max_work_group_size = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  const auto sizes = device.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>();
  for (std::size_t i = 0; i < 3 && i < sizes.size(); ++i) d.max_work_item_sizes[i] = sizes[i];
  d.local_memory_bytes = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  d.max_allocation_bytes = device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
  d.global_memory_bytes = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  d.base_address_align_bits = device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>();
  d.host_unified_memory = device.getInfo<CL_DEVICE_HOST_UNIFIED_MEMORY>() == CL_TRUE;
  d.extensions = device.getInfo<CL_DEVICE_EXTENSIONS>();
  if (d.extensions.find("cl_nv_device_attribute_query") != std::string::npos) {
    cl_uint major = 0, minor = 0;
    if (clGetDeviceInfo(device(), CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major,
                        nullptr) == CL_SUCCESS &&
        clGetDeviceInfo(device(), CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof minor, &minor,
                        nullptr) == CL_SUCCESS)
      d.compute_capability = int(major * 10 + minor);
  }
  // Trailing NULs and spaces appear in some drivers' strings.
  for (std::string* s : {&d.platform_name, &d.name, &d.vendor, &d.driver_version}) {
    while (!s->empty() && (s->back() == '\0' || s->back() == ' ')) s->pop_back();
  }
  return d;
}

SelectedDevice select_device(const DeviceRequest& request) {
  const std::string platform_sel = from_env(request.platform, "CLGEMM_PLATFORM");
  const std::string device_sel = from_env(request.device, "CLGEMM_DEVICE");
  const auto all_platforms = platforms();

  std::vector<SelectedDevice> candidates;
  std::string seen;
  for (std::size_t p = 0; p < all_platforms.size(); ++p) {
    const auto platform_name = all_platforms[p].getInfo<CL_PLATFORM_NAME>();
    const auto devices = devices_of(all_platforms[p]);
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const auto device_name = devices[i].getInfo<CL_DEVICE_NAME>();
      seen += "\n  platform " + std::to_string(p) + " '" + platform_name + "', device " +
              std::to_string(i) + " '" + device_name + "'";
      if (matches(platform_sel, p, platform_name) && matches(device_sel, i, device_name))
        candidates.push_back({all_platforms[p], devices[i], {}});
    }
  }
  if (candidates.empty()) {
    throw Error(ErrorCode::NoPlatform, "no OpenCL device matches platform '" + platform_sel +
                                           "' and device '" + device_sel +
                                           "' (CLGEMM_PLATFORM / CLGEMM_DEVICE); available:" +
                                           (seen.empty() ? std::string(" none") : seen));
  }
  // Preference among the matches: GPU, then accelerator, then CPU, then anything.
  auto rank = [](const cl::Device& d) { return int(to_type(d.getInfo<CL_DEVICE_TYPE>())); };
  auto best = std::min_element(candidates.begin(), candidates.end(),
                               [&](const SelectedDevice& a, const SelectedDevice& b) {
                                 return rank(a.device) < rank(b.device);
                               });
  best->limits = query_limits(best->platform, best->device);
  return *best;
}

}  // namespace detail

std::vector<DeviceListing> list_devices() {
  std::vector<DeviceListing> out;
  const auto all_platforms = detail::platforms();
  for (std::size_t p = 0; p < all_platforms.size(); ++p) {
    const auto devices = detail::devices_of(all_platforms[p]);
    for (std::size_t i = 0; i < devices.size(); ++i)
      out.push_back({p, i, detail::query_limits(all_platforms[p], devices[i])});
  }
  return out;
}

}  // namespace clgemm
