// The value types of the API as Python classes: GemmProblem with every field read-write (the
// package fills one per call), GemmRecord and DeviceLimits read-only. Enumerations appear as
// the names the library spells them with ("fp32", "compiled", "gpu"); layout and transposes as
// their CBLAS values; the epilogue's bias and activation as "per-row", "gelu", ...
#include <nanobind/stl/array.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <string>
#include <tuple>

#include "bindings.hpp"
#include "clgemm/device.hpp"
#include "clgemm/epilogue.hpp"
#include "clgemm/errors.hpp"
#include "clgemm/gemm.hpp"
#include "clgemm/precision.hpp"

namespace nb = nanobind;

namespace clgemm::python {
namespace {

// The enumeration value the library spells `name`; clgemm.Error(invalid-argument) naming
// `argument` and the valid names otherwise.
template <typename Enum, std::size_t Count>
Enum parse_name(const std::string& name, const Enum (&values)[Count], const char* (*name_of)(Enum),
                Argument argument) {
  std::string valid;
  for (Enum value : values) {
    if (name == name_of(value)) return value;
    valid += std::string(valid.empty() ? "" : ", ") + name_of(value);
  }
  throw Error(
      ErrorCode::InvalidArgument,
      std::string(argument_name(argument)) + " '" + name + "' is unknown (valid: " + valid + ")",
      argument);
}

constexpr Bias kBiases[] = {Bias::None, Bias::PerRow, Bias::PerColumn};
constexpr Activation kActivations[] = {Activation::None, Activation::ReLU, Activation::GELU,
                                       Activation::Clamp};

// The epilogue without its vector: the sgemm paths set bias_data or bias_buffer from the
// array they are given.
void bind_epilogue(nb::module_& module) {
  nb::class_<Epilogue>(module, "Epilogue",
                       "C = act(alpha * op(A) * op(B) + beta * C + bias), as the C++ Epilogue.")
      .def(nb::init<>())
      .def_prop_rw(
          "bias", [](const Epilogue& e) { return std::string(bias_name(e.bias)); },
          [](Epilogue& e, const std::string& name) {
            e.bias = parse_name(name, kBiases, &bias_name, Argument::Bias);
          },
          "\"none\", \"per-row\" (M values) or \"per-column\" (N values)")
      .def_rw("bias_offset", &Epilogue::bias_offset, "elements from the vector's start")
      .def_rw("bias_stride", &Epilogue::bias_stride,
              "elements between the vectors of consecutive products (0: one shared vector)")
      .def_prop_rw(
          "activation",
          [](const Epilogue& e) { return std::string(activation_name(e.activation)); },
          [](Epilogue& e, const std::string& name) {
            e.activation = parse_name(name, kActivations, &activation_name, Argument::Activation);
          },
          "\"none\", \"relu\", \"gelu\" or \"clamp\"")
      .def_rw("clamp_low", &Epilogue::clamp_low)
      .def_rw("clamp_high", &Epilogue::clamp_high)
      .def("__repr__",
           [](const Epilogue& e) { return "Epilogue('" + describe_epilogue(e) + "')"; });
}

void bind_problem(nb::module_& module) {
  nb::class_<GemmProblem>(module, "GemmProblem",
                          "C = alpha * op(A) * op(B) + beta * C, as the C++ GemmProblem.")
      .def(nb::init<>())
      .def_prop_rw(
          "layout", [](const GemmProblem& p) { return int(p.layout); },
          [](GemmProblem& p, int value) { p.layout = Layout(value); },
          "101 (row-major) or 102 (column-major)")
      .def_prop_rw(
          "trans_a", [](const GemmProblem& p) { return is_transposed(p.trans_a); },
          [](GemmProblem& p, bool value) {
            p.trans_a = value ? Transpose::Trans : Transpose::NoTrans;
          })
      .def_prop_rw(
          "trans_b", [](const GemmProblem& p) { return is_transposed(p.trans_b); },
          [](GemmProblem& p, bool value) {
            p.trans_b = value ? Transpose::Trans : Transpose::NoTrans;
          })
      .def_rw("m", &GemmProblem::m)
      .def_rw("n", &GemmProblem::n)
      .def_rw("k", &GemmProblem::k)
      .def_rw("alpha", &GemmProblem::alpha)
      .def_rw("beta", &GemmProblem::beta)
      .def_rw("lda", &GemmProblem::lda)
      .def_rw("ldb", &GemmProblem::ldb)
      .def_rw("ldc", &GemmProblem::ldc)
      .def_rw("a_offset", &GemmProblem::a_offset)
      .def_rw("b_offset", &GemmProblem::b_offset)
      .def_rw("c_offset", &GemmProblem::c_offset)
      .def_rw("batch", &GemmProblem::batch)
      .def_rw("stride_a", &GemmProblem::stride_a, "elements between products' A (0 broadcasts)")
      .def_rw("stride_b", &GemmProblem::stride_b, "elements between products' B (0 broadcasts)")
      .def_rw("stride_c", &GemmProblem::stride_c)
      .def_rw("epilogue", &GemmProblem::epilogue)
      .def("a_elements", &GemmProblem::a_elements)
      .def("b_elements", &GemmProblem::b_elements)
      .def("c_elements", &GemmProblem::c_elements)
      .def("bias_elements", &GemmProblem::bias_elements)
      .def("__repr__", [](const GemmProblem& p) {
        return "GemmProblem(layout=" + std::to_string(int(p.layout)) +
               ", trans_a=" + (is_transposed(p.trans_a) ? "True" : "False") +
               ", trans_b=" + (is_transposed(p.trans_b) ? "True" : "False") +
               ", m=" + std::to_string(p.m) + ", n=" + std::to_string(p.n) +
               ", k=" + std::to_string(p.k) + ", lda=" + std::to_string(p.lda) +
               ", ldb=" + std::to_string(p.ldb) + ", ldc=" + std::to_string(p.ldc) +
               ", batch=" + std::to_string(p.batch) + ", stride_a=" + std::to_string(p.stride_a) +
               ", stride_b=" + std::to_string(p.stride_b) +
               ", stride_c=" + std::to_string(p.stride_c) + ", epilogue='" +
               describe_epilogue(p.epilogue) + "')";
      });
}

void bind_record(nb::module_& module) {
  nb::class_<GemmRecord>(module, "GemmRecord", "What one sgemm call ran (the C++ GemmRecord).")
      .def_ro("kernel", &GemmRecord::kernel,
              "the kernel that ran: a catalogue name, "
              "\"scale_c\" (C = beta * C only) or \"none\"")
      .def_ro("kernel_choice", &GemmRecord::kernel_choice,
              "why: auto's choice, or the BLAS case that needed no product")
      .def_prop_ro("precision", [](const GemmRecord& r) { return precision_name(r.precision); })
      .def_ro("precision_path", &GemmRecord::precision_path)
      .def_ro("options", &GemmRecord::options, "the parameters the kernel was built with")
      .def_ro("build_options", &GemmRecord::build_options)
      .def_prop_ro(
          "origin", [](const GemmRecord& r) { return program_origin_name(r.origin); },
          "where the program came from: none, compiled, disk cache or memory")
      .def_ro("build_seconds", &GemmRecord::build_seconds)
      .def_ro("kernel_local_memory_bytes", &GemmRecord::kernel_local_memory_bytes)
      .def_ro("kernel_compile_work_group", &GemmRecord::kernel_compile_work_group)
      .def_ro("split_k", &GemmRecord::split_k)
      .def_ro("copied_a", &GemmRecord::copied_a)
      .def_ro("copied_b", &GemmRecord::copied_b)
      .def_ro("launches", &GemmRecord::launches)
      .def_ro("workspace_bytes", &GemmRecord::workspace_bytes)
      .def_ro("batch", &GemmRecord::batch, "products computed")
      .def_ro("product_table", &GemmRecord::product_table,
              "whether their offsets and scalars came from a product table")
      .def_ro("epilogue", &GemmRecord::epilogue,
              "what the store applied, e.g. \"per-column bias, gelu\" (\"none\")")
      .def("__repr__", [](const GemmRecord& r) {
        return "GemmRecord(kernel='" + r.kernel + "', kernel_choice='" + r.kernel_choice +
               "', precision='" + precision_name(r.precision) +
               "', launches=" + std::to_string(r.launches) + ", origin='" +
               program_origin_name(r.origin) + "', batch=" + std::to_string(r.batch) +
               ", epilogue='" + r.epilogue + "')";
      });
}

void bind_device(nb::module_& module) {
  nb::class_<DeviceLimits>(module, "DeviceLimits", "What the library knows of a device.")
      .def_ro("platform_name", &DeviceLimits::platform_name)
      .def_ro("platform_version", &DeviceLimits::platform_version)
      .def_ro("name", &DeviceLimits::name)
      .def_ro("vendor", &DeviceLimits::vendor)
      .def_ro("driver_version", &DeviceLimits::driver_version)
      .def_prop_ro("type", [](const DeviceLimits& d) { return device_type_name(d.type); })
      .def_ro("compute_units", &DeviceLimits::compute_units)
      .def_ro("max_work_group_size", &DeviceLimits::max_work_group_size)
      .def_prop_ro("max_work_item_sizes",
                   [](const DeviceLimits& d) {
                     return std::make_tuple(d.max_work_item_sizes[0], d.max_work_item_sizes[1],
                                            d.max_work_item_sizes[2]);
                   })
      .def_ro("local_memory_bytes", &DeviceLimits::local_memory_bytes)
      .def_ro("max_allocation_bytes", &DeviceLimits::max_allocation_bytes)
      .def_ro("global_memory_bytes", &DeviceLimits::global_memory_bytes)
      .def_ro("compute_capability", &DeviceLimits::compute_capability)
      .def("__repr__", [](const DeviceLimits& d) {
        return "DeviceLimits(name='" + d.name + "', platform='" + d.platform_name + "', type='" +
               device_type_name(d.type) + "')";
      });
}

}  // namespace

void bind_values(nb::module_& module) {
  bind_epilogue(module);
  bind_problem(module);
  bind_record(module);
  bind_device(module);
}

}  // namespace clgemm::python
