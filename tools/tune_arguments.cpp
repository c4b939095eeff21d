// clgemm-tune's command-line values: budget, shape classes, size scale.
#include "tune_arguments.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "clgemm/errors.hpp"

namespace clgemm::tune {

Budget parse_budget(const std::string& text) {
  Budget budget;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    std::size_t used = 0;
    double value = -1;
    try {
      value = std::stod(item, &used);
    } catch (const std::exception&) {
    }
    const std::string unit = item.substr(std::min(used, item.size()));
    const double scale = unit.empty()  ? 0
                         : unit == "s" ? 1
                         : unit == "m" ? 60
                         : unit == "h" ? 3600
                                       : -1;
    if (value <= 0 || scale < 0)
      throw Error(ErrorCode::InvalidArgument,
                  "--budget: expected candidates per class (40), a time for the whole tune "
                  "(90s, 10m, 1h), or both (40,10m); got '" +
                      item + "'");
    if (scale == 0)
      budget.candidates = std::size_t(value);
    else
      budget.seconds = value * scale;
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
    if (used != number.size() || v <= 0 || v > 1)
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
  return GemmProblem::packed(s(p.m), s(p.n), s(p.k), p.alpha, p.beta);
}

std::vector<std::string> parse_classes(const std::vector<std::string>& names) {
  if (names.empty() || (names.size() == 1 && names[0] == "all")) return shape_classes();
  for (const auto& name : names) representative_problem(name);  // throws for an unknown class
  return names;
}

}  // namespace clgemm::tune
