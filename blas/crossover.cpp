// The crossover figures of this process (see crossover.hpp).
#include "crossover.hpp"

#include <unistd.h>

#include <cstdio>
#include <exception>

#include "calibration_measure.hpp"
#include "made_once.hpp"
#include "notices.hpp"
#include "settings.hpp"
#include "support/files.hpp"

namespace clgemm::blas {

namespace {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}

// What the figures depend on: the machine, the device and its driver, the CPU library and the
// precision the device computes in.
std::string calibration_key(const Context& context, const CpuBlas& cpu, Precision precision) {
  const DeviceLimits& device = context.device();
  return "host " + host_name() + " | device " + device.platform_name + " | " + device.name + " | " +
         device.driver_version + " | cpu " + cpu.library + " | precision " +
         precision_name(precision) + " | model 2";
}

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, seconds < 0.1 ? "%.3g ms" : "%.0f ms", seconds * 1e3);
  return text;
}

std::string describe(const Calibration& figures) {
  std::string text = "link " + std::to_string(figures.link_bytes_per_second / 1e9) +
                     " GB/s, overhead " + milliseconds(figures.device_overhead_seconds) +
                     ", device GFLOP/s";
  for (const auto& [size, rate] : figures.device.points)
    text += " " + std::to_string(int(size)) + ":" + std::to_string(int(rate / 1e9));
  text += ", cpu GFLOP/s";
  for (const auto& [size, rate] : figures.cpu.points)
    text += " " + std::to_string(int(size)) + ":" + std::to_string(int(rate / 1e9));
  return text;
}

// Reads the figures kept at `path` for `key`; false when there are none or they are damaged.
bool load(const std::string& path, const std::string& key, Calibration& figures) {
  if (path.empty()) return false;
  try {
    const auto text = read_regular_file(path, 1 << 20);
    return text && parse_calibration(*text, key, figures);
  } catch (const std::exception& error) {
    say_once("calibration read " + path,
             std::string("cannot read the calibration: ") + error.what() + "; measuring again");
    return false;
  }
}

void store(const std::string& path, const std::string& key, const Calibration& figures) {
  if (path.empty()) return;
  try {
    write_file_atomically(path, format_calibration(key, figures));
  } catch (const std::exception& error) {
    say_once("calibration write " + path, std::string("cannot keep the calibration: ") +
                                              error.what() + "; it is measured in each process");
  }
}

}  // namespace

const Calibration* crossover_figures(Context& context, const CpuBlas& cpu, Precision precision,
                                     std::string& why_not) {
  static MadeOnce<Calibration> figures;
  return figures.get(
      [&] {
        const std::string key = calibration_key(context, cpu, precision);
        const std::string path = calibration_path(key);
        Calibration read;
        if (load(path, key, read)) {
          if (settings().trace) say_line("calibration read from " + path + ": " + describe(read));
          return new Calibration(read);
        }
        const Calibration measured = measure_calibration(context, cpu, precision);
        store(path, key, measured);
        if (settings().trace)
          say_line("calibrated in " + std::to_string(measured.seconds_taken) + " s" +
                   (path.empty() ? std::string(", not kept") : ", kept in " + path) + ": " +
                   describe(measured));
        return new Calibration(measured);
      },
      why_not);
}

}  // namespace clgemm::blas
