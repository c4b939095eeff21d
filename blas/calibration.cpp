// The crossover model and its text form on disk (see calibration.hpp).
#include "calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "settings.hpp"
#include "support/files.hpp"

namespace clgemm::blas {

namespace {

const char* kFormatTag = "clgemm-blas-calibration 1";

double problem_size(const BlasCall& call) {
  return std::cbrt(double(call.m) * double(call.n) * double(call.k));
}

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

}  // namespace

double RateTable::rate_at(double size) const {
  if (points.empty()) return 0;
  if (size <= points.front().first) return points.front().second;
  if (size >= points.back().first) return points.back().second;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const auto& [size1, rate1] = points[i];
    if (size > size1) continue;
    const auto& [size0, rate0] = points[i - 1];
    const double t = std::log(size / size0) / std::log(size1 / size0);
    return std::exp(std::log(rate0) + t * (std::log(rate1) - std::log(rate0)));
  }
  return points.back().second;
}

double predicted_device_seconds(const Calibration& figures, const BlasCall& call) {
  return figures.device_overhead_seconds + call.transfer_bytes() / figures.link_bytes_per_second +
         call.flops() / figures.device.rate_at(problem_size(call));
}

double predicted_cpu_seconds(const Calibration& figures, const BlasCall& call) {
  return call.flops() / figures.cpu.rate_at(problem_size(call));
}

std::string format_calibration(const std::string& key, const Calibration& figures) {
  std::ostringstream text;
  text.precision(6);
  text << kFormatTag << '\n' << "key " << one_line(key) << '\n';
  text << "link_bytes_per_second " << figures.link_bytes_per_second << '\n';
  text << "device_overhead_seconds " << figures.device_overhead_seconds << '\n';
  for (const auto& [size, rate] : figures.device.points)
    text << "device_flops_per_second " << size << ' ' << rate << '\n';
  for (const auto& [size, rate] : figures.cpu.points)
    text << "cpu_flops_per_second " << size << ' ' << rate << '\n';
  text << "seconds_taken " << figures.seconds_taken << '\n';
  return text.str();
}

bool parse_calibration(const std::string& text, const std::string& key, Calibration& figures) {
  std::istringstream lines(text);
  std::string line;
  if (!std::getline(lines, line) || line != kFormatTag) return false;
  if (!std::getline(lines, line) || line != "key " + one_line(key)) return false;
  Calibration read;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name;
    double first = 0, second = 0;
    words >> name >> first;
    if (!words) return false;
    if (name == "link_bytes_per_second")
      read.link_bytes_per_second = first;
    else if (name == "device_overhead_seconds")
      read.device_overhead_seconds = first;
    else if (name == "seconds_taken")
      read.seconds_taken = first;
    else if (name == "device_flops_per_second" || name == "cpu_flops_per_second") {
      if (!(words >> second) || !(first > 0) || !(second > 0) || !std::isfinite(second))
        return false;
      auto& points = (name[0] == 'd' ? read.device : read.cpu).points;
      if (!points.empty() && first <= points.back().first) return false;
      points.emplace_back(first, second);
    } else {
      return false;
    }
  }
  if (!(read.link_bytes_per_second > 0) || !std::isfinite(read.link_bytes_per_second) ||
      !(read.device_overhead_seconds >= 0) || read.device.points.empty() || read.cpu.points.empty())
    return false;
  figures = read;
  return true;
}

std::string calibration_path(const std::string& key) {
  if (!settings().calibration_file.empty()) return settings().calibration_file;
  std::string directory;
  try {
    const auto setting = cache_directory_setting();
    directory = setting ? *setting : per_user_directory("XDG_CACHE_HOME", ".cache");
  } catch (...) {
    return {};
  }
  if (directory.empty()) return {};
  char name[64];
  std::snprintf(name, sizeof name, "calibration-%016llx.txt",
                static_cast<unsigned long long>(fnv1a(key)));
  return (std::filesystem::path(directory) / "blas" / name).string();
}

}  // namespace clgemm::blas
