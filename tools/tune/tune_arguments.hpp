// clgemm-tune's command-line values that need more than CLI11's checks: the budget, the
// shape classes, and the size scale of each class's representative problem.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "clgemm/clgemm.hpp"

namespace clgemm::tune {

// The most candidates per class and the longest tune --budget accepts.
constexpr std::size_t kMaxCandidates = 100000;
constexpr double kMaxSeconds = 7 * 24 * 3600.0;

struct Budget {
  std::size_t candidates = 0;  // per class; 0: no limit
  double seconds = 0;          // for the whole tune; 0: no limit
};

// "40" (candidates per class, a whole number from 1 to kMaxCandidates), "10m" / "90s" / "1.5h"
// (for the whole tune, from 1 s to kMaxSeconds), or both: "40,10m", each at most once.
// Each parser throws Error(InvalidArgument) naming the option and the expected form.
Budget parse_budget(const std::string& text);

// "all", or names from shape_classes(). "all" is the classes `kernel` serves: "gemv" alone for
// the gemv kernel, every other class for the others.
std::vector<std::string> parse_classes(const std::vector<std::string>& names,
                                       const std::string& kernel);

// The factor for `shape_class` from "0.25" (every class) or "large=0.25,medium=0.5" (others 1).
double size_scale_for(const std::string& text, const std::string& shape_class);

// The problem with M, N and K multiplied by `factor` (at least 1), alpha and beta kept.
GemmProblem scaled(const GemmProblem& problem, double factor);

}  // namespace clgemm::tune
