// Choosing where a call runs and running it (see dispatch.hpp).
#include "dispatch.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "calibration.hpp"
#include "clgemm/errors.hpp"
#include "cpu_blas.hpp"
#include "crossover.hpp"
#include "device.hpp"
#include "notices.hpp"
#include "settings.hpp"

namespace clgemm::blas {

namespace {

enum class Where { None, Host, Device, Cpu };

const char* where_name(Where where) {
  switch (where) {
    case Where::None:
      return "none";
    case Where::Host:
      return "host";
    case Where::Device:
      return "device";
    case Where::Cpu:
      return "cpu";
  }
  return "?";
}

// Set once a device failure says the device will not work for any call (its kernels do not
// build, its driver fails): later calls go to the CPU without trying it.
std::atomic<bool> device_broken{false};

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, seconds < 0.1 ? "%.3g ms" : "%.0f ms", seconds * 1e3);
  return text;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

// C = beta * C on the host (alpha = 0 or K = 0); beta = 0 writes zeros without reading C.
void scale_c(const BlasCall& call) {
  for (int j = 0; j < call.n; ++j) {
    float* column = call.c + std::size_t(j) * std::size_t(call.ldc);
    for (int i = 0; i < call.m; ++i) column[i] = call.beta == 0.0f ? 0.0f : call.beta * column[i];
  }
}

// Whether an error from the device means that no later call will fare better.
bool breaks_device(const std::exception& error) {
  const auto* clgemm_error = dynamic_cast<const Error*>(&error);
  if (!clgemm_error) return false;
  switch (clgemm_error->code()) {
    case ErrorCode::AllocationTooLarge:
    case ErrorCode::OutOfHostMemory:
    case ErrorCode::InvalidSize:
    case ErrorCode::BufferTooSmall:
      return false;  // this call's size: a smaller one may still run
    default:
      return true;
  }
}

// The device's Context when `call` should run there, else nullptr; `why` says which and why.
Context* choose_device(const BlasCall& call, const CpuBlas& cpu, std::string& why) {
  const Settings& s = settings();
  if (is_forked_child()) {
    why = "forked child";
    return nullptr;
  }
  if (s.mode == Mode::Cpu) {
    why = "mode=cpu";
    return nullptr;
  }
  if (device_broken.load()) {
    why = "the device failed earlier";
    return nullptr;
  }
  if (s.mode == Mode::Auto && cpu.found() && s.min_flops && call.flops() < *s.min_flops) {
    why = number(call.flops()) + " flops < min_flops " + number(*s.min_flops);
    return nullptr;
  }
  std::string why_not;
  Context* context = device_context(why_not);
  if (!context) {
    say_once("no device", "no OpenCL device works (" + why_not + "); every call runs on the CPU");
    why = "no device";
    return nullptr;
  }
  if (s.mode == Mode::Device) {
    why = "mode=device";
    return context;
  }
  if (!cpu.found()) {
    say_once("no cpu blas",
             "no CPU BLAS found (no CLGEMM_BLAS_CPU_LIBRARY, no sgemm_ after this library in the "
             "symbol chain, no libblas.so.3 or libopenblas.so.0); every call runs on the device");
    why = "no CPU BLAS";
    return context;
  }
  if (s.min_flops) {
    why = number(call.flops()) + " flops >= min_flops " + number(*s.min_flops);
    return context;
  }
  const Calibration* figures = crossover_figures(*context, cpu, s.precision, why_not);
  if (!figures) {
    say_once("calibration failed",
             "measuring the device failed (" + why_not + "); every call runs on the CPU");
    device_broken.store(true);
    why = "calibration failed";
    return nullptr;
  }
  const double device_seconds = predicted_device_seconds(*figures, call);
  const double cpu_seconds = predicted_cpu_seconds(*figures, call);
  if (device_seconds < cpu_seconds) {
    why =
        "predicted device " + milliseconds(device_seconds) + " < cpu " + milliseconds(cpu_seconds);
    return context;
  }
  why = "predicted cpu " + milliseconds(cpu_seconds) + " <= device " + milliseconds(device_seconds);
  return nullptr;
}

void run_on_cpu(const BlasCall& call, const CpuBlas& cpu, std::string& why) {
  if (cpu.found()) {
    run_cpu_blas(cpu, call);
    return;
  }
  say_once("builtin loop",
           "no CPU BLAS found and the device cannot run the call: using a plain "
           "loop (slow)");
  why += ", no CPU BLAS: built-in loop";
  run_builtin_loop(call);
}

// Runs a call that computes a product; returns where it ran.
Where run_product(const BlasCall& call, std::string& why) {
  const CpuBlas& cpu = cpu_blas();
  Context* context = choose_device(call, cpu, why);
  if (context) {
    try {
      run_on_device(*context, call, settings().precision);
      return Where::Device;
    } catch (const std::exception& error) {
      const bool broken = breaks_device(error);
      if (broken) device_broken.store(true);
      say_once(std::string("device failed ") + error.what(),
               std::string("the device failed (") + error.what() + "); " +
                   (broken ? "every later call runs on the CPU" : "this call runs on the CPU"));
      why = std::string("device failed: ") + error.what();
    } catch (...) {
      device_broken.store(true);
      say_once("device failed",
               "the device failed (unknown exception); every later call runs "
               "on the CPU");
      why = "device failed";
    }
  }
  run_on_cpu(call, cpu, why);
  return Where::Cpu;
}

void trace(const BlasCall& call, Where where, const std::string& why, double seconds) {
  const bool row_major = call.order == BlasCall::Order::RowMajor;
  std::string line = call.symbol;
  if (call.order != BlasCall::Order::Fortran) line += row_major ? " RowMajor" : " ColMajor";
  line += ' ';
  line += row_major ? call.trans_b : call.trans_a;
  line += row_major ? call.trans_a : call.trans_b;
  line += " m=" + std::to_string(row_major ? call.n : call.m) +
          " n=" + std::to_string(row_major ? call.m : call.n) + " k=" + std::to_string(call.k);
  line += std::string(": ") + where_name(where) + " (" + why + ") " + milliseconds(seconds);
  say_line(line);
}

}  // namespace

void execute(const BlasCall& call) noexcept {
  // A CPU BLAS calling sgemm_ through the symbol chain (reference CBLAS does) reaches us again:
  // it goes straight back to that BLAS.
  if (inside_cpu_blas() && cpu_blas().found()) {
    run_cpu_blas(cpu_blas(), call);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  Where where = Where::None;
  std::string why;
  try {
    if (call.m == 0 || call.n == 0 || ((call.alpha == 0.0f || call.k == 0) && call.beta == 1.0f)) {
      why = "quick return";
    } else if (call.alpha == 0.0f || call.k == 0) {
      scale_c(call);
      where = Where::Host;
      why = call.alpha == 0.0f ? "alpha = 0: C = beta * C" : "K = 0: C = beta * C";
    } else {
      where = run_product(call, why);
    }
  } catch (...) {
    // Only the bookkeeping around the runs can throw here (std::bad_alloc): complete the call
    // if it has not run.
    if (where == Where::None && call.m && call.n && call.k && call.alpha != 0.0f) {
      if (cpu_blas().found())
        run_cpu_blas(cpu_blas(), call);
      else
        run_builtin_loop(call);
    }
    return;
  }
  if (!settings().trace) return;
  try {
    trace(call, where, why,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  } catch (...) {
  }
}

}  // namespace clgemm::blas
