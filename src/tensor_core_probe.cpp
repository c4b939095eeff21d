// The tensor-core check: vendor and compute capability first, then a probe kernel built and
// run on the device, whose exact result confirms that cp.async and mma.sync work there.
#include "tensor_core_probe.hpp"

#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "clgemm/precision.hpp"
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

  // Values whose TF32 rounding is easy to get wrong: ties (away from zero), just above and
  // below them, overflow to infinity, subnormals, zeros, infinities.
  std::vector<float> values = {1.0f + 0x1p-11f,
                               -(1.0f + 0x1p-11f),
                               1.0f + 0x1p-11f + 0x1p-23f,
                               1.0f + 0x1p-12f,
                               1.0f + 0x1.8p-11f,
                               3.4028235e38f,
                               -3.4028235e38f,
                               1e-40f,
                               -1.17549435e-38f,
                               0.0f,
                               -0.0f,
                               INFINITY,
                               -INFINITY,
                               3.14159265f,
                               -2.71828183f,
                               1.0f / 3.0f};
  for (int i = 0; values.size() < 32; ++i) values.push_back(float(i * 0.3779 - 5.1) * 1e3f);
  std::vector<cl_uint> rounded(32, 0), expected_rounded(32);
  for (int i = 0; i < 32; ++i) {
    const float r = round_to_tf32(values[i]);
    std::memcpy(&expected_rounded[i], &r, sizeof r);
  }

  const auto flags = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  cl::Buffer a_buffer(context, flags, a.size() * sizeof(float), a.data());
  cl::Buffer b_buffer(context, flags, b.size() * sizeof(float), b.data());
  cl::Buffer d_buffer(context, CL_MEM_WRITE_ONLY, d.size() * sizeof(float));
  cl::Buffer values_buffer(context, flags, values.size() * sizeof(float), values.data());
  cl::Buffer rounded_buffer(context, CL_MEM_WRITE_ONLY, rounded.size() * sizeof(cl_uint));
  cl::Kernel kernel(program, "tensorcore_probe");
  kernel.setArg(0, a_buffer);
  kernel.setArg(1, b_buffer);
  kernel.setArg(2, d_buffer);
  kernel.setArg(3, values_buffer);
  kernel.setArg(4, rounded_buffer);
  cl::CommandQueue queue(context, device);
  queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(32), cl::NDRange(32));
  queue.enqueueReadBuffer(d_buffer, CL_TRUE, 0, d.size() * sizeof(float), d.data());
  queue.enqueueReadBuffer(rounded_buffer, CL_TRUE, 0, rounded.size() * sizeof(cl_uint),
                          rounded.data());
  if (d != expected) return {false, "the probe kernel ran but its tensor-core product was wrong"};
  for (int i = 0; i < 32; ++i)
    if (rounded[i] != expected_rounded[i])
      return {false, "cvt.rna.tf32.f32 rounded " + std::to_string(values[i]) +
                         " differently from the portable TF32 rounding"};
  return {true,
          "probe kernel (cp.async, ldmatrix, mma.sync TF32, cvt.rna.tf32) built, computed the "
          "exact product and rounded like the portable path"};
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
