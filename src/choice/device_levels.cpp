// The levels at which a tuning entry matches a device (clgemm/tuning.hpp): the device itself,
// its architecture, its vendor, its type; and the entries of the best-matching level.
#include <cctype>
#include <string>

#include "clgemm/tuning.hpp"

namespace clgemm {

const char* match_level_name(MatchLevel level) {
  switch (level) {
    case MatchLevel::Device:
      return "device";
    case MatchLevel::Architecture:
      return "architecture";
    case MatchLevel::Vendor:
      return "vendor";
    case MatchLevel::DeviceType:
      return "device type";
  }
  return "unknown";
}

std::string device_architecture(const DeviceLimits& device) {
  if (device.compute_capability > 0) return "sm_" + std::to_string(device.compute_capability);
  // PoCL names its CPU device "<driver>-<LLVM CPU>-<CPU model>", the model starting with a
  // capital ("pthread-haswell-AMD EPYC 7B13", "cpu-skylake-avx512-Intel(R) Xeon(R) ..."); the
  // LLVM CPU may itself hold dashes (x86-64-v3).
  const std::string& name = device.name;
  for (const char* driver : {"pthread-", "cpu-", "basic-", "cpu-minimal-", "cpu-tbb-"}) {
    const std::string prefix = driver;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    std::size_t end = name.size();
    for (std::size_t i = prefix.size(); i + 1 < name.size(); ++i)
      if (name[i] == '-' && std::isupper(static_cast<unsigned char>(name[i + 1]))) {
        end = i;
        break;
      }
    return name.substr(prefix.size(), end - prefix.size());
  }
  return name;
}

TunedEntry TunedEntry::for_device(const DeviceLimits& device) {
  TunedEntry e;
  e.device = device.name;
  e.platform = device.platform_name;
  e.architecture = device_architecture(device);
  e.vendor = device.vendor;
  e.device_type = device_type_name(device.type);
  return e;
}

bool TunedEntry::matches(const DeviceLimits& d, MatchLevel level) const {
  switch (level) {
    case MatchLevel::Device:
      return device == d.name && platform == d.platform_name;
    case MatchLevel::Architecture:
      return !architecture.empty() && architecture == device_architecture(d) &&
             device_type == device_type_name(d.type);
    case MatchLevel::Vendor:
      return !vendor.empty() && vendor == d.vendor && device_type == device_type_name(d.type);
    case MatchLevel::DeviceType:
      return !device_type.empty() && device_type == device_type_name(d.type);
  }
  return false;
}

std::vector<TunedEntry> TuningDatabase::entries_at(const DeviceLimits& device, Precision precision,
                                                   MatchLevel level) const {
  std::vector<TunedEntry> found;
  for (const auto& e : entries_)
    if (e.precision == precision && e.matches(device, level)) found.push_back(e);
  return found;
}

std::pair<std::vector<TunedEntry>, MatchLevel> TuningDatabase::entries_for(
    const DeviceLimits& device, Precision precision) const {
  for (MatchLevel level : kMatchLevels)
    if (auto found = entries_at(device, precision, level); !found.empty()) return {found, level};
  return {{}, MatchLevel::DeviceType};
}

}  // namespace clgemm
