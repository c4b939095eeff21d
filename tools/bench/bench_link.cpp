// clgemm-bench --link and --host (bench_link.hpp).
#include "bench/bench_link.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>

#include "common/cli_support.hpp"

namespace clgemm::bench {
namespace {

using Clock = std::chrono::steady_clock;

double best_seconds_of(int repeat, const std::function<void()>& run) {
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repeat; ++r) {
    const auto start = Clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

void check_status(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw OpenCLError(call, status);
}

struct Bandwidth {
  double pageable_up = 0, pageable_down = 0, pinned_up = 0, pinned_down = 0;  // GB/s
};

// Copies of `bytes` each way from pageable and pinned memory, best of `repeat`.
Bandwidth measure_bandwidth(Context& context, cl_command_queue queue, std::size_t bytes,
                            int repeat) {
  cl_int status = CL_SUCCESS;
  cl_mem device =
      clCreateBuffer(context.opencl_context(), CL_MEM_READ_WRITE, bytes, nullptr, &status);
  check_status(status, "clCreateBuffer");
  cl_mem pinned = clCreateBuffer(
      context.opencl_context(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &status);
  check_status(status, "clCreateBuffer (CL_MEM_ALLOC_HOST_PTR)");
  void* mapped = clEnqueueMapBuffer(queue, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                    nullptr, nullptr, &status);
  check_status(status, "clEnqueueMapBuffer");
  std::vector<char> pageable(bytes, 1);
  std::memset(mapped, 1, bytes);
  auto rate = [&](void* host, bool up) {
    const double seconds = best_seconds_of(repeat, [&] {
      check_status(
          up ? clEnqueueWriteBuffer(queue, device, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr)
             : clEnqueueReadBuffer(queue, device, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr),
          up ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer");
    });
    return double(bytes) / seconds / 1e9;
  };
  rate(pageable.data(), true);  // first touch of the device buffer
  Bandwidth out;
  out.pageable_up = rate(pageable.data(), true);
  out.pageable_down = rate(pageable.data(), false);
  out.pinned_up = rate(mapped, true);
  out.pinned_down = rate(mapped, false);
  clEnqueueUnmapMemObject(queue, pinned, mapped, 0, nullptr, nullptr);
  clFinish(queue);
  clReleaseMemObject(pinned);
  clReleaseMemObject(device);
  return out;
}

std::string shape_name(const GemmProblem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

}  // namespace

bool run_link_benchmark(Context& context, const std::vector<GemmProblem>& problems,
                        const LinkOptions& options) {
  cl_int status = CL_SUCCESS;
  cl_command_queue queue =
      clCreateCommandQueue(context.opencl_context(), context.opencl_device(), 0, &status);
  check_status(status, "clCreateCommandQueue");
  Bandwidth link;  // the largest size's, for the bound
  if (options.measure_link) {
    std::printf("link (GB/s, best of %d)     pageable up  pageable down  pinned up  pinned down\n",
                options.repeat);
    for (std::int64_t mib : options.mebibytes) {
      link = measure_bandwidth(context, queue, std::size_t(mib) << 20, options.repeat);
      std::printf("%8lld MiB                 %11.2f  %13.2f  %9.2f  %11.2f\n", (long long)mib,
                  link.pageable_up, link.pageable_down, link.pinned_up, link.pinned_down);
    }
    std::fflush(stdout);
  }
  bool all_passed = true;
  if (problems.empty()) {
    clReleaseCommandQueue(queue);
    return all_passed;
  }
  std::printf("host arrays, %s, best of %d (ms)   host-array  device-resident  %s  host/device\n",
              options.column_major ? "column-major" : "row-major", options.repeat,
              options.measure_link ? "link bound (pinned transfer + kernel)" : "");
  for (GemmProblem p : problems) {
    if (options.column_major) {
      p.layout = Layout::ColumnMajor;
      p.lda = p.m, p.ldb = p.k, p.ldc = p.m;
    }
    const auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
    const auto c_before = random_matrix(p.c_elements(), 3);
    auto c = c_before;
    context.sgemm(p, a.data(), b.data(), c.data());  // builds; verified
    const Verification verified = verify_result(p, a.data(), b.data(), c_before.data(), c.data());
    all_passed = all_passed && verified.passed;
    const double host =
        best_seconds_of(options.repeat, [&] { context.sgemm(p, a.data(), b.data(), c.data()); });

    cl_mem a_mem = cli::device_copy(context.opencl_context(), a);
    cl_mem b_mem = cli::device_copy(context.opencl_context(), b);
    cl_mem c_mem = cli::device_copy(context.opencl_context(), c);
    auto on_device = [&] {
      context.sgemm(p, a_mem, b_mem, c_mem, queue);
      clFinish(queue);
    };
    on_device();
    const double device = best_seconds_of(options.repeat, on_device);
    for (cl_mem m : {a_mem, b_mem, c_mem}) clReleaseMemObject(m);

    std::printf("%-34s %10.3f  %15.3f", shape_name(p).c_str(), host * 1e3, device * 1e3);
    if (options.measure_link && link.pinned_up > 0) {
      const double up =
          double(p.a_elements() + p.b_elements() + (p.beta != 0 ? p.c_elements() : 0)) * 4;
      const double down = double(p.c_elements()) * 4;
      const double bound = up / (link.pinned_up * 1e9) + down / (link.pinned_down * 1e9) + device;
      std::printf("  %37.3f", bound * 1e3);
    }
    std::printf("  %10.2fx%s\n", host / device, verified.passed ? "" : "  FAILED verification");
    std::fflush(stdout);
  }
  clReleaseCommandQueue(queue);
  return all_passed;
}

}  // namespace clgemm::bench
