// The capability probes: vendor and compute capability first, then a probe kernel built and
// run once per device and process, whose exact result confirms what the kernels assume:
// kernels/tensorcore_probe.cl (cp.async, ldmatrix, mma.sync, the TF32 rounding) and
// kernels/wgmma_probe.cl, built through the PTX rewrite (the program cache's own path, disk
// cache included), for Hopper's wgmma, its matrix descriptor and fragment layouts; and
// kernels/group_size_probe.cl for work-groups above what the driver reports.
#include "runtime/capability_probes.hpp"

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "clgemm/errors.hpp"
#include "clgemm/precision.hpp"
#include "runtime/kernel_source.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/ptx_rewrite.hpp"
#include "support/immortal.hpp"

namespace clgemm::detail {
namespace {

Capability run_tensor_core_probe(const cl::Context& context, const cl::Device& device,
                                 const DeviceLimits&) {
  const KernelSource source = load_kernel_source("tensorcore_probe.cl");
  cl::Program program(context, source.text);
  try {
    program.build({device});
  } catch (const cl::Error&) {
    return Capability{false, "the probe kernel (cp.async, mma.sync) did not build on this device"};
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
  if (d != expected)
    return Capability{false, "the probe kernel ran but its tensor-core product was wrong"};
  for (int i = 0; i < 32; ++i)
    if (rounded[i] != expected_rounded[i])
      return Capability{false, "cvt.rna.tf32.f32 rounded " + std::to_string(values[i]) +
                                   " differently from the portable TF32 rounding"};
  return Capability{
      true,
      "probe kernel (cp.async, ldmatrix, mma.sync TF32, cvt.rna.tf32) built, computed the "
      "exact product and rounded like the portable path"};
}

constexpr int kM = 64, kN = 8, kK = 8;  // wgmma.mma_async.m64n8k8
constexpr std::size_t kWarpgroup = 128;

Capability run_wgmma_probe(const cl::Context& context, const cl::Device& device,
                           const DeviceLimits& limits) {
  const KernelSource source = load_kernel_source("wgmma_probe.cl");
  ProgramCache programs(context, device, limits);
  std::shared_ptr<const BuiltProgram> built;
  try {
    bool cached = false;
    built = programs.get("wgmma_probe", "wgmma_probe", source.text, source.hash, "", cached,
                         PtxRewrite::Sm90a);
  } catch (const Error& error) {
    return Capability{false, std::string("rewrite build failed: ") + error.what()};
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
      return Capability{
          false, "wrong product: D(" + std::to_string(i / kN) + ", " + std::to_string(i % kN) +
                     ") = " + std::to_string(d[i]) + ", expected " + std::to_string(expected[i]) +
                     " (the rewritten program ran, but wgmma, its B descriptor or the "
                     "fragment layouts of A and D are not what kernels/wgmma.clh assumes)"};
  return Capability{
      true,
      "probe kernel (wgmma.mma_async.m64n8k8 TF32, A in registers, B through a local-memory "
      "descriptor, built through the PTX rewrite to sm_90a) computed the exact product"};
}

constexpr std::size_t kProbeGroups = 264;  // two waves of an H200's 132 units

Capability run_group_size_probe(const cl::Context& context, const cl::Device& device,
                                const DeviceLimits& limits) {
  return run_work_groups_of(context, device, limits.max_work_group_size);
}

std::string compute_capability_text(int capability) {
  return std::to_string(capability / 10) + "." + std::to_string(capability % 10);
}

// The answer of `probe` on this device, run once per platform, device, driver and probe for
// the process; a probe that throws is an answer too ("the probe kernel failed: ...").
Capability remembered(const char* name, const cl::Context& context, const cl::Device& device,
                      const DeviceLimits& limits,
                      Capability (*probe)(const cl::Context&, const cl::Device&,
                                          const DeviceLimits&)) {
  static auto& mutex = immortal<std::mutex>();
  static auto& answers = immortal<std::map<std::string, Capability>>();
  const std::string key = std::string(name) + "\n" + limits.platform_name + "\n" + limits.name +
                          "\n" + limits.driver_version;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = answers.find(key);
  if (it == answers.end()) {
    Capability answer;
    try {
      answer = probe(context, device, limits);
    } catch (const std::exception& error) {
      answer = {false, std::string("the probe kernel failed: ") + error.what()};
    }
    it = answers.emplace(key, answer).first;
  }
  return it->second;
}

bool is_nvidia(const DeviceLimits& limits) {
  return limits.vendor.find("NVIDIA") != std::string::npos;
}

std::string not_nvidia(const DeviceLimits& limits) {
  return "not an NVIDIA device (vendor '" + limits.vendor + "')";
}

}  // namespace

Capability probe_tensor_cores(const cl::Context& context, const cl::Device& device,
                              const DeviceLimits& limits) {
  if (!is_nvidia(limits)) return Capability{false, not_nvidia(limits)};
  if (limits.compute_capability < 80)
    return Capability{false, "compute capability " +
                                 compute_capability_text(limits.compute_capability) +
                                 " (from cl_nv_device_attribute_query) is below 8.0"};
  return remembered("tensor cores", context, device, limits, run_tensor_core_probe);
}

Capability probe_wgmma(const cl::Context& context, const cl::Device& device,
                       const DeviceLimits& limits) {
  if (!is_nvidia(limits)) return Capability{false, not_nvidia(limits)};
  if (limits.compute_capability == 0)
    return Capability{
        false, "compute capability unknown (no cl_nv_device_attribute_query), wgmma needs 9.0"};
  if (!runs_sm90a(limits))
    return Capability{false, "compute capability " +
                                 compute_capability_text(limits.compute_capability) +
                                 ", wgmma needs 9.0 (sm_90a code runs on 9.0 only)"};
  return remembered("wgmma", context, device, limits, run_wgmma_probe);
}

Capability run_work_groups_of(const cl::Context& context, const cl::Device& device,
                              std::size_t group) {
  const KernelSource source = load_kernel_source("group_size_probe.cl");
  cl::Program program(context, source.text);
  try {
    program.build({device}, ("-D GROUP=" + std::to_string(group)).c_str());
  } catch (const cl::Error&) {
    return Capability{false, "the probe kernel (a work-group of " + std::to_string(group) +
                                 " summing through local memory) did not build on this device"};
  }
  cl::Kernel kernel(program, "group_size_probe");
  const std::size_t reported = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device);
  cl::Buffer sums(context, CL_MEM_WRITE_ONLY, kProbeGroups * sizeof(cl_int));
  cl::Buffer ids(context, CL_MEM_WRITE_ONLY, kProbeGroups * group * sizeof(cl_int));
  kernel.setArg(0, sums);
  kernel.setArg(1, ids);
  cl::CommandQueue queue(context, device);
  std::vector<cl_int> sum(kProbeGroups, -1), id(kProbeGroups * group, -1);
  try {
    queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(kProbeGroups * group),
                               cl::NDRange(group));
    queue.enqueueReadBuffer(sums, CL_TRUE, 0, sum.size() * sizeof(cl_int), sum.data());
    queue.enqueueReadBuffer(ids, CL_TRUE, 0, id.size() * sizeof(cl_int), id.data());
  } catch (const cl::Error& error) {
    return Capability{false, "a work-group of " + std::to_string(group) +
                                 " (CL_KERNEL_WORK_GROUP_SIZE reports " + std::to_string(reported) +
                                 ") did not run: " + error.what() + " returned " +
                                 std::to_string(error.err())};
  }
  const cl_int expected = cl_int(group * (group + 1) / 2);
  for (std::size_t g = 0; g < kProbeGroups; ++g)
    if (sum[g] != expected)
      return Capability{false, "a work-group of " + std::to_string(group) + " ran but summed " +
                                   std::to_string(sum[g]) + " in group " + std::to_string(g) +
                                   ", expected " + std::to_string(expected)};
  for (std::size_t i = 0; i < id.size(); ++i)
    if (std::size_t(id[i]) != i % group)
      return Capability{false, "a work-group of " + std::to_string(group) +
                                   " ran but wrote the wrong local id at " + std::to_string(i)};
  return Capability{true, "work-groups of " + std::to_string(group) +
                              " ran a barrier-separated local-memory sum exactly, though "
                              "CL_KERNEL_WORK_GROUP_SIZE reports " +
                              std::to_string(reported)};
}

Capability probe_required_group_sizes(const cl::Context& context, const cl::Device& device,
                                      const DeviceLimits& limits) {
  if (!is_nvidia(limits)) return Capability{false, not_nvidia(limits)};
  return remembered("required group sizes", context, device, limits, run_group_size_probe);
}

}  // namespace clgemm::detail
