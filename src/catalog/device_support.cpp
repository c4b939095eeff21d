// Whether a kernel runs on a Context's device in a precision, and the tensor cores `auto` may
// use there (device_support.hpp).
#include "catalog/device_support.hpp"

#include "clgemm/errors.hpp"

namespace clgemm::detail {

void check_precision(const KernelSpec& spec, Precision precision, DeviceRuntime& device) {
  const auto& name = spec.description.name;
  if (!spec.description.computes(precision)) {
    std::string supported;
    for (Precision p : spec.description.precisions)
      supported += (supported.empty() ? "" : ", ") + std::string(precision_name(p));
    throw Error(ErrorCode::UnsupportedPrecision,
                "kernel '" + name + "' computes " + supported + ", not " +
                    precision_name(precision) + "; kernel 'auto' computes every precision",
                Argument::Precision);
  }
  if (!spec.description.needs_tensor_cores) return;
  const auto tensor_cores = device.tensor_core_support();
  if (!tensor_cores.available)
    throw Error(ErrorCode::UnsupportedPrecision,
                "kernel '" + name + "' needs tensor cores, which device '" + device.limits().name +
                    "' does not offer: " + tensor_cores.reason +
                    "; kernel 'auto' or 'blocked' computes " + precision_name(precision) +
                    " portably",
                Argument::Kernel);
  if (!spec.description.needs_wgmma) return;
  const auto wgmma = device.wgmma_support();
  if (!wgmma.available)
    throw Error(ErrorCode::UnsupportedPrecision,
                "kernel '" + name + "' needs Hopper's wgmma (sm_90a), which device '" +
                    device.limits().name + "' does not run: " + wgmma.reason +
                    "; kernel 'tensorcore' or 'auto' computes " + precision_name(precision) +
                    " on its tensor cores",
                Argument::Kernel);
}

TensorCores tensor_cores_for(Precision precision, DeviceRuntime& device) {
  if (precision == Precision::FP32 || !device.tensor_core_support().available)
    return TensorCores::None;
  return device.wgmma_support().available ? TensorCores::Wgmma : TensorCores::MmaSync;
}

}  // namespace clgemm::detail
