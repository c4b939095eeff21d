// clgemm-tune's search over one shape class: the derived default first, then a random sample
// of the pruned space (exploration), then the neighbours of the best candidates so far (local
// refinement), within a budget of candidates and/or seconds; then the default and the best few
// are timed again, interleaved, and the fastest of that confirmation wins. The order is a
// function of the seed and of what was measured, so a resumed tune walks the same path.
#pragma once

#include <csignal>
#include <string>
#include <vector>

#include "tune/tune_measure.hpp"
#include "tune/tune_progress.hpp"
#include "tune/tune_space.hpp"
#include "tune/tune_state.hpp"

namespace clgemm::tune {

struct SearchSettings {
  std::string kernel;
  std::size_t max_candidates = 0;  // per class, resumed ones included; 0: no limit
  double max_seconds = 0;          // for this class in this session; 0: no limit
  double explore_fraction = 0.6;   // of the budget spent on the random sample
  std::size_t finalists = 3;       // best candidates confirmed against the default
  unsigned seed = 1;
  bool verbose = false;  // a line per candidate
  MeasureSettings measure;
};

struct ClassOutcome {
  bool interrupted = false;
  bool has_winner = false;
  std::size_t measured = 0, resumed = 0;  // candidates measured in this session, and before
  std::size_t unfit = 0;                  // of those measured, over a limit known once built
  std::vector<std::string> failures;      // candidates with wrong results or failed builds
};

// Searches, confirms, and on success marks `state`'s class finished with its winner. The state
// file is saved after every candidate. Returns early, unfinished, once `interrupted` is set.
ClassOutcome tune_class(Bench& bench, const Space& space, TuneState& state,
                        const std::string& shape_class, Progress& progress,
                        const SearchSettings& settings,
                        const volatile std::sig_atomic_t& interrupted);

}  // namespace clgemm::tune
