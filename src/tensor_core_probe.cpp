// The tensor-core check: vendor and compute capability first, then a probe kernel built and
// run on the device, whose exact result confirms that cp.async and mma.sync work there.
#include "tensor_core_probe.hpp"

#include <map>
#include <mutex>
#include <vector>

#include "kernel_source.hpp"

namespace clgemm::detail {
namespace {

TensorCoreSupport run_probe(const cl::Context& context, const cl::Device& device) {
  const KernelSource source = load_kernel_source("tensorcore_probe.cl");
  cl::Program program(context, source.text);
  try {
    program.build({device});
  } catch (const cl::Error&) {
    return {false, "the probe kernel (cp.async, mma.sync) did not build on this device"};
  }
  // Small integers: TF32 holds them exactly and every sum is exact, so the product must match.
  std::vector<float> a(16 * 8), b(8 * 8), d(16 * 8, -1.0f), expected(16 * 8, 0.0f);
  for (int i = 0; i < 16 * 8; ++i) a[i] = float((i * 7) % 9 - 4);
  for (int i = 0; i < 8 * 8; ++i) b[i] = float((i * 5) % 7 - 3);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j)
      for (int k = 0; k < 8; ++k) expected[i * 8 + j] += a[i * 8 + k] * b[k * 8 + j];

  const auto flags = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  cl::Buffer a_buffer(context, flags, a.size() * sizeof(float), a.data());
  cl::Buffer b_buffer(context, flags, b.size() * sizeof(float), b.data());
  cl::Buffer d_buffer(context, CL_MEM_WRITE_ONLY, d.size() * sizeof(float));
  cl::Kernel kernel(program, "tensorcore_probe");
  kernel.setArg(0, a_buffer);
  kernel.setArg(1, b_buffer);
  kernel.setArg(2, d_buffer);
  cl::CommandQueue queue(context, device);
  queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(32), cl::NDRange(32));
  queue.enqueueReadBuffer(d_buffer, CL_TRUE, 0, d.size() * sizeof(float), d.data());
  if (d != expected)
    return {false, "the probe kernel ran but its tensor-core product was wrong"};
  return {true, "probe kernel (cp.async, mma.sync TF32) built and computed the exact product"};
}

}  // namespace

TensorCoreSupport probe_tensor_cores(const cl::Context& context, const cl::Device& device,
                                     const DeviceLimits& limits) {
  if (limits.vendor.find("NVIDIA") == std::string::npos)
    return {false, "not an NVIDIA device (vendor '" + limits.vendor + "')"};
  if (limits.compute_capability < 80)
    return {false, "compute capability " + std::to_string(limits.compute_capability / 10) + "." +
                       std::to_string(limits.compute_capability % 10) +
                       " (from cl_nv_device_attribute_query) is below 8.0"};

  static std::mutex mutex;
  static std::map<std::string, TensorCoreSupport> answers;  // by platform, device and driver
  const std::string key = limits.platform_name + "\n" + limits.name + "\n" + limits.driver_version;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = answers.find(key);
  if (it == answers.end()) {
    TensorCoreSupport answer;
    try {
      answer = run_probe(context, device);
    } catch (const std::exception& error) {
      answer = {false, std::string("the probe kernel failed: ") + error.what()};
    }
    it = answers.emplace(key, answer).first;
  }
  return it->second;
}

}  // namespace clgemm::detail
