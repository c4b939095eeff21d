// clgemm-tune's command-line values: budget, shape classes, size scale.
#include "tune/tune_arguments.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "clgemm/errors.hpp"
#include "common/cli_support.hpp"

namespace clgemm::tune {

namespace {

[[noreturn]] void bad_budget(const std::string& item, const std::string& why) {
  throw Error(ErrorCode::InvalidArgument,
              "--budget: " + why +
                  "; expected candidates per class (40), a time for the whole tune (90s, 10m, "
                  "1h), or both (40,10m); got '" +
                  item + "'");
}

}  // namespace

Budget parse_budget(const std::string& text) {
  Budget budget;
  bool candidates_given = false, time_given = false;
  for (std::size_t start = 0, comma = 0; comma != std::string::npos; start = comma + 1) {
    comma = text.find(',', start);
    const std::string item = text.substr(start, comma - start);  // "40," ends with an empty one
    const auto number_end = std::min(item.find_first_not_of("0123456789."), item.size());
    const std::string number = item.substr(0, number_end), unit = item.substr(number_end);
    if (number.empty()) bad_budget(item, "not a number");
    if (unit.empty()) {
      if (candidates_given) bad_budget(item, "candidates given twice");
      candidates_given = true;
      budget.candidates = std::size_t(
          cli::parse_integer(number, 1, kMaxCandidates, "--budget: candidates per class"));
      continue;
    }
    const double scale = unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
    if (scale == 0) bad_budget(item, "unknown unit '" + unit + "' (s, m or h)");
    if (time_given) bad_budget(item, "a time given twice");
    time_given = true;
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    budget.seconds = value * scale;
    if (end != number.c_str() + number.size() || !(budget.seconds >= 1) ||
        budget.seconds > kMaxSeconds)
      bad_budget(item, "a time from 1s to " + std::to_string(long(kMaxSeconds / 3600)) + "h");
  }
  return budget;
}

double size_scale_for(const std::string& text, const std::string& shape_class) {
  auto parse = [&](const std::string& number) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(number, &used);
    } catch (const std::exception&) {
    }
    if (used != number.size() || !(v > 0 && v <= 1))  // NaN fails both
      throw Error(ErrorCode::InvalidArgument,
                  "--size-scale: expected a factor in (0, 1], e.g. 0.25 or "
                  "large=0.25,medium=0.5; got '" +
                      text + "'");
    return v;
  };
  if (text.find('=') == std::string::npos) return parse(text);
  double scale = 1;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) parse("");  // throws
    const auto name = item.substr(0, eq);
    representative_problem(name);  // throws for an unknown class
    if (name == shape_class) scale = parse(item.substr(eq + 1));
  }
  return scale;
}

GemmProblem scaled(const GemmProblem& p, double factor) {
  auto s = [&](std::int64_t v) {
    return std::max<std::int64_t>(1, std::llround(double(v) * factor));
  };
  return GemmProblem::packed_batch(s(p.m), s(p.n), s(p.k), p.batch, p.alpha, p.beta);
}

std::vector<std::string> parse_classes(const std::vector<std::string>& names,
                                       const std::string& kernel) {
  if (names.empty() || (names.size() == 1 && names[0] == "all")) {
    std::vector<std::string> served;
    for (const auto& cls : shape_classes())
      if ((cls == "gemv") == (kernel == "gemv")) served.push_back(cls);
    return served;
  }
  for (const auto& name : names) representative_problem(name);  // throws for an unknown class
  return names;
}

}  // namespace clgemm::tune
