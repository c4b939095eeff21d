// paired_reads: whether two work-groups on one NVIDIA multiprocessor that read the same bytes at
// about the same time fetch them from L2 once, the second read served by the multiprocessor's
// L1. That is what a GEMM kernel pairing its work-groups on adjacent tiles would count on (two
// 128 x 128 tiles sharing a panel of A read L2 like one 128 x 256 tile; docs/PERFORMANCE.md,
// "The L2 ceiling of wgmma's TF32 tiles"). Each work-group finds its multiprocessor (%smid) and
// its arrival order there (a per-multiprocessor counter), then reads a region of a buffer that
// stays in L2, pass after pass, each pass shifted so that its own L1 holds nothing of the pass
// before. Paired, work-groups 2i and 2i + 1 of a multiprocessor read the same region in step;
// apart, each reads a region of its own. Where L1 serves the partner, the paired reads deliver
// up to twice the bytes per second of the apart ones; where it does not, the same. Printed: both
// figures and how many multiprocessors held an even number of work-groups (the pairs). NVIDIA
// only (inline PTX); a measuring tool for the device machine:
//   g++ -std=c++17 -O2 -o paired_reads tools/device/paired_reads.cpp -lOpenCL
//   ./paired_reads [GROUPS_PER_UNIT]      (default 4 work-groups of 256 per compute unit)
#include "probe_setup.hpp"

namespace {

const char* kKernel = R"CLC(
// regions: how many regions of `region` float4s the buffer holds; paired: 1 or 0.
__kernel void paired_reads(__global const float4* data, const uint region, const uint regions,
                           const uint groups_per_unit, const uint passes, const uint paired,
                           __global uint* arrivals, __global float* sink) {
  __local uint order;
  uint sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (get_local_id(0) == 0) order = atomic_inc(arrivals + sm);
  barrier(CLK_LOCAL_MEM_FENCE);
  // Paired: arrivals 2i and 2i + 1 share a region; apart: every arrival has its own.
  const uint slot = paired ? order / 2 : order;
  const uint chosen = (sm * groups_per_unit + slot) % regions;
  __global const float4* base = data + (size_t)chosen * region;
  const float4 sum = shifted_passes(base, region, passes, get_local_id(0), get_local_size(0));
  if (sum.x == -1.0f) sink[get_global_id(0)] = sum.y + sum.z + sum.w;
}
)CLC";

}  // namespace

int main(int argc, char** argv) {
  probe::tool_name() = "paired_reads";
  const long groups_per_unit = probe::groups_per_unit_argument(argc, argv, 2, 16, 4);
  if (groups_per_unit % 2 != 0) probe::fail("GROUPS_PER_UNIT must be even (pairs)");
  const probe::Device device = probe::open_device();
  cl_command_queue queue = probe::profiling_queue(device);
  cl_kernel kernel =
      probe::build_kernel(device, std::string(probe::kShiftedPasses) + kKernel, "paired_reads");
  cl_int code = CL_SUCCESS;

  // Regions of 512 KiB, more than an L1 holds, so a pass's bytes leave it before the next pass;
  // 48 of them, 24 MiB, stay in L2.
  const cl_uint region = (512 << 10) / 16, regions = 48, passes = 16;
  const cl_uint units = device.compute_units;
  const std::size_t local = 256, groups = std::size_t(units) * groups_per_unit;
  const std::size_t global = groups * local, bytes = std::size_t(region) * regions * 16;
  cl_mem data = clCreateBuffer(device.context, CL_MEM_READ_ONLY, bytes, nullptr, &code);
  probe::check(code, "clCreateBuffer");
  cl_mem sink =
      clCreateBuffer(device.context, CL_MEM_READ_WRITE, global * sizeof(float), nullptr, &code);
  probe::check(code, "clCreateBuffer");
  // Counters for up to 1024 multiprocessor ids (%smid can exceed the count of units).
  const std::size_t counters = 1024;
  cl_mem arrivals =
      clCreateBuffer(device.context, CL_MEM_READ_WRITE, counters * sizeof(cl_uint), nullptr, &code);
  probe::check(code, "clCreateBuffer");
  const float zero = 0.0f;
  probe::check(clEnqueueFillBuffer(queue, data, &zero, sizeof zero, 0, bytes, 0, nullptr, nullptr),
               "clEnqueueFillBuffer");
  const cl_uint per_unit = cl_uint(groups_per_unit);
  clSetKernelArg(kernel, 0, sizeof data, &data);
  clSetKernelArg(kernel, 1, sizeof region, &region);
  clSetKernelArg(kernel, 2, sizeof regions, &regions);
  clSetKernelArg(kernel, 3, sizeof per_unit, &per_unit);
  clSetKernelArg(kernel, 4, sizeof passes, &passes);
  clSetKernelArg(kernel, 6, sizeof arrivals, &arrivals);
  clSetKernelArg(kernel, 7, sizeof sink, &sink);

  std::printf("%s, %u compute units, %zu work-groups of %zu\n", device.name.c_str(), units, groups,
              local);
  for (const cl_uint paired : {0u, 1u, 0u, 1u}) {
    clSetKernelArg(kernel, 5, sizeof paired, &paired);
    std::vector<double> seconds;
    std::size_t even_units = 0, used_units = 0;
    for (int run = 0; run < 7; ++run) {
      const cl_uint none = 0;
      probe::check(clEnqueueFillBuffer(queue, arrivals, &none, sizeof none, 0,
                                       counters * sizeof(cl_uint), 0, nullptr, nullptr),
                   "clEnqueueFillBuffer");
      const double s = probe::timed_launch(queue, kernel, global, local);
      if (run > 0) seconds.push_back(s);  // the first warms L2
      std::vector<cl_uint> counts(counters);
      probe::check(clEnqueueReadBuffer(queue, arrivals, CL_TRUE, 0, counters * sizeof(cl_uint),
                                       counts.data(), 0, nullptr, nullptr),
                   "clEnqueueReadBuffer");
      even_units = used_units = 0;
      for (cl_uint c : counts) {
        used_units += c > 0;
        even_units += c > 0 && c % 2 == 0;
      }
    }
    const double delivered = double(groups) * region * 16.0 * passes;
    std::printf(
        "%-7s %10.0f GB/s delivered (median of 6), %zu of %zu multiprocessors held an "
        "even number of work-groups\n",
        paired ? "paired" : "apart", delivered / probe::median(seconds) * 1e-9, even_units,
        used_units);
  }
  clReleaseMemObject(arrivals);
  clReleaseMemObject(sink);
  clReleaseMemObject(data);
  clReleaseKernel(kernel);
  clReleaseCommandQueue(queue);
  clReleaseContext(device.context);
  return 0;
}
