// clgemm-tune's state file: JSON reading, merged locked writing, and where it lives by default.
#include "tune/tune_state.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "clgemm/errors.hpp"
#include "support/files.hpp"
#include "support/json_fields.hpp"
#include "support/json_text.hpp"

namespace clgemm::tune {
namespace fs = std::filesystem;

namespace {

using detail::flag_field;
using detail::integer_field;
using detail::JsonFields;
using detail::non_negative_field;
using detail::text_field;

// Kernel options: an object of integers.
KernelOptions options_from_json(const nlohmann::json& value, const std::string& name) {
  if (!value.is_object()) throw std::invalid_argument("\"" + name + "\" is not an object");
  KernelOptions options;
  for (const auto& item : value.items())
    options[item.key()] =
        long(detail::json_integer(item.value(), name + "." + item.key(), LONG_MIN, LONG_MAX));
  return options;
}

// The state file's records, field by field.
const JsonFields<CandidateRecord>& candidate_fields() {
  using R = CandidateRecord;
  static const JsonFields<R> fields = {
      {"options", true, [](const R& r) { return nlohmann::json(r.measurement.options); },
       [](const nlohmann::json& value, R& r) {
         r.measurement.options = options_from_json(value, "options");
       }},
      text_field<R>(
          "status", [](auto& r) -> auto& { return r.measurement.status; }, true),
      non_negative_field<R>(
          "median_seconds", [](auto& r) -> auto& { return r.measurement.median_seconds; }),
      non_negative_field<R>("gflops", &R::gflops),
      integer_field<R>(
          "runs", [](auto& r) -> auto& { return r.measurement.runs; }, 0, INT_MAX),
      non_negative_field<R>(
          "build_seconds", [](auto& r) -> auto& { return r.measurement.build_seconds; }),
      non_negative_field<R>(
          "first_call_seconds", [](auto& r) -> auto& { return r.measurement.first_call_seconds; }),
      text_field<R>(
          "message", [](auto& r) -> auto& { return r.measurement.message; }),
      flag_field<R>("default", &R::is_default)};
  return fields;
}

const JsonFields<ClassState>& class_fields() {
  using C = ClassState;
  static const JsonFields<C> fields = {
      text_field<C>("shape_class", &C::shape_class, true),
      integer_field<C>("m", &C::m, 0, INT64_MAX, true),
      integer_field<C>("n", &C::n, 0, INT64_MAX, true),
      integer_field<C>("k", &C::k, 0, INT64_MAX, true),
      flag_field<C>("finished", &C::finished),
      {"winner", false, [](const C& c) { return nlohmann::json(c.winner); },
       [](const nlohmann::json& value, C& c) { c.winner = options_from_json(value, "winner"); }},
      non_negative_field<C>("winner_gflops", &C::winner_gflops),
      non_negative_field<C>("default_gflops", &C::default_gflops),
      {"candidates", true,
       [](const C& c) {
         nlohmann::json candidates = nlohmann::json::array();
         for (const auto& r : c.candidates)
           candidates.push_back(detail::fields_to_json(r, candidate_fields()));
         return candidates;
       },
       [](const nlohmann::json& value, C& c) {
         if (!value.is_array()) throw std::invalid_argument("\"candidates\" is not an array");
         for (const auto& item : value) {
           CandidateRecord r;
           detail::fields_from_json(item, r, candidate_fields());
           c.candidates.push_back(r);
         }
       }}};
  return fields;
}

// The identifying fields: a file with others is another tune's.
const JsonFields<TuneState>& identity_fields() {
  using S = TuneState;
  static const JsonFields<S> fields = {
      text_field<S>("device", &S::device, true), text_field<S>("platform", &S::platform, true),
      text_field<S>("driver", &S::driver, true), text_field<S>("kernel", &S::kernel, true)};
  return fields;
}

ClassState class_from_json(const nlohmann::json& c) {
  ClassState cs;
  detail::fields_from_json(c, cs, class_fields());
  return cs;
}

std::string state_text(const TuneState& state) {
  nlohmann::json j = detail::fields_to_json(state, identity_fields());
  j["format"] = 1;
  j["classes"] = nlohmann::json::array();
  for (const auto& c : state.classes)
    j["classes"].push_back(detail::fields_to_json(c, class_fields()));
  return j.dump(1) + "\n";
}

// The first of the identifying fields in which the state file `j` differs from `state`, or
// null when it is a state file of the same tune.
const char* mismatch(const nlohmann::json& j, const TuneState& state) {
  if (!j.is_object() || j.value("format", 0) != 1) throw std::runtime_error("unknown format");
  TuneState theirs;
  detail::fields_from_json(j, theirs, identity_fields());
  for (const auto& field : identity_fields())
    if (field.write(theirs) != field.write(state)) return field.name.c_str();
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
