// probe_setup: what the standalone device probes (launch_floor, cache_bandwidth, paired_reads)
// share: the first GPU's OpenCL context, a kernel built from source, a launch timed by its
// profiling event, and failure as a message naming the probe and exit 2. Header-only, so that
// each probe stays one g++ command on the device machine:
//   g++ -std=c++17 -O2 -o PROBE tools/device/PROBE.cpp -lOpenCL
#pragma once

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace probe {

// The probe's name, the start of every message it prints on failure.
inline const char*& tool_name() {
  static const char* name = "probe";
  return name;
}

[[noreturn]] inline void fail(const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", tool_name(), message.c_str());
  std::exit(2);
}

inline void check(cl_int code, const char* what) {
  if (code != CL_SUCCESS) fail(std::string(what) + " failed (" + std::to_string(code) + ")");
}

// The first GPU of any platform (or, where `any_device`, the first platform's first device when
// no platform has one), its context and what the probes print of it.
struct Device {
  cl_device_id id = nullptr;
  cl_context context = nullptr;
  std::string name;
  cl_uint compute_units = 0;
};

inline Device open_device(bool any_device = false) {
  cl_uint platform_count = 0;
  check(clGetPlatformIDs(0, nullptr, &platform_count), "clGetPlatformIDs");
  if (platform_count == 0) fail("no OpenCL platform");
  std::vector<cl_platform_id> platforms(platform_count);
  check(clGetPlatformIDs(platform_count, platforms.data(), nullptr), "clGetPlatformIDs");
  Device d;
  for (cl_platform_id platform : platforms)
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &d.id, nullptr) == CL_SUCCESS) break;
  if (d.id == nullptr && any_device)
    check(clGetDeviceIDs(platforms[0], CL_DEVICE_TYPE_ALL, 1, &d.id, nullptr), "clGetDeviceIDs");
  if (d.id == nullptr) fail("no GPU");
  char name[256] = {};
  clGetDeviceInfo(d.id, CL_DEVICE_NAME, sizeof name, name, nullptr);
  clGetDeviceInfo(d.id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d.compute_units, &d.compute_units,
                  nullptr);
  d.name = name;
  cl_int code = CL_SUCCESS;
  d.context = clCreateContext(nullptr, 1, &d.id, nullptr, nullptr, &code);
  check(code, "clCreateContext");
  return d;
}

// Kernel `name` of `source`, built for the device; the build log where the build fails.
inline cl_kernel build_kernel(const Device& d, const std::string& source, const char* name) {
  cl_int code = CL_SUCCESS;
  const char* text = source.c_str();
  cl_program program = clCreateProgramWithSource(d.context, 1, &text, nullptr, &code);
  check(code, "clCreateProgramWithSource");
  if (clBuildProgram(program, 1, &d.id, "", nullptr, nullptr) != CL_SUCCESS) {
    std::size_t size = 0;
    clGetProgramBuildInfo(program, d.id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(program, d.id, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    fail("clBuildProgram failed:\n" + log);
  }
  cl_kernel kernel = clCreateKernel(program, name, &code);
  check(code, "clCreateKernel");
  clReleaseProgram(program);  // the kernel keeps it
  return kernel;
}

// OpenCL C the reading probes share: the sum of `count` float4s of `data`, read by one
// work-item at `first`, `first + stride`, ..., pass after pass. Each pass starts 4113 vectors
// further on (odd, so no earlier pass repeats), so that a work-item reads what another read
// before: its bytes come from L2, not from the L1 of the multiprocessor that read them in the
// last pass.
inline const char* const kShiftedPasses = R"CLC(
float4 shifted_passes(__global const float4* data, const uint count, const uint passes,
                      const uint first, const uint stride) {
  float4 sum = (float4)(0.0f);
  for (uint p = 0; p < passes; ++p) {
    const uint shift = (uint)(((ulong)p * 4113u) % count);
    for (uint i = first; i < count; i += stride) {
      const uint j = i + shift;
      sum += data[j >= count ? j - count : j];
    }
  }
  return sum;
}
)CLC";

// A queue whose launches report their times (CL_QUEUE_PROFILING_ENABLE).
inline cl_command_queue profiling_queue(const Device& d) {
  const cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_int code = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueueWithProperties(d.context, d.id, properties, &code);
  check(code, "clCreateCommandQueueWithProperties");
  return queue;
}

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Seconds one launch of `kernel` over `global` work-items in groups of `local` ran, as its
// profiling event reports (`queue` made with CL_QUEUE_PROFILING_ENABLE).
inline double timed_launch(cl_command_queue queue, cl_kernel kernel, std::size_t global,
                           std::size_t local) {
  cl_event event = nullptr;
  check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, &event),
        "clEnqueueNDRangeKernel");
  check(clWaitForEvents(1, &event), "clWaitForEvents");
  cl_ulong start = 0, end = 0;
  clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
  clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
  clReleaseEvent(event);
  return double(end - start) * 1e-9;
}

// A whole number from `text` within [low, high], else a message naming `what` and exit 2.
inline long whole_number(const char* text, long low, long high, const char* what) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < low || value > high)
    fail(std::string(what) + " must be one whole number from " + std::to_string(low) + " to " +
         std::to_string(high) + ", got '" + text + "'");
  return value;
}

// The probe's one optional argument, work-groups of 256 per compute unit: `fallback` where
// none is given, else a whole number within [low, high]; anything else is a message and exit 2.
inline long groups_per_unit_argument(int argc, char** argv, long low, long high, long fallback) {
  if (argc > 2) fail(std::string("usage: ") + tool_name() + " [GROUPS_PER_UNIT]");
  if (argc < 2) return fallback;
  return whole_number(argv[1], low, high, "GROUPS_PER_UNIT (work-groups of 256 per compute unit)");
}

}  // namespace probe
