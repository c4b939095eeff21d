// clgemm-tune's progress report on stderr: on a terminal, one line redrawn in place (a bar of
// candidates done out of the budget, the best and the default GFLOP/s so far, an ETA); when
// stderr is a file or a pipe, a plain line at most every `interval` seconds and at the end of
// each shape class. Messages (failures, notes) go through it so they never garble the bar.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace clgemm::tune {

struct ProgressInfo {
  std::string shape_class;
  std::size_t done = 0;    // candidates measured (resumed ones included)
  std::size_t total = 0;   // the candidate budget, or the space when only time limits
  double best_gflops = 0;  // of the passing candidates
  double default_gflops = 0;
  double eta_seconds = -1;  // < 0: unknown
  std::string current;      // what is being measured now
};

class Progress {
 public:
  explicit Progress(bool terminal, double interval_seconds = 10);
  ~Progress();
  // Redraws the bar (terminal) or prints a line when the interval has passed, or when `force`.
  void update(const ProgressInfo& info, bool force = false);
  // Prints a whole line on stderr, above the bar.
  void message(const std::string& line);
  // Ends the bar's line (left showing), so that what follows starts on a line of its own.
  void finish();

 private:
  std::string render(const ProgressInfo& info) const;
  bool terminal_;
  double interval_;
  bool drawn_ = false;
  std::string last_;
  std::chrono::steady_clock::time_point last_line_;
};

// "2m05s", "48s", "1h02m".
std::string format_duration(double seconds);

}  // namespace clgemm::tune
