// cache_bandwidth: how fast a GPU's work-groups read a buffer that stays in its last-level cache,
// against one that does not. Every work-item sums float4s of the buffer with a grid-wide stride,
// over and over, each pass shifted so that no multiprocessor finds its bytes in its own L1 from
// the pass before: each byte goes from L2 (or memory) to a multiprocessor once per pass; the
// figure is bytes delivered per second, the median of several timed launches (profiling events).
// It measures the ceiling a GEMM's tiles meet when every work-group brings its operands from L2:
// a tile of TM x TN outputs needs (TM + TN) * 4 bytes per step of K for 2 * TM * TN flops. A
// measuring tool for the device machine:
//   cache_bandwidth [GROUPS_PER_UNIT]       (default 8 work-groups of 256 per compute unit)
#include "probe_setup.hpp"

namespace {

const char* kKernel = R"CLC(
__kernel void read_passes(__global const float4* data, const uint count, const uint passes,
                          __global float* sink) {
  const float4 sum =
      shifted_passes(data, count, passes, get_global_id(0), get_global_size(0));
  // Stored only when impossible, so the reads stay and almost nothing is written.
  if (sum.x == -1.0f) sink[get_global_id(0)] = sum.y + sum.z + sum.w;
}
)CLC";

}  // namespace

int main(int argc, char** argv) {
  probe::tool_name() = "cache_bandwidth";
  const long groups_per_unit = probe::groups_per_unit_argument(argc, argv, 1, 64, 8);
  const probe::Device device = probe::open_device();
  cl_command_queue queue = probe::profiling_queue(device);
  cl_kernel kernel =
      probe::build_kernel(device, std::string(probe::kShiftedPasses) + kKernel, "read_passes");
  cl_int code = CL_SUCCESS;

  const std::size_t local = 256,
                    global = std::size_t(device.compute_units) * groups_per_unit * local;
  std::printf("%s, %u compute units, %zu work-items in groups of %zu\n", device.name.c_str(),
              device.compute_units, global, local);
  std::printf("%12s %8s %12s\n", "buffer MiB", "passes", "GB/s");
  cl_mem sink =
      clCreateBuffer(device.context, CL_MEM_READ_WRITE, global * sizeof(float), nullptr, &code);
  probe::check(code, "clCreateBuffer");
  for (const std::size_t mib : {4, 8, 16, 24, 32, 40, 48, 64, 1024}) {
    const std::size_t bytes = mib << 20;
    cl_mem data = clCreateBuffer(device.context, CL_MEM_READ_ONLY, bytes, nullptr, &code);
    probe::check(code, "clCreateBuffer");
    const float zero = 0.0f;
    probe::check(
        clEnqueueFillBuffer(queue, data, &zero, sizeof zero, 0, bytes, 0, nullptr, nullptr),
        "clEnqueueFillBuffer");
    const cl_uint count = cl_uint(bytes / 16);
    const cl_uint passes = cl_uint(std::max<std::size_t>(1, (std::size_t(2) << 30) / bytes));
    clSetKernelArg(kernel, 0, sizeof data, &data);
    clSetKernelArg(kernel, 1, sizeof count, &count);
    clSetKernelArg(kernel, 2, sizeof passes, &passes);
    clSetKernelArg(kernel, 3, sizeof sink, &sink);
    std::vector<double> seconds;
    for (int run = 0; run < 7; ++run) {
      const double s = probe::timed_launch(queue, kernel, global, local);
      if (run > 0) seconds.push_back(s);  // the first warms the cache
    }
    std::printf("%12zu %8u %12.0f\n", mib, passes,
                double(bytes) * passes / probe::median(seconds) * 1e-9);
    clReleaseMemObject(data);
  }
  clReleaseMemObject(sink);
  clReleaseKernel(kernel);
  clReleaseCommandQueue(queue);
  clReleaseContext(device.context);
  return 0;
}
