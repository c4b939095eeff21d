// The wgmma check: vendor and compute capability first, then kernels/wgmma_probe.cl built
// through the PTX rewrite (the program cache's own path, disk cache included) and run once,
// whose exact result confirms the rewrite, the matrix descriptor and the fragment layouts.
#include "wgmma_probe.hpp"

#include <map>
#include <mutex>
#include <vector>

#include "clgemm/errors.hpp"
#include "kernel_source.hpp"
#include "program_cache.hpp"
#include "ptx_rewrite.hpp"

namespace clgemm::detail {
namespace {

constexpr int kM = 64, kN = 8, kK = 8;  // wgmma.mma_async.m64n8k8
constexpr std::size_t kWarpgroup = 128;

WgmmaSupport run_probe(const cl::Context& context, const cl::Device& device,
                       const DeviceLimits& limits) {
  const KernelSource source = load_kernel_source("wgmma_probe.cl");
  ProgramCache programs(context, device, limits);
  std::shared_ptr<const BuiltProgram> built;
  try {
    bool cached = false;
    built = programs.get("wgmma_probe", "wgmma_probe", source.text, source.hash, "", cached,
                         PtxRewrite::Sm90a);
  } catch (const Error& error) {
    return {false, std::string("rewrite build failed: ") + error.what()};
  }

  // Small integers: TF32 holds them exactly and every sum is exact, so D must match.
  std::vector<float> a(kM * kK), b(kK * kN), c(kM * kN), d(kM * kN, -1.0f), expected(kM * kN);
  for (int i = 0; i < kM * kK; ++i) a[i] = float((i * 7) % 9 - 4);
  for (int i = 0; i < kK * kN; ++i) b[i] = float((i * 5) % 7 - 3);
  for (int i = 0; i < kM * kN; ++i) c[i] = float((i * 3) % 5 - 2);
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < kN; ++j) {
      float sum = c[i * kN + j];
      for (int k = 0; k < kK; ++k) sum += a[i * kK + k] * b[k * kN + j];
      expected[i * kN + j] = sum;
    }

  const auto flags = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  cl::Buffer a_buffer(context, flags, a.size() * sizeof(float), a.data());
  cl::Buffer b_buffer(context, flags, b.size() * sizeof(float), b.data());
  cl::Buffer c_buffer(context, flags, c.size() * sizeof(float), c.data());
  cl::Buffer d_buffer(context, CL_MEM_WRITE_ONLY, d.size() * sizeof(float));
  cl::Kernel kernel(built->program, "wgmma_probe");
  kernel.setArg(0, a_buffer);
  kernel.setArg(1, b_buffer);
  kernel.setArg(2, c_buffer);
  kernel.setArg(3, d_buffer);
  cl::CommandQueue queue(context, device);
  queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(kWarpgroup),
                             cl::NDRange(kWarpgroup));
  queue.enqueueReadBuffer(d_buffer, CL_TRUE, 0, d.size() * sizeof(float), d.data());
  for (int i = 0; i < kM * kN; ++i)
    if (d[i] != expected[i])
      return {false, "wrong product: D(" + std::to_string(i / kN) + ", " + std::to_string(i % kN) +
                         ") = " + std::to_string(d[i]) + ", expected " +
                         std::to_string(expected[i]) +
                         " (the rewritten program ran, but wgmma, its B descriptor or the "
                         "fragment layouts of A and D are not what kernels/wgmma.clh assumes)"};
  return {true,
          "probe kernel (wgmma.mma_async.m64n8k8 TF32, A in registers, B through a local-memory "
          "descriptor, built through the PTX rewrite to sm_90a) computed the exact product"};
}

std::string compute_capability_text(int capability) {
  return std::to_string(capability / 10) + "." + std::to_string(capability % 10);
}

}  // namespace

WgmmaSupport probe_wgmma(const cl::Context& context, const cl::Device& device,
                         const DeviceLimits& limits) {
  if (limits.vendor.find("NVIDIA") == std::string::npos)
    return {false, "not an NVIDIA device (vendor '" + limits.vendor + "')"};
  if (limits.compute_capability == 0)
    return {false, "compute capability unknown (no cl_nv_device_attribute_query), wgmma needs 9.0"};
  if (!runs_sm90a(limits))
    return {false, "compute capability " + compute_capability_text(limits.compute_capability) +
                       ", wgmma needs 9.0 (sm_90a code runs on 9.0 only)"};

  static std::mutex mutex;
  static std::map<std::string, WgmmaSupport> answers;  // by platform, device and driver
  const std::string key = limits.platform_name + "\n" + limits.name + "\n" + limits.driver_version;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = answers.find(key);
  if (it == answers.end()) {
    WgmmaSupport answer;
    try {
      answer = run_probe(context, device, limits);
    } catch (const std::exception& error) {
      answer = {false, std::string("the probe kernel failed: ") + error.what()};
    }
    it = answers.emplace(key, answer).first;
  }
  return it->second;
}

}  // namespace clgemm::detail
