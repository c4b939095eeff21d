// clgemm-tune's progress report: a redrawn bar on a terminal, periodic lines otherwise.
#include "tune/tune_progress.hpp"

#include <algorithm>
#include <cstdio>

namespace clgemm::tune {

std::string format_duration(double seconds) {
  if (seconds < 0) return "?";
  const long s = long(seconds + 0.5);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ldh%02ldm", s / 3600, s / 60 % 60);
  else if (s >= 60)
    std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%lds", s);
  return text;
}

Progress::Progress(bool terminal, double interval_seconds)
    : terminal_(terminal),
      interval_(interval_seconds),
      last_line_(std::chrono::steady_clock::now()) {}

Progress::~Progress() {
  finish();
}

std::string Progress::render(const ProgressInfo& info) const {
  char text[256];
  std::snprintf(text, sizeof text,
                "%s: %zu/%zu candidates, best %.2f GFLOP/s (default %.2f), ETA %s",
                info.shape_class.c_str(), info.done, info.total, info.best_gflops,
                info.default_gflops, format_duration(info.eta_seconds).c_str());
  if (!terminal_) return text;
  const int width = 24;
  const int filled = info.total ? int(double(width) * double(info.done) / double(info.total)) : 0;
  std::string bar = "[" + std::string(std::min(filled, width), '#') +
                    std::string(width - std::min(filled, width), '.') + "] ";
  std::string line = bar + text;
  if (!info.current.empty()) line += "  " + info.current;
  if (line.size() > 150) line = line.substr(0, 147) + "...";
  return line;
}

void Progress::update(const ProgressInfo& info, bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (terminal_) {
    last_ = render(info);
    std::fprintf(stderr, "\r\033[K%s", last_.c_str());
    std::fflush(stderr);
    drawn_ = true;
    return;
  }
  const std::string line = render(info);
  if (line == last_ ||
      (!force && std::chrono::duration<double>(now - last_line_).count() < interval_))
    return;
  last_line_ = now;
  last_ = line;
  std::fprintf(stderr, "clgemm-tune: %s\n", line.c_str());
  std::fflush(stderr);
}

void Progress::message(const std::string& line) {
  if (terminal_ && drawn_) std::fprintf(stderr, "\r\033[K");
  std::fprintf(stderr, "%s\n", line.c_str());
  if (terminal_ && drawn_) std::fprintf(stderr, "%s", last_.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (terminal_ && drawn_) std::fprintf(stderr, "\n");  // the final state stays visible
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace clgemm::tune
