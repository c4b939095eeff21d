// clgemm-tune's state file: JSON reading and writing, and where it lives by default.
#include "tune_state.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "clgemm/errors.hpp"

namespace clgemm::tune {
namespace fs = std::filesystem;

namespace {

nlohmann::json to_json(const CandidateRecord& r) {
  const auto& m = r.measurement;
  return {{"options", m.options},
          {"status", m.status},
          {"median_seconds", m.median_seconds},
          {"gflops", r.gflops},
          {"runs", m.runs},
          {"build_seconds", m.build_seconds},
          {"first_call_seconds", m.first_call_seconds},
          {"message", m.message},
          {"default", r.is_default}};
}

CandidateRecord record_from_json(const nlohmann::json& j) {
  CandidateRecord r;
  r.measurement.options = j.at("options").get<KernelOptions>();
  r.measurement.status = j.at("status").get<std::string>();
  r.measurement.median_seconds = j.value("median_seconds", 0.0);
  r.measurement.runs = j.value("runs", 0);
  r.measurement.build_seconds = j.value("build_seconds", 0.0);
  r.measurement.first_call_seconds = j.value("first_call_seconds", 0.0);
  r.measurement.message = j.value("message", "");
  r.gflops = j.value("gflops", 0.0);
  r.is_default = j.value("default", false);
  return r;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : "";
}

}  // namespace

const CandidateRecord* ClassState::find(const KernelOptions& options) const {
  for (const auto& c : candidates)
    if (c.measurement.options == options) return &c;
  return nullptr;
}

ClassState& TuneState::for_class(const std::string& shape_class, const GemmProblem& problem) {
  for (auto& c : classes)
    if (c.shape_class == shape_class) {
      if (c.m != problem.m || c.n != problem.n || c.k != problem.k) {
        c = ClassState{};  // measured on another size (another --size-scale): start over
        c.shape_class = shape_class;
        c.m = problem.m, c.n = problem.n, c.k = problem.k;
      }
      return c;
    }
  ClassState fresh;
  fresh.shape_class = shape_class;
  fresh.m = problem.m, fresh.n = problem.n, fresh.k = problem.k;
  classes.push_back(fresh);
  return classes.back();
}

void TuneState::save() const {
  nlohmann::json j = {{"format", 1},      {"device", device}, {"platform", platform},
                      {"driver", driver}, {"kernel", kernel}, {"classes", nlohmann::json::array()}};
  for (const auto& c : classes) {
    nlohmann::json candidates = nlohmann::json::array();
    for (const auto& r : c.candidates) candidates.push_back(to_json(r));
    j["classes"].push_back({{"shape_class", c.shape_class},
                            {"m", c.m},
                            {"n", c.n},
                            {"k", c.k},
                            {"finished", c.finished},
                            {"winner", c.winner},
                            {"winner_gflops", c.winner_gflops},
                            {"default_gflops", c.default_gflops},
                            {"candidates", candidates}});
  }
  std::error_code error;
  if (fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path(), error);
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    out << j.dump(1) << '\n';
    if (!out) throw Error(ErrorCode::InvalidArgument, "cannot write the state file '" + path + "'");
  }
  fs::rename(temporary, path, error);
  if (error)
    throw Error(ErrorCode::InvalidArgument,
                "cannot write the state file '" + path + "': " + error.message());
}

TuneState TuneState::open(const std::string& path, bool resume, const DeviceLimits& device,
                          const std::string& kernel) {
  TuneState state;
  state.path = path;
  state.device = device.name;
  state.platform = device.platform_name;
  state.driver = device.driver_version;
  state.kernel = kernel;
  std::ifstream in(path);
  if (!resume || !in) return state;
  try {
    const auto j = nlohmann::json::parse(in);
    if (j.value("format", 0) != 1) throw std::runtime_error("unknown format");
    auto mismatch = [&](const char* field, const std::string& ours) {
      const auto theirs = j.at(field).get<std::string>();
      if (theirs != ours)
        throw Error(ErrorCode::InvalidArgument,
                    "the state file '" + path + "' is for " + field + " '" + theirs + "', not '" +
                        ours + "'; give another --state file, or leave out --resume to start over");
    };
    mismatch("device", state.device);
    mismatch("platform", state.platform);
    mismatch("driver", state.driver);
    mismatch("kernel", state.kernel);
    for (const auto& c : j.at("classes")) {
      ClassState cs;
      cs.shape_class = c.at("shape_class").get<std::string>();
      cs.m = c.at("m"), cs.n = c.at("n"), cs.k = c.at("k");
      cs.finished = c.value("finished", false);
      cs.winner = c.value("winner", KernelOptions{});
      cs.winner_gflops = c.value("winner_gflops", 0.0);
      cs.default_gflops = c.value("default_gflops", 0.0);
      for (const auto& r : c.at("candidates")) cs.candidates.push_back(record_from_json(r));
      state.classes.push_back(cs);
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& error) {
    throw Error(ErrorCode::InvalidArgument, "the state file '" + path + "' is malformed (" +
                                                error.what() +
                                                "); leave out --resume to start over");
  }
  return state;
}

std::string default_state_path(const DeviceLimits& device, const std::string& kernel) {
  fs::path base;
  if (const auto dir = env("CLGEMM_CACHE_DIR"); !dir.empty() && dir != "off")
    base = dir;
  else if (const auto xdg = env("XDG_CACHE_HOME"); !xdg.empty())
    base = fs::path(xdg) / "clgemm";
  else if (const auto home = env("HOME"); !home.empty())
    base = fs::path(home) / ".cache" / "clgemm";
  else
    base = fs::temp_directory_path() / "clgemm";
  std::string name;
  for (char c : device.name + "-" + kernel)
    name +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return (base / "tune" / (name + ".json")).string();
}

}  // namespace clgemm::tune
