// clgemm-tune's state file: JSON reading, merged locked writing, and where it lives by default.
#include "tune/tune_state.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "clgemm/errors.hpp"
#include "support/files.hpp"
#include "support/json_text.hpp"

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

nlohmann::json class_to_json(const ClassState& c) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& r : c.candidates) candidates.push_back(to_json(r));
  return {{"shape_class", c.shape_class},
          {"m", c.m},
          {"n", c.n},
          {"k", c.k},
          {"finished", c.finished},
          {"winner", c.winner},
          {"winner_gflops", c.winner_gflops},
          {"default_gflops", c.default_gflops},
          {"candidates", candidates}};
}

ClassState class_from_json(const nlohmann::json& c) {
  ClassState cs;
  cs.shape_class = c.at("shape_class").get<std::string>();
  cs.m = c.at("m"), cs.n = c.at("n"), cs.k = c.at("k");
  cs.finished = c.value("finished", false);
  cs.winner = c.value("winner", KernelOptions{});
  cs.winner_gflops = c.value("winner_gflops", 0.0);
  cs.default_gflops = c.value("default_gflops", 0.0);
  for (const auto& r : c.at("candidates")) cs.candidates.push_back(record_from_json(r));
  return cs;
}

std::string state_text(const TuneState& state) {
  nlohmann::json j = {{"format", 1},
                      {"device", state.device},
                      {"platform", state.platform},
                      {"driver", state.driver},
                      {"kernel", state.kernel},
                      {"classes", nlohmann::json::array()}};
  for (const auto& c : state.classes) j["classes"].push_back(class_to_json(c));
  return j.dump(1) + "\n";
}

// The first of the identifying fields in which the state file `j` differs from `state`, or
// null when it is a state file of the same tune.
const char* mismatch(const nlohmann::json& j, const TuneState& state) {
  if (j.value("format", 0) != 1) throw std::runtime_error("unknown format");
  for (const auto& [field, ours] :
       {std::pair<const char*, const std::string*>{"device", &state.device},
        {"platform", &state.platform},
        {"driver", &state.driver},
        {"kernel", &state.kernel}})
    if (j.at(field).get<std::string>() != *ours) return field;
  return nullptr;
}

// `ours` with what `theirs` (the same class, as another tuner wrote it) measured beyond it.
void merge_class(ClassState& ours, const ClassState& theirs) {
  if (ours.m != theirs.m || ours.n != theirs.n || ours.k != theirs.k) return;  // ours replaces
  for (const auto& r : theirs.candidates)
    if (!ours.find(r.measurement.options)) ours.candidates.push_back(r);
  if (!ours.finished && theirs.finished) {
    ours.finished = true;
    ours.winner = theirs.winner;
    ours.winner_gflops = theirs.winner_gflops;
    ours.default_gflops = theirs.default_gflops;
  }
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

void TuneState::save(const std::vector<std::string>& restart_classes) const {
  update_file_locked(path, [&](const std::optional<std::string>& current) {
    TuneState merged = *this;
    nlohmann::json file;
    try {
      if (current && !json_text_problem(*current).empty()) return state_text(*this);
      if (current) file = nlohmann::json::parse(*current);
      if (!current || mismatch(file, *this)) return state_text(merged);
      for (const auto& c : file.at("classes")) {
        const ClassState theirs = class_from_json(c);
        if (std::find(restart_classes.begin(), restart_classes.end(), theirs.shape_class) !=
            restart_classes.end())
          continue;
        auto ours =
            std::find_if(merged.classes.begin(), merged.classes.end(),
                         [&](const ClassState& x) { return x.shape_class == theirs.shape_class; });
        if (ours == merged.classes.end())
          merged.classes.push_back(theirs);
        else
          merge_class(*ours, theirs);
      }
    } catch (const std::exception&) {
      return state_text(*this);  // not a state file (or a damaged one): replaced
    }
    return state_text(merged);
  });
}

TuneState TuneState::open(const std::string& path, bool resume, const DeviceLimits& device,
                          const std::string& kernel) {
  TuneState state;
  state.path = path;
  state.device = device.name;
  state.platform = device.platform_name;
  state.driver = device.driver_version;
  state.kernel = kernel;
  if (!resume) return state;
  const auto text = read_regular_file(path);
  if (!text) return state;
  try {
    // Checked before the tree is built: parsing and destroying a tree recurse per level.
    if (const auto problem = json_text_problem(*text); !problem.empty())
      throw std::invalid_argument(problem);
    const auto j = nlohmann::json::parse(*text);
    if (const char* field = mismatch(j, state))
      throw Error(ErrorCode::InvalidArgument, "the state file '" + path + "' is for " + field +
                                                  " '" + j.at(field).get<std::string>() +
                                                  "', not this tune's; give another --state "
                                                  "file, or leave out --resume to start over");
    for (const auto& c : j.at("classes")) state.classes.push_back(class_from_json(c));
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
  std::string base;
  if (const auto setting = cache_directory_setting(); setting && !setting->empty())
    base = *setting;
  else
    base = per_user_directory("XDG_CACHE_HOME", ".cache");
  if (base.empty())
    throw Error(ErrorCode::FileError,
                "no per-user directory for the state file (no $HOME, and /tmp/clgemm-<uid> is "
                "not this user's private directory): give --state",
                Argument::File);
  std::string name;
  for (char c : device.name + "-" + kernel)
    name +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return (fs::path(base) / "tune" / (name + ".json")).string();
}

}  // namespace clgemm::tune
