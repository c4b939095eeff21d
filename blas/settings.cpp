// Reading the settings from the environment and the configuration file (see settings.hpp).
#include "settings.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "notices.hpp"
#include "support/files.hpp"

namespace clgemm::blas {

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::Auto:
      return "auto";
    case Mode::Device:
      return "device";
    case Mode::Cpu:
      return "cpu";
  }
  return "?";
}

namespace {

// One setting: its environment variable and its key in the configuration file.
struct Key {
  const char* variable;
  const char* file_key;
};
const Key kMode{"CLGEMM_BLAS_MODE", "mode"};
const Key kMinFlops{"CLGEMM_BLAS_MIN_FLOPS", "min_flops"};
const Key kCpuLibrary{"CLGEMM_BLAS_CPU_LIBRARY", "cpu_library"};
const Key kPrecision{"CLGEMM_BLAS_PRECISION", "precision"};
const Key kTrace{"CLGEMM_BLAS_TRACE", "trace"};
const Key kPlatform{"CLGEMM_PLATFORM", "platform"};
const Key kDevice{"CLGEMM_DEVICE", "device"};
const Key kCalibrationFile{"CLGEMM_BLAS_CALIBRATION_FILE", "calibration_file"};
const Key* const kAllKeys[] = {&kMode,  &kMinFlops, &kCpuLibrary, &kPrecision,
                               &kTrace, &kPlatform, &kDevice,     &kCalibrationFile};

std::string trimmed(const std::string& text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

std::string lowercase(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// A value and where it came from, for messages: "CLGEMM_BLAS_MODE" or "mode (file:3)".
struct Found {
  std::string value;
  std::string origin;
  std::string line;  // the file's line number ("" for an environment variable)
};

class Sources {
 public:
  Sources() {
    const char* path = std::getenv("CLGEMM_BLAS_CONFIG");
    if (!path || !*path) return;
    std::optional<std::string> text;
    try {
      text = read_regular_file(path, 1 << 20);
    } catch (const std::exception& error) {
      complain(std::string("CLGEMM_BLAS_CONFIG: ") + error.what() + "; the file is not used");
      return;
    }
    if (!text) {
      complain(std::string("CLGEMM_BLAS_CONFIG=") + path + ": no such file; it is not used");
      return;
    }
    std::istringstream lines(*text);
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
      const std::string content = trimmed(line.substr(0, line.find('#')));
      if (content.empty()) continue;
      const std::string where = std::string(path) + ":" + std::to_string(number);
      const std::size_t equals = content.find('=');
      if (equals == std::string::npos) {
        complain(where + ": \"" + content + "\" is not a `key = value` line; it is ignored");
        continue;
      }
      const std::string key = lowercase(trimmed(content.substr(0, equals)));
      if (key.empty()) {
        complain(where + ": \"" + content + "\" has no key before '='; it is ignored");
        continue;
      }
      bool known = false;
      for (const Key* k : kAllKeys) known = known || key == k->file_key;
      if (!known) {
        complain(where + ": unknown key \"" + key +
                 "\" (known: mode, min_flops, cpu_library, precision, trace, platform, device, "
                 "calibration_file); it is ignored");
        continue;
      }
      if (const auto earlier = file_.find(key); earlier != file_.end())
        complain(where + ": " + key + " is given again (first at line " + earlier->second.line +
                 "); the last line's value is used");
      file_[key] = {trimmed(content.substr(equals + 1)), key + " (" + where + ")",
                    std::to_string(number)};
    }
  }

  // The environment variable when set and not empty, else the file's key.
  std::optional<Found> get(const Key& key) const {
    if (const char* value = std::getenv(key.variable); value && *value)
      return Found{value, key.variable, ""};
    const auto it = file_.find(key.file_key);
    if (it == file_.end() || it->second.value.empty()) return std::nullopt;
    return it->second;
  }

  static void complain(const std::string& message) { say_once(message, message); }

 private:
  std::map<std::string, Found> file_;
};

void bad_value(const Found& found, const std::string& expected, const std::string& fallback) {
  Sources::complain(found.origin + "=\"" + found.value + "\" is not " + expected + "; using " +
                    fallback);
}

Settings read_settings() {
  const Sources sources;
  Settings result;
  if (const auto found = sources.get(kMode)) {
    const std::string word = lowercase(found->value);
    if (word == "auto")
      result.mode = Mode::Auto;
    else if (word == "device")
      result.mode = Mode::Device;
    else if (word == "cpu")
      result.mode = Mode::Cpu;
    else
      bad_value(*found, "one of auto, device, cpu", "auto");
  }
  if (const auto found = sources.get(kMinFlops)) {
    errno = 0;
    char* end = nullptr;
    const double value = std::strtod(found->value.c_str(), &end);
    if (errno == 0 && end && *end == '\0' && std::isfinite(value) && value >= 0)
      result.min_flops = value;
    else
      bad_value(*found, "a number of flops >= 0 (e.g. 1e8)", "the measured crossover");
  }
  if (const auto found = sources.get(kCpuLibrary)) result.cpu_library = found->value;
  if (const auto found = sources.get(kPrecision)) {
    const std::string word = lowercase(found->value);
    if (word == "fp32")
      result.precision = Precision::FP32;
    else if (word == "3xtf32")
      result.precision = Precision::TF32x3;
    else
      bad_value(*found, "fp32 or 3xtf32 (SGEMM needs FP32-level accuracy, so not tf32)", "fp32");
  }
  if (const auto found = sources.get(kTrace)) {
    const std::string word = lowercase(found->value);
    if (word == "1" || word == "on" || word == "yes" || word == "true")
      result.trace = true;
    else if (word == "0" || word == "off" || word == "no" || word == "false")
      result.trace = false;
    else
      bad_value(*found, "1 or 0 (on/off, yes/no, true/false)", "0");
  }
  if (const auto found = sources.get(kPlatform)) result.platform = found->value;
  if (const auto found = sources.get(kDevice)) result.device = found->value;
  if (const auto found = sources.get(kCalibrationFile)) result.calibration_file = found->value;
  return result;
}

}  // namespace

const Settings& settings() {
  static const Settings* const read = new Settings(read_settings());  // kept until exit
  return *read;
}

}  // namespace clgemm::blas
