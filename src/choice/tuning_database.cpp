// The tuning database (see clgemm/tuning.hpp): shape classes, loading and merging the shipped
// and user JSON files. The fallback levels of a device are in device_levels.cpp, the choice
// `auto` makes from the database in kernel_choice.cpp.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <tuple>

#include "catalog/kernel_spec.hpp"
#include "clgemm/errors.hpp"
#include "clgemm/tuning.hpp"
#include "plan/kernel_call.hpp"
#include "runtime/kernel_source.hpp"
#include "support/error_boundary.hpp"
#include "support/files.hpp"
#include "support/immortal.hpp"
#include "support/json_fields.hpp"
#include "support/json_text.hpp"

namespace clgemm {
namespace fs = std::filesystem;

std::string shape_class(const GemmProblem& p) {
  const auto call = detail::row_major_call(p);
  const double m = double(call.m), n = double(call.n), k = double(call.k), volume = m * n * k;
  // Many small products fill the device together: tiles that fit one product matter most.
  if (p.batch > 1 && volume <= 64.0 * 64.0 * 64.0) return "batched-tiny";
  if (p.batch > 1 && volume <= 256.0 * 256.0 * 256.0) return "batched-small";
  if (detail::is_gemv_regime(call.m, call.n, call.k, detail::kGemvRowsOnGpus)) return "gemv";
  if (volume <= 256.0 * 256.0 * 256.0) return "tiny";
  if (volume <= 512.0 * 512.0 * 512.0) return "small";
  if (std::min(m, n) <= 64) return "thin";
  if (std::min(m, n) <= 256) return "skinny";
  if (k <= 512) return "small-k";
  if (volume <= 1024.0 * 1024.0 * 1024.0) return "medium";
  // Between: a GPU is filled by a wave or two of large tiles, or by several of smaller ones.
  if (volume <= 3072.0 * 3072.0 * 3072.0) return "medium-large";
  return "large";
}

const std::vector<std::string>& shape_classes() {
  static const auto& classes = detail::immortal<std::vector<std::string>>(
      std::vector<std::string>{"tiny", "small", "gemv", "thin", "skinny", "small-k", "medium",
                               "medium-large", "large", "batched-tiny", "batched-small"});
  return classes;
}

GemmProblem representative_problem(const std::string& shape_class) {
  if (shape_class == "tiny") return GemmProblem::packed(256, 256, 256);
  if (shape_class == "small") return GemmProblem::packed(512, 512, 512);
  if (shape_class == "gemv") return GemmProblem::packed(8, 4096, 4096);
  if (shape_class == "thin") return GemmProblem::packed(32, 4096, 8192);
  if (shape_class == "skinny") return GemmProblem::packed(8192, 128, 8192);
  if (shape_class == "small-k") return GemmProblem::packed(8192, 8192, 256);
  if (shape_class == "medium") return GemmProblem::packed(1024, 1024, 1024);
  if (shape_class == "medium-large") return GemmProblem::packed(2048, 2048, 2048);
  if (shape_class == "large") return GemmProblem::packed(4096, 4096, 4096);
  if (shape_class == "batched-tiny") return GemmProblem::packed_batch(32, 32, 32, 8192);
  if (shape_class == "batched-small") return GemmProblem::packed_batch(128, 128, 128, 1024);
  throw Error(ErrorCode::InvalidArgument, "unknown shape class '" + shape_class + "'",
              Argument::ShapeClass);
}

namespace {

using nlohmann::json;

// Parameters renamed since tuning files were first written: files that use the old name are
// read as if they used the new one (BATCH_M/BATCH_N read as batched GEMM; they are the block
// of C each work-item computes). Entries are written back under the new names.
struct RenamedParameter {
  const char* old_name;
  const char* new_name;
};
constexpr RenamedParameter kRenamedParameters[] = {
    {"BATCH_M", "ITEM_M"}, {"BATCH_N", "ITEM_N"}, {"BATCH", "ITEM"}};

std::string current_parameter_name(const std::string& name) {
  for (const auto& renamed : kRenamedParameters)
    if (name == renamed.old_name) return renamed.new_name;
  return name;
}

// Far more local memory than any OpenCL device offers: GPUs have 48 to 228 KiB, CPUs report a
// cache's size (PoCL on the 2-core Xeon: 512 KiB). Options that need more can run nowhere;
// those within it that a device cannot run are skipped by `auto` on that device, saying why.
constexpr std::size_t kMostLocalMemoryOfAnyDevice = std::size_t(128) << 20;

// Why no device can run `kernel` with `options`, or empty. Parameters the entry leaves out are
// derived per device; the local memory counted is the least over their extreme values (each
// kernel's need grows or shrinks with each parameter), and the constraints are checked only
// when every parameter is given.
std::string why_no_device_runs(const detail::KernelSpec& spec, const KernelOptions& options) {
  std::vector<const KernelParameter*> missing;
  for (const auto& parameter : spec.description.parameters)
    if (!options.count(parameter.name)) missing.push_back(&parameter);
  if (missing.size() > 12) return {};  // no kernel has as many; kept cheap regardless
  std::size_t least_local = SIZE_MAX;
  for (std::size_t corner = 0; corner < (std::size_t(1) << missing.size()); ++corner) {
    KernelOptions filled = options;
    for (std::size_t i = 0; i < missing.size(); ++i)
      filled[missing[i]->name] = (corner >> i) & 1 ? missing[i]->maximum : missing[i]->minimum;
    least_local = std::min(least_local, spec.local_memory_bytes(filled));
  }
  if (least_local > kMostLocalMemoryOfAnyDevice)
    return "needs " + std::to_string(least_local) + " bytes of local memory, more than any " +
           "device has (at most " + std::to_string(kMostLocalMemoryOfAnyDevice) + " bytes)";
  if (missing.empty())
    for (const auto& constraint : spec.constraints)
      if (!constraint.holds(options)) return "breaks the constraint " + constraint.text;
  return {};
}

const KernelDescription& kernel_described(const std::string& name) {
  for (const auto& description : kernel_catalog())
    if (description.name == name) return description;
  throw std::invalid_argument("unknown kernel '" + name + "'");
}

// The parameter `name` of `kernel`, compiled or host (WAVE_UNITS, ...), or null.
const KernelParameter* find_parameter(const KernelDescription& kernel, const std::string& name) {
  for (const auto* list : {&kernel.parameters, &kernel.host_parameters})
    for (const auto& parameter : *list)
      if (parameter.name == name) return &parameter;
  return nullptr;
}

// An entry's "options": each a parameter of the entry's kernel, compiled or host (under its
// current or its old name, once), within the parameter's range, and all together runnable on
// some device.
void read_options(const json& value, TunedEntry& e) {
  if (!value.is_object()) throw std::invalid_argument("\"options\" is not an object");
  const KernelDescription& kernel = kernel_described(e.kernel);
  for (const auto& item : value.items()) {
    const std::string& written = item.key();
    const std::string name = current_parameter_name(written);
    const KernelParameter* parameter = find_parameter(kernel, name);
    if (!parameter)
      throw std::invalid_argument("kernel '" + e.kernel + "' has no parameter '" + written + "'");
    if (e.options.count(name))
      throw std::invalid_argument("\"options\" give '" + name +
                                  "' twice, under its old and its new name");
    e.options[name] =
        long(detail::json_integer(item.value(), written, parameter->minimum, parameter->maximum));
  }
  if (const auto why = why_no_device_runs(detail::find_spec(e.kernel), e.options); !why.empty())
    throw std::invalid_argument("\"options\" can run on no device: kernel '" + e.kernel + "' " +
                                why);
}

// A tuning file's entry, field by field in the order they are read and checked: the kernel
// against the precision before it, the options against the kernel.
const detail::JsonFields<TunedEntry>& entry_fields() {
  using Fields = detail::JsonFields<TunedEntry>;
  using detail::integer_field;
  using detail::text_field;
  static const Fields fields = {
      text_field<TunedEntry>("device", &TunedEntry::device, true),
      text_field<TunedEntry>("platform", &TunedEntry::platform),
      text_field<TunedEntry>("architecture", &TunedEntry::architecture),
      text_field<TunedEntry>("vendor", &TunedEntry::vendor),
      {"device_type", false, [](const TunedEntry& e) { return json(e.device_type); },
       [](const json& value, TunedEntry& e) {
         e.device_type = detail::json_text(value, "device_type");
         if (!e.device_type.empty() && e.device_type != "CPU" && e.device_type != "GPU" &&
             e.device_type != "accelerator" && e.device_type != "other")
           throw std::invalid_argument("unknown device_type '" + e.device_type + "'");
       }},
      {"shape_class", true, [](const TunedEntry& e) { return json(e.shape_class); },
       [](const json& value, TunedEntry& e) {
         e.shape_class = detail::json_text(value, "shape_class");
         const auto& classes = shape_classes();
         if (std::find(classes.begin(), classes.end(), e.shape_class) == classes.end())
           throw std::invalid_argument("unknown shape class '" + e.shape_class + "'");
       }},
      {"precision", false, [](const TunedEntry& e) { return json(precision_name(e.precision)); },
       [](const json& value, TunedEntry& e) {
         const std::string precision = detail::json_text(value, "precision");
         try {
           e.precision = parse_precision(precision.empty() ? "fp32" : precision);
         } catch (const Error& error) {
           throw std::invalid_argument(error.what());
         }
       }},
      {"kernel", true, [](const TunedEntry& e) { return json(e.kernel); },
       [](const json& value, TunedEntry& e) {
         e.kernel = detail::json_text(value, "kernel");
         if (!kernel_described(e.kernel).computes(e.precision))
           throw std::invalid_argument("kernel '" + e.kernel + "' does not compute " +
                                       precision_name(e.precision));
       }},
      {"options", true, [](const TunedEntry& e) { return json(e.options); }, read_options},
      detail::non_negative_field<TunedEntry>("gflops", &TunedEntry::gflops),
      integer_field<TunedEntry>("m", &TunedEntry::m, 0, INT64_MAX),
      integer_field<TunedEntry>("n", &TunedEntry::n, 0, INT64_MAX),
      integer_field<TunedEntry>("k", &TunedEntry::k, 0, INT64_MAX),
      integer_field<TunedEntry>("batch", &TunedEntry::batch, 1, INT_MAX),
      text_field<TunedEntry>("tuned", &TunedEntry::tuned)};
  return fields;
}

bool same_key(const TunedEntry& a, const TunedEntry& b) {
  return a.device == b.device && a.platform == b.platform && a.shape_class == b.shape_class &&
         a.precision == b.precision;
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : "";
}

[[noreturn]] void not_a_tuning_file(const std::string& origin, const std::string& why) {
  throw Error(ErrorCode::InvalidArgument, "tuning file '" + origin + "' " + why,
              Argument::TuningFile);
}

}  // namespace

std::string TuningDatabase::user_file_path() try {
  if (auto file = env_or_empty("CLGEMM_TUNING_FILE"); !file.empty()) return file;
  const std::string dir = per_user_directory("XDG_CONFIG_HOME", ".config");
  return dir.empty() ? std::string() : (fs::path(dir) / "tuning.json").string();
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

std::string TuningDatabase::shipped_directory() try {
  // The tuning directory sits beside each candidate kernel directory (kernels/ and tuning/ in
  // the source tree, share/clgemm/kernels and share/clgemm/tuning when installed).
  for (const auto& dir : kernel_search_path()) {
    const fs::path tuning = fs::path(dir).parent_path() / "tuning";
    std::error_code error;
    if (fs::is_directory(tuning, error)) return tuning.string();
  }
  return {};
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

TuningDatabase TuningDatabase::parse(const std::string& text, const std::string& origin) try {
  // Checked before the tree is built: parsing, destroying and dumping a tree recurse per level.
  if (const auto problem = json_text_problem(text); !problem.empty())
    not_a_tuning_file(origin, problem);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& error) {
    not_a_tuning_file(origin, std::string("is not valid JSON: ") + error.what());
  }
  if (!j.is_object() || !j.contains("format") || j["format"] != 1)
    not_a_tuning_file(origin, "has an unknown format (expected \"format\": 1)");
  if (!j.contains("entries") || !j["entries"].is_array())
    not_a_tuning_file(origin, "has no \"entries\" array");
  TuningDatabase db;
  std::size_t index = 0;
  for (const auto& item : j["entries"]) {
    ++index;
    try {
      TunedEntry entry;
      detail::fields_from_json(item, entry, entry_fields());
      db.put(entry);
    } catch (const std::invalid_argument& problem) {
      db.problems_.push_back(origin + ": entry " + std::to_string(index) + " " + problem.what() +
                             "; skipped");
      db.unusable_entries_.push_back(item.dump());
    }
  }
  return db;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

TuningDatabase TuningDatabase::load_file(const std::string& path) try {
  const auto text = read_regular_file(path, std::size_t(64) << 20);
  if (!text) return {};
  TuningDatabase db = parse(*text, path);
  if (!db.problems_.empty()) {
    std::string all;
    for (const auto& problem : db.problems_) all += "\n  " + problem;
    throw Error(ErrorCode::InvalidArgument, "tuning file '" + path + "' has problems:" + all,
                Argument::TuningFile);
  }
  return db;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

std::vector<std::string> TuningDatabase::check_file(const std::string& path) try {
  try {
    const auto text = read_regular_file(path, std::size_t(64) << 20);
    if (!text) return {"tuning file '" + path + "' does not exist"};
    return parse(*text, path).problems_;
  } catch (const Error& error) {
    return {error.what()};
  }
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

TuningDatabase TuningDatabase::load_default() try {
  TuningDatabase db;
  auto add = [&db](const std::string& path) {
    try {
      if (const auto text = read_regular_file(path, std::size_t(64) << 20))
        db.overlay(parse(*text, path));
    } catch (const Error& error) {
      db.problems_.push_back(std::string(error.what()) + "; the whole file is skipped");
    }
  };
  if (const auto dir = shipped_directory(); !dir.empty()) {
    std::vector<fs::path> files;
    std::error_code error;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
      if (it->path().extension() == ".json") files.push_back(it->path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) add(file.string());
  }
  if (const auto user = user_file_path(); !user.empty()) add(user);
  return db;
} catch (...) {
  detail::rethrow_as_clgemm_error();
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
  problems_.insert(problems_.end(), other.problems_.begin(), other.problems_.end());
  unusable_entries_.insert(unusable_entries_.end(), other.unusable_entries_.begin(),
                           other.unusable_entries_.end());
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

std::string TuningDatabase::to_json_text() const try {
  auto sorted = entries_;
  std::sort(sorted.begin(), sorted.end(), [](const TunedEntry& a, const TunedEntry& b) {
    return std::tie(a.device, a.platform, a.shape_class, a.precision) <
           std::tie(b.device, b.platform, b.shape_class, b.precision);
  });
  json j = {{"format", 1}, {"entries", json::array()}};
  for (const auto& e : sorted) j["entries"].push_back(detail::fields_to_json(e, entry_fields()));
  for (const auto& raw : unusable_entries_) j["entries"].push_back(json::parse(raw));
  return j.dump(2) + "\n";
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

void TuningDatabase::save(const std::string& path) const try {
  write_file_atomically(path, to_json_text());
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

void TuningDatabase::update_file(const std::string& path,
                                 const std::function<void(TuningDatabase&)>& change) try {
  update_file_locked(path, [&](const std::optional<std::string>& current) {
    TuningDatabase db = current ? parse(*current, path) : TuningDatabase{};
    db.problems_.clear();
    change(db);
    return db.to_json_text();
  });
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace clgemm
