// The tuning database (see clgemm/tuning.hpp): shape classes, loading and merging the shipped
// and user JSON files, and the choice `auto` makes.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <tuple>

#include "clgemm/errors.hpp"
#include "clgemm/tuning.hpp"
#include "kernel_source.hpp"

namespace clgemm {
namespace fs = std::filesystem;

std::string shape_class(const GemmProblem& p) {
  // Column-major problems run as their row-major transpose: M and N swap.
  const bool row_major = p.layout == Layout::RowMajor;
  const double m = double(row_major ? p.m : p.n), n = double(row_major ? p.n : p.m);
  const double k = double(p.k), volume = m * n * k;
  if (volume <= 512.0 * 512.0 * 512.0) return "small";
  if (std::min(m, n) <= 256) return "skinny";
  if (k <= 512) return "small-k";
  if (volume <= 1024.0 * 1024.0 * 1024.0) return "medium";
  return "large";
}

const std::vector<std::string>& shape_classes() {
  static const std::vector<std::string> classes = {"small", "skinny", "small-k", "medium", "large"};
  return classes;
}

GemmProblem representative_problem(const std::string& shape_class) {
  if (shape_class == "small") return GemmProblem::packed(512, 512, 512);
  if (shape_class == "skinny") return GemmProblem::packed(8192, 128, 8192);
  if (shape_class == "small-k") return GemmProblem::packed(8192, 8192, 256);
  if (shape_class == "medium") return GemmProblem::packed(1024, 1024, 1024);
  if (shape_class == "large") return GemmProblem::packed(4096, 4096, 4096);
  throw Error(ErrorCode::InvalidArgument, "unknown shape class '" + shape_class + "'",
              "shape_class");
}

namespace {

TunedEntry entry_from_json(const nlohmann::json& j) {
  TunedEntry e;
  e.device = j.at("device").get<std::string>();
  e.platform = j.value("platform", "");
  e.shape_class = j.at("shape_class").get<std::string>();
  e.precision = parse_precision(j.value("precision", "fp32"));
  e.kernel = j.at("kernel").get<std::string>();
  e.options = j.at("options").get<KernelOptions>();
  e.gflops = j.value("gflops", 0.0);
  e.m = j.value("m", 0), e.n = j.value("n", 0), e.k = j.value("k", 0);
  e.tuned = j.value("tuned", "");
  return e;
}

nlohmann::json entry_to_json(const TunedEntry& e) {
  return {{"device", e.device},
          {"platform", e.platform},
          {"shape_class", e.shape_class},
          {"precision", precision_name(e.precision)},
          {"kernel", e.kernel},
          {"options", e.options},
          {"gflops", e.gflops},
          {"m", e.m},
          {"n", e.n},
          {"k", e.k},
          {"tuned", e.tuned}};
}

bool same_key(const TunedEntry& a, const TunedEntry& b) {
  return a.device == b.device && a.platform == b.platform && a.shape_class == b.shape_class &&
         a.precision == b.precision;
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : "";
}

}  // namespace

std::string TuningDatabase::user_file_path() {
  if (auto file = env_or_empty("CLGEMM_TUNING_FILE"); !file.empty()) return file;
  if (auto xdg = env_or_empty("XDG_CONFIG_HOME"); !xdg.empty())
    return (fs::path(xdg) / "clgemm" / "tuning.json").string();
  if (auto home = env_or_empty("HOME"); !home.empty())
    return (fs::path(home) / ".config" / "clgemm" / "tuning.json").string();
  return {};
}

std::string TuningDatabase::shipped_directory() {
  // The tuning directory sits beside each candidate kernel directory (kernels/ and tuning/ in
  // the source tree, share/clgemm/kernels and share/clgemm/tuning when installed).
  for (const auto& dir : detail::kernel_search_path()) {
    const fs::path tuning = fs::path(dir).parent_path() / "tuning";
    std::error_code error;
    if (fs::is_directory(tuning, error)) return tuning.string();
  }
  return {};
}

TuningDatabase TuningDatabase::load_file(const std::string& path) {
  TuningDatabase db;
  std::ifstream in(path);
  if (!in) return db;
  try {
    const auto j = nlohmann::json::parse(in);
    if (j.value("format", 0) != 1)
      throw Error(ErrorCode::InvalidArgument,
                  "tuning file '" + path + "' has an unknown format (expected \"format\": 1)",
                  "tuning file");
    for (const auto& entry : j.at("entries")) db.put(entry_from_json(entry));
  } catch (const nlohmann::json::exception& error) {
    throw Error(ErrorCode::InvalidArgument,
                "tuning file '" + path + "' is malformed: " + error.what(), "tuning file");
  }
  return db;
}

TuningDatabase TuningDatabase::load_default() {
  TuningDatabase db;
  if (const auto dir = shipped_directory(); !dir.empty()) {
    std::vector<fs::path> files;
    for (const auto& item : fs::directory_iterator(dir))
      if (item.path().extension() == ".json") files.push_back(item.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) db.overlay(load_file(file.string()));
  }
  if (const auto user = user_file_path(); !user.empty()) db.overlay(load_file(user));
  return db;
}

void TuningDatabase::put(const TunedEntry& entry) {
  for (auto& existing : entries_)
    if (same_key(existing, entry)) {
      existing = entry;
      return;
    }
  entries_.push_back(entry);
}

void TuningDatabase::overlay(const TuningDatabase& other) {
  for (const auto& entry : other.entries_) put(entry);
}

std::optional<TunedEntry> TuningDatabase::find(const DeviceLimits& device,
                                               const std::string& shape_class,
                                               Precision precision) const {
  for (const auto& e : entries_)
    if (e.device == device.name && e.platform == device.platform_name &&
        e.shape_class == shape_class && e.precision == precision)
      return e;
  return std::nullopt;
}

void TuningDatabase::save(const std::string& path) const {
  auto sorted = entries_;
  std::sort(sorted.begin(), sorted.end(), [](const TunedEntry& a, const TunedEntry& b) {
    return std::tie(a.device, a.platform, a.shape_class, a.precision) <
           std::tie(b.device, b.platform, b.shape_class, b.precision);
  });
  nlohmann::json j = {{"format", 1}, {"entries", nlohmann::json::array()}};
  for (const auto& e : sorted) j["entries"].push_back(entry_to_json(e));
  std::error_code error;
  if (fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path(), error);
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    out << j.dump(2) << '\n';
    if (!out)
      throw Error(ErrorCode::InvalidArgument, "cannot write the tuning file '" + path + "'",
                  "tuning file");
  }
  fs::rename(temporary, path);
}

namespace {

// Whether `kernel` computes `precision` here (a kernel that needs tensor cores only where
// the device has them).
bool runs(const std::string& kernel, Precision precision, bool tensor_cores) {
  const auto& description = find_kernel(kernel);
  return description.computes(precision) && (!description.needs_tensor_cores || tensor_cores);
}

}  // namespace

KernelChoice choose_kernel(const TuningDatabase& database, const DeviceLimits& device,
                           const GemmProblem& problem, Precision precision, bool tensor_cores) {
  const std::string cls = shape_class(problem);
  auto describe = [&](const TunedEntry& e, const std::string& why) {
    char measured[96];
    std::snprintf(measured, sizeof measured, "%.0f GFLOP/s on %lldx%lldx%lld", e.gflops,
                  (long long)e.m, (long long)e.n, (long long)e.k);
    return why + " (" + measured + (e.tuned.empty() ? "" : ", tuned " + e.tuned) + ")";
  };
  // Tensor cores are used only for a reduced precision the caller asked for. Elsewhere the
  // reduced precisions run on the FP32 kernels' tuned parameters (they round the operands and
  // multiply like FP32), so those entries are looked up under fp32.
  const bool on_tensor_cores = precision != Precision::FP32 && tensor_cores;
  const Precision tuned_as = on_tensor_cores ? precision : Precision::FP32;
  const std::string mode = std::string(precision_name(tuned_as));
  for (const std::string& look_in : {cls, std::string("large")}) {
    const auto entry = database.find(device, look_in, tuned_as);
    if (!entry || !runs(entry->kernel, precision, tensor_cores)) continue;
    const std::string why =
        look_in == cls ? "tuned " + mode + " entry for shape class '" + cls + "' on this device"
                       : "no " + mode + " entry for shape class '" + cls +
                             "' on this device; using its 'large' entry";
    return {entry->kernel, entry->options, describe(*entry, why)};
  }
  const std::string kernel = on_tensor_cores ? "tensorcore" : "blocked";
  return {kernel,
          {},
          "no " + mode + " tuning entry for device '" + device.name + "': " + kernel +
              " with parameters derived from the device limits"};
}

}  // namespace clgemm
