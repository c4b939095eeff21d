// launch_floor: the shortest call an OpenCL device allows, apart from any GEMM. Times a kernel
// that does nothing (one work-group of one work-item) as enqueue + clFinish on the host, the
// median of many calls, on the first GPU (or the first device) of the first platform that has
// one: on a plain queue, on a plain queue with the launch's event asked for, and on a queue
// with profiling enabled, with its event (and the execution the event reports) and with a
// marker enqueued before each launch as well (how a call of several launches is timed on the
// device). What a library's call costs beyond its kernels is its wall time less this floor,
// and what profiling adds to a call is the difference. A measuring tool for the device machine:
//   g++ -std=c++17 -O2 -o launch_floor tools/device/launch_floor.cpp -lOpenCL && ./launch_floor
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void check(cl_int code, const char* what) {
  if (code == CL_SUCCESS) return;
  std::fprintf(stderr, "launch_floor: %s failed (%d)\n", what, code);
  std::exit(2);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  char* end = nullptr;
  const long calls = argc > 1 ? std::strtol(argv[1], &end, 10) : 2000;
  if (argc > 2 || (argc > 1 && (*end != '\0' || calls < 1 || calls > 1000000))) {
    std::fprintf(stderr,
                 "launch_floor: the count of calls must be a whole number 1..1000000\n"
                 "usage: launch_floor [CALLS]\n");
    return 2;
  }
  cl_uint platform_count = 0;
  check(clGetPlatformIDs(0, nullptr, &platform_count), "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(platform_count);
  check(clGetPlatformIDs(platform_count, platforms.data(), nullptr), "clGetPlatformIDs");
  cl_device_id device = nullptr;
  for (cl_platform_id platform : platforms)
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &device, nullptr) == CL_SUCCESS) break;
  if (device == nullptr)
    check(clGetDeviceIDs(platforms.at(0), CL_DEVICE_TYPE_ALL, 1, &device, nullptr),
          "clGetDeviceIDs");
  char name[256] = {};
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, nullptr);

  cl_int code = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &code);
  check(code, "clCreateContext");
  const char* source = "__kernel void nothing(__global float* x) { if (x == 0) return; }";
  cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &code);
  check(code, "clCreateProgramWithSource");
  check(clBuildProgram(program, 1, &device, "", nullptr, nullptr), "clBuildProgram");
  cl_kernel kernel = clCreateKernel(program, "nothing", &code);
  check(code, "clCreateKernel");
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 64, nullptr, &code);
  check(code, "clCreateBuffer");
  check(clSetKernelArg(kernel, 0, sizeof buffer, &buffer), "clSetKernelArg");

  struct Way {
    const char* name;
    bool profiling, event, marker;
  };
  for (const Way way :
       {Way{"plain queue", false, false, false}, Way{"plain queue, event", false, true, false},
        Way{"profiling queue, event", true, true, false},
        Way{"profiling queue, marker + event", true, true, true}}) {
    cl_command_queue queue =
        clCreateCommandQueue(context, device, way.profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &code);
    check(code, "clCreateCommandQueue");
    const std::size_t one = 1;
    std::vector<double> wall, device_time;
    for (int call = 0; call < calls + 20; ++call) {
      cl_event event = nullptr, marker = nullptr;
      const auto start = std::chrono::steady_clock::now();
      if (way.marker) check(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &marker), "marker");
      check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, &one, 0, nullptr,
                                   way.event ? &event : nullptr),
            "clEnqueueNDRangeKernel");
      check(clFinish(queue), "clFinish");
      const auto end = std::chrono::steady_clock::now();
      cl_ulong began = 0, ended = 0;
      if (way.profiling) {
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof began, &began, nullptr);
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof ended, &ended, nullptr);
      }
      if (event) clReleaseEvent(event);
      if (marker) clReleaseEvent(marker);
      if (call < 20) continue;  // warm-up
      wall.push_back(std::chrono::duration<double, std::micro>(end - start).count());
      device_time.push_back((ended - began) * 1e-3);
    }
    std::printf("%s: an empty kernel on a %s, enqueue + finish: median %.1f us, min %.1f us", name,
                way.name, median(wall), *std::min_element(wall.begin(), wall.end()));
    if (way.profiling) std::printf("; its event's execution %.1f us", median(device_time));
    std::printf(" (%ld calls)\n", calls);
    clReleaseCommandQueue(queue);
  }
  clReleaseMemObject(buffer);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseContext(context);
  return 0;
}
