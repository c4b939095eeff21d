// launch_floor: the shortest call an OpenCL device allows, apart from any GEMM. Times a kernel
// that does nothing (one work-group of one work-item) as enqueue + clFinish on the host, the
// median of many calls, on the first GPU (or the first device) of the first platform that has
// one: on a plain queue, on a plain queue with the launch's event asked for, and on a queue
// with profiling enabled, with its event (and the execution the event reports) and with a
// marker enqueued before each launch as well (how a call of several launches is timed on the
// device). What a library's call costs beyond its kernels is its wall time less this floor,
// and what profiling adds to a call is the difference. A measuring tool for the device machine:
//   g++ -std=c++17 -O2 -o launch_floor tools/device/launch_floor.cpp -lOpenCL && ./launch_floor
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS  // clCreateCommandQueue: any OpenCL 1.2 device
#include <chrono>

#include "probe_setup.hpp"

int main(int argc, char** argv) {
  probe::tool_name() = "launch_floor";
  if (argc > 2) probe::fail("usage: launch_floor [CALLS]");
  const long calls = argc > 1 ? probe::whole_number(argv[1], 1, 1000000, "CALLS") : 2000;
  const probe::Device device = probe::open_device(/*any_device=*/true);
  const char* name = device.name.c_str();
  cl_context context = device.context;
  cl_kernel kernel = probe::build_kernel(
      device, "__kernel void nothing(__global float* x) { if (x == 0) return; }", "nothing");
  cl_int code = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 64, nullptr, &code);
  probe::check(code, "clCreateBuffer");
  probe::check(clSetKernelArg(kernel, 0, sizeof buffer, &buffer), "clSetKernelArg");

  struct Way {
    const char* name;
    bool profiling, event, marker;
  };
  for (const Way way :
       {Way{"plain queue", false, false, false}, Way{"plain queue, event", false, true, false},
        Way{"profiling queue, event", true, true, false},
        Way{"profiling queue, marker + event", true, true, true}}) {
    cl_command_queue queue = clCreateCommandQueue(
        context, device.id, way.profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &code);
    probe::check(code, "clCreateCommandQueue");
    const std::size_t one = 1;
    std::vector<double> wall, device_time;
    for (int call = 0; call < calls + 20; ++call) {
      cl_event event = nullptr, marker = nullptr;
      const auto start = std::chrono::steady_clock::now();
      if (way.marker)
        probe::check(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &marker), "marker");
      probe::check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, &one, 0, nullptr,
                                          way.event ? &event : nullptr),
                   "clEnqueueNDRangeKernel");
      probe::check(clFinish(queue), "clFinish");
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
                way.name, probe::median(wall), *std::min_element(wall.begin(), wall.end()));
    if (way.profiling) std::printf("; its event's execution %.1f us", probe::median(device_time));
    std::printf(" (%ld calls)\n", calls);
    clReleaseCommandQueue(queue);
  }
  clReleaseMemObject(buffer);
  clReleaseKernel(kernel);
  clReleaseContext(context);
  return 0;
}
