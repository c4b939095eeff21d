// cache_bandwidth: how fast a GPU's work-groups read a buffer that stays in its last-level cache,
// against one that does not. Every work-item sums float4s of the buffer with a grid-wide stride,
// over and over, each pass shifted so that no multiprocessor finds its bytes in its own L1 from
// the pass before: each byte goes from L2 (or memory) to a multiprocessor once per pass; the
// figure is bytes delivered per second, the median of several timed launches (profiling events).
// It measures the ceiling a GEMM's tiles meet when every work-group brings its operands from L2:
// a tile of TM x TN outputs needs (TM + TN) * 4 bytes per step of K for 2 * TM * TN flops. A
// measuring tool for the device machine:
//   cache_bandwidth [GROUPS_PER_UNIT]       (default 8 work-groups of 256 per compute unit)
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char* kSource = R"CLC(
__kernel void read_passes(__global const float4* data, const uint count, const uint passes,
                          __global float* sink) {
  const uint stride = get_global_size(0);
  float4 sum = (float4)(0.0f);
  for (uint p = 0; p < passes; ++p) {
    // Each pass starts 4113 vectors further on (odd, so no earlier pass repeats), so that a
    // work-item reads what a work-item of another group read before: the bytes come from L2,
    // not from the L1 cache of the multiprocessor that read them in the last pass.
    const uint shift = (uint)(((ulong)p * 4113u) % count);
    for (uint i = get_global_id(0); i < count; i += stride) {
      const uint j = i + shift;
      sum += data[j >= count ? j - count : j];
    }
  }
  // Stored only when impossible, so the reads stay and almost nothing is written.
  if (sum.x == -1.0f) sink[get_global_id(0)] = sum.y + sum.z + sum.w;
}
)CLC";

void check(cl_int code, const char* what) {
  if (code == CL_SUCCESS) return;
  std::fprintf(stderr, "cache_bandwidth: %s failed (%d)\n", what, code);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  char* end = nullptr;
  const long groups_per_unit = argc > 1 ? std::strtol(argv[1], &end, 10) : 8;
  if (argc > 2 || (argc > 1 && (*end != '\0' || groups_per_unit < 1 || groups_per_unit > 64))) {
    std::fprintf(
        stderr,
        "cache_bandwidth: GROUPS_PER_UNIT must be one whole number from 1 to 64 (work-groups "
        "of 256 per compute unit), got '%s'\n",
        argc > 1 ? argv[1] : "");
    return 2;
  }
  cl_platform_id platforms[8];
  cl_uint platform_count = 0;
  check(clGetPlatformIDs(8, platforms, &platform_count), "clGetPlatformIDs");
  cl_device_id device = nullptr;
  for (cl_uint p = 0; p < platform_count && !device; ++p)
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_GPU, 1, &device, nullptr) != CL_SUCCESS)
      device = nullptr;
  if (!device) {
    std::fprintf(stderr, "cache_bandwidth: no GPU\n");
    return 2;
  }
  char name[256] = {};
  cl_uint units = 0;
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, nullptr);
  clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr);
  cl_int code = 0;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &code);
  check(code, "clCreateContext");
  const cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, properties, &code);
  check(code, "clCreateCommandQueueWithProperties");
  cl_program program = clCreateProgramWithSource(context, 1, &kSource, nullptr, &code);
  check(code, "clCreateProgramWithSource");
  check(clBuildProgram(program, 1, &device, "", nullptr, nullptr), "clBuildProgram");
  cl_kernel kernel = clCreateKernel(program, "read_passes", &code);
  check(code, "clCreateKernel");

  const std::size_t local = 256, global = std::size_t(units) * groups_per_unit * local;
  std::printf("%s, %u compute units, %zu work-items in groups of %zu\n", name, units, global,
              local);
  std::printf("%12s %8s %12s\n", "buffer MiB", "passes", "GB/s");
  cl_mem sink = clCreateBuffer(context, CL_MEM_READ_WRITE, global * sizeof(float), nullptr, &code);
  check(code, "clCreateBuffer");
  for (const std::size_t mib : {4, 8, 16, 24, 32, 40, 48, 64, 1024}) {
    const std::size_t bytes = mib << 20;
    cl_mem data = clCreateBuffer(context, CL_MEM_READ_ONLY, bytes, nullptr, &code);
    check(code, "clCreateBuffer");
    const float zero = 0.0f;
    check(clEnqueueFillBuffer(queue, data, &zero, sizeof zero, 0, bytes, 0, nullptr, nullptr),
          "clEnqueueFillBuffer");
    const cl_uint count = cl_uint(bytes / 16);
    const cl_uint passes = cl_uint(std::max<std::size_t>(1, (std::size_t(2) << 30) / bytes));
    clSetKernelArg(kernel, 0, sizeof data, &data);
    clSetKernelArg(kernel, 1, sizeof count, &count);
    clSetKernelArg(kernel, 2, sizeof passes, &passes);
    clSetKernelArg(kernel, 3, sizeof sink, &sink);
    std::vector<double> seconds;
    for (int run = 0; run < 7; ++run) {
      cl_event event;
      check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, &event),
            "clEnqueueNDRangeKernel");
      clWaitForEvents(1, &event);
      cl_ulong start = 0, end = 0;
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
      clReleaseEvent(event);
      if (run > 0) seconds.push_back(double(end - start) * 1e-9);  // the first warms the cache
    }
    std::sort(seconds.begin(), seconds.end());
    const double median = seconds[seconds.size() / 2];
    std::printf("%12zu %8u %12.0f\n", mib, passes, double(bytes) * passes / median * 1e-9);
    clReleaseMemObject(data);
  }
  clReleaseMemObject(sink);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return 0;
}
