// What the library says about itself: its version, the kernel catalogue, where kernel sources
// and the shipped tuning files are found (and the directory the package names for them), and
// the OpenCL devices there are.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <tuple>
#include <vector>

#include "bindings.hpp"
#include "clgemm/device.hpp"
#include "clgemm/kernels.hpp"
#include "clgemm/precision.hpp"
#include "clgemm/tuning.hpp"
#include "clgemm/version.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace clgemm::python {

void bind_library(nb::module_& module) {
  module.def("version", [] { return std::string(version()); });
  module.def(
      "kernel_catalog",
      [] {
        std::vector<std::tuple<std::string, std::string, std::vector<std::string>>> kernels;
        for (const auto& kernel : kernel_catalog()) {
          std::vector<std::string> precisions;
          for (Precision p : kernel.precisions) precisions.push_back(precision_name(p));
          kernels.emplace_back(kernel.name, kernel.summary, precisions);
        }
        return kernels;
      },
      "(name, summary, precisions) of every kernel, in ladder order.");
  module.def("kernel_search_path", &kernel_search_path);
  module.def("kernel_source_path", &kernel_source_path, "name"_a);
  module.def("set_kernel_directory", &set_kernel_directory, "directory"_a);
  module.def("shipped_tuning_directory", &TuningDatabase::shipped_directory);
  module.def(
      "list_devices",
      [] {
        std::vector<std::tuple<std::size_t, std::size_t, DeviceLimits>> devices;
        for (const auto& d : list_devices())
          devices.emplace_back(d.platform_index, d.device_index, d.limits);
        return devices;
      },
      "(platform index, device index, DeviceLimits) of every OpenCL device.");
}

}  // namespace clgemm::python
