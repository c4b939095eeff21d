// Measuring the crossover model's figures (see calibration_measure.hpp).
#include "calibration_measure.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include "clgemm/errors.hpp"
#include "device.hpp"

namespace clgemm::blas {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The shortest of up to `reps` runs of `work`, stopping early once `budget` seconds are spent.
double shortest_time(const std::function<void()>& work, int reps, double budget) {
  double best = 1e30;
  const auto start = Clock::now();
  for (int rep = 0; rep < reps; ++rep) {
    const auto begin = Clock::now();
    work();
    best = std::min(best, seconds_since(begin));
    if (seconds_since(start) > budget) break;
  }
  return best;
}

void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw OpenCLError(call, status);
}

// Host <-> device bytes per second: a 16 MiB buffer written and read back, blocking.
double measure_link(Context& context) {
  const std::size_t bytes = std::size_t(16) << 20;
  std::vector<char> host(bytes, 1);
  cl_int status = CL_SUCCESS;
  cl_command_queue queue =
      clCreateCommandQueue(context.opencl_context(), context.opencl_device(), 0, &status);
  check(status, "clCreateCommandQueue");
  cl_mem buffer =
      clCreateBuffer(context.opencl_context(), CL_MEM_READ_WRITE, bytes, nullptr, &status);
  if (status != CL_SUCCESS) {
    clReleaseCommandQueue(queue);
    check(status, "clCreateBuffer");
  }
  cl_int failed = CL_SUCCESS;
  auto write = [&] {
    const cl_int s =
        clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, bytes, host.data(), 0, nullptr, nullptr);
    if (s != CL_SUCCESS) failed = s;
  };
  auto read = [&] {
    const cl_int s =
        clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, bytes, host.data(), 0, nullptr, nullptr);
    if (s != CL_SUCCESS) failed = s;
  };
  write();  // the first touch allocates the buffer's memory
  const double write_seconds = shortest_time(write, 3, 0.2);
  const double read_seconds = shortest_time(read, 3, 0.2);
  clReleaseMemObject(buffer);
  clReleaseCommandQueue(queue);
  check(failed, "clEnqueueWriteBuffer/clEnqueueReadBuffer");
  return 2.0 * double(bytes) / std::max(write_seconds + read_seconds, 1e-9);
}

BlasCall cube(int size, std::vector<float>& a, std::vector<float>& b, std::vector<float>& c) {
  const std::size_t elements = std::size_t(size) * std::size_t(size);
  a.assign(elements, 0.5f);
  b.assign(elements, 0.25f);
  c.assign(elements, 0.0f);
  BlasCall call;
  call.m = call.n = call.k = size;
  call.lda = call.ldb = call.ldc = size;
  call.a = a.data();
  call.b = b.data();
  call.c = c.data();
  return call;
}

constexpr double kLongestCall = 0.15;
constexpr int kSmallest = 64, kLargest = 4096;

}  // namespace

Calibration measure_calibration(Context& context, const CpuBlas& cpu, Precision precision) {
  const auto start = Clock::now();
  Calibration figures;
  figures.link_bytes_per_second = measure_link(context);

  std::vector<float> a, b, c;
  {
    const BlasCall tiny = cube(16, a, b, c);
    run_on_device(context, tiny, precision);  // warm-up: builds the kernel
    figures.device_overhead_seconds =
        shortest_time([&] { run_on_device(context, tiny, precision); }, 5, 0.2);
  }

  double device_spent = 0;
  for (int size = kSmallest; size <= kLargest; size *= 2) {
    const BlasCall call = cube(size, a, b, c);
    run_on_device(context, call, precision);  // warm-up: builds the kernel
    const auto begin = Clock::now();
    const double seconds = shortest_time([&] { run_on_device(context, call, precision); }, 3, 0.05);
    device_spent += seconds_since(begin);
    const double kernel_seconds =
        std::max(seconds - figures.device_overhead_seconds -
                     call.transfer_bytes() / figures.link_bytes_per_second,
                 0.1 * seconds);
    // A larger product never keeps the device less busy: a rate below the smaller size's is
    // noise of the subtraction above (the H200 measured 569, 341 and 1683 GFLOP/s at 128,
    // 256 and 512, which sent 256^3 to the CPU at 0.82x of the device), so it is raised to it.
    double rate = call.flops() / kernel_seconds;
    if (!figures.device.points.empty()) rate = std::max(rate, figures.device.points.back().second);
    figures.device.points.emplace_back(size, rate);
    if (seconds > kLongestCall || device_spent > 0.8 || seconds_since(start) > 1.2) break;
  }

  double cpu_spent = 0;
  for (int size = kSmallest; size <= kLargest; size *= 2) {
    const BlasCall call = cube(size, a, b, c);
    run_cpu_blas(cpu, call);  // warm-up: the CPU BLAS's threads and buffers
    const auto begin = Clock::now();
    const double seconds = shortest_time([&] { run_cpu_blas(cpu, call); }, 3, 0.05);
    cpu_spent += seconds_since(begin);
    figures.cpu.points.emplace_back(size, call.flops() / std::max(seconds, 1e-9));
    if (seconds > kLongestCall || cpu_spent > 0.4 || seconds_since(start) > 2.0) break;
  }
  figures.seconds_taken = seconds_since(start);
  return figures;
}

}  // namespace clgemm::blas
