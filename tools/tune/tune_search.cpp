// clgemm-tune's search over one shape class: default, random exploration, local refinement,
// interleaved confirmation.
#include "tune/tune_search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>
#include <set>

namespace clgemm::tune {
namespace {

using Clock = std::chrono::steady_clock;

// The space in a pseudo-random order that depends only on the seed and each candidate's values,
// not on the class or on what the pruning kept: every class samples the same candidates first,
// so programs built for one class serve the next (on a CPU a build can take a minute).
std::vector<std::size_t> permutation(const Space& space, unsigned seed) {
  // std::seed_seq mixes every character of "seed;NAME=value;..." into its output, the same
  // on every platform (its algorithm is fixed by the standard).
  auto key = [seed](const KernelOptions& o) {
    std::string text = std::to_string(seed) + ";";
    for (const auto& [name, value] : o) text += name + "=" + std::to_string(value) + ";";
    std::seed_seq mixed(text.begin(), text.end());
    std::uint32_t words[2];
    mixed.generate(words, words + 2);
    return std::uint64_t(words[0]) << 32 | words[1];
  };
  std::vector<std::pair<std::uint64_t, std::size_t>> keyed;
  for (std::size_t i = 0; i < space.candidates.size(); ++i)
    keyed.push_back({key(space.candidates[i]), i});
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::size_t> order;
  for (const auto& [k, i] : keyed) order.push_back(i);
  return order;
}

std::vector<const CandidateRecord*> passing_by_speed(const ClassState& cs) {
  std::vector<const CandidateRecord*> out;
  for (const auto& r : cs.candidates)
    if (r.measurement.status == "ok") out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    return a->measurement.median_seconds < b->measurement.median_seconds;
  });
  return out;
}

const CandidateRecord* default_record(const ClassState& cs) {
  for (const auto& r : cs.candidates)
    if (r.is_default) return &r;
  return nullptr;
}

}  // namespace

ClassOutcome tune_class(Bench& bench, const Space& space, TuneState& state,
                        const std::string& shape_class, Progress& progress,
                        const SearchSettings& settings,
                        const volatile std::sig_atomic_t& interrupted) {
  ClassOutcome outcome;
  ClassState& cs = state.for_class(shape_class, bench.problem());
  outcome.resumed = cs.candidates.size();
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const std::size_t reachable = space.candidates.size() + 1;  // + the default
  const std::size_t total =
      settings.max_candidates ? std::min(settings.max_candidates, reachable) : reachable;
  auto fraction_used = [&] {
    double f = 0;
    if (settings.max_candidates) f = double(cs.candidates.size()) / double(total);
    if (settings.max_seconds > 0) f = std::max(f, elapsed() / settings.max_seconds);
    return f;
  };
  const auto order = permutation(space, settings.seed);
  std::size_t next_random = 0;
  // Candidates another class found unfit are unfit here too: not worth a build or a budget slot.
  std::set<KernelOptions> unfit;
  for (const auto& other : state.classes)
    for (const auto& r : other.candidates)
      if (r.measurement.status == "unfit") unfit.insert(r.measurement.options);
  auto fresh = [&](const KernelOptions& o) { return !cs.find(o) && !unfit.count(o); };

  // The next candidate's overrides (empty for the default), or nothing when the space is spent.
  auto next = [&]() -> std::optional<KernelOptions> {
    if (!default_record(cs)) return KernelOptions{};
    auto neighbour_of_best = [&](std::size_t how_many) -> std::optional<KernelOptions> {
      const auto best = passing_by_speed(cs);
      for (std::size_t i = 0; i < std::min(how_many, best.size()); ++i)
        for (const auto& o : neighbours(space, best[i]->measurement.options))
          if (fresh(o)) return o;
      return std::nullopt;
    };
    if (fraction_used() >= settings.explore_fraction)
      if (auto o = neighbour_of_best(settings.finalists)) return o;
    while (next_random < order.size()) {
      const auto& o = space.candidates[order[next_random++]];
      if (fresh(o)) return o;
    }
    return neighbour_of_best(cs.candidates.size());
  };

  ProgressInfo info;
  info.shape_class = shape_class;
  info.total = total;
  auto refresh = [&](const std::string& current, bool force) {
    const auto best = passing_by_speed(cs);
    const auto* def = default_record(cs);
    info.done = cs.candidates.size();
    info.best_gflops = best.empty() ? 0 : best.front()->gflops;
    info.default_gflops = def ? def->gflops : 0;
    info.current = current;
    info.eta_seconds = -1;
    if (outcome.measured > 0) {  // this session's pace, capped by the time budget
      const double per = elapsed() / double(outcome.measured);
      info.eta_seconds = per * double(total > info.done ? total - info.done : 0);
      if (settings.max_seconds > 0)
        info.eta_seconds =
            std::min(info.eta_seconds, std::max(0.0, settings.max_seconds - elapsed()));
    }
    progress.update(info, force);
  };

  for (;;) {
    if (interrupted) {
      outcome.interrupted = true;
      return outcome;
    }
    if ((settings.max_candidates && cs.candidates.size() >= total) ||
        (settings.max_seconds > 0 && elapsed() >= settings.max_seconds))
      break;
    const auto candidate = next();
    if (!candidate) break;
    refresh(candidate->empty() ? "default" : describe(*candidate), false);
    const auto best = passing_by_speed(cs);
    const double best_seconds = best.empty() ? 0 : best.front()->measurement.median_seconds;
    CandidateRecord record;
    record.measurement = bench.measure(settings.kernel, *candidate, best_seconds, settings.measure);
    record.gflops = bench.gflops(record.measurement.median_seconds);
    record.is_default = candidate->empty();
    const auto& m = record.measurement;
    const std::string what =
        settings.kernel + " " + describe(m.options) + (record.is_default ? " (the default)" : "");
    if (m.status == "failed") {
      outcome.failures.push_back(what + ": wrong result: " + m.message);
      progress.message("clgemm-tune: FAILED VERIFICATION (a kernel bug; excluded): " +
                       outcome.failures.back());
    } else if (m.status == "error") {
      outcome.failures.push_back(what + ": " + m.message);
      progress.message("clgemm-tune: ERROR (excluded): " + outcome.failures.back());
    } else if (m.status == "unfit") {
      ++outcome.unfit;
      if (settings.verbose) progress.message("  unfit " + what + ": " + m.message);
    } else if (settings.verbose) {
      char line[96];
      std::snprintf(line, sizeof line, "  %-5s %10.2f GFLOP/s %10.3f ms %3d runs  ",
                    m.status.c_str(), record.gflops, m.median_seconds * 1e3, m.runs);
      progress.message(line + what);
    }
    cs.candidates.push_back(record);
    ++outcome.measured;
    state.save();
    refresh("", false);
  }
  refresh("confirming the best against the default", true);

  // Confirmation: the default and the best few, timed again in two interleaved rounds, so that
  // a lucky first measurement on a noisy machine does not win.
  std::vector<const CandidateRecord*> finalists;
  if (const auto* def = default_record(cs); def && def->measurement.status == "ok")
    finalists.push_back(def);
  for (const auto* r : passing_by_speed(cs)) {
    if (finalists.size() >= settings.finalists + 1) break;
    if (std::find(finalists.begin(), finalists.end(), r) == finalists.end()) finalists.push_back(r);
  }
  if (finalists.empty()) {
    progress.finish();
    return outcome;
  }
  std::vector<std::vector<double>> times(finalists.size());
  for (int round = 0; round < 2; ++round)
    for (std::size_t i = 0; i < finalists.size(); ++i) {
      if (interrupted) {
        outcome.interrupted = true;
        return outcome;
      }
      const auto& m = finalists[i]->measurement;
      const int runs = int(std::clamp(std::ceil(settings.measure.min_time / m.median_seconds), 3.0,
                                      double(std::max(3, settings.measure.max_runs))));
      const KernelOptions overrides = finalists[i]->is_default ? KernelOptions{} : m.options;
      for (double t : bench.time_calls(settings.kernel, overrides, runs, settings.measure))
        times[i].push_back(t);
    }
  std::size_t winner = 0;
  for (std::size_t i = 1; i < finalists.size(); ++i)
    if (statistics(times[i]).median < statistics(times[winner]).median) winner = i;
  cs.winner = finalists[winner]->measurement.options;
  cs.winner_gflops = bench.gflops(statistics(times[winner]).median);
  cs.default_gflops = finalists[0]->is_default ? bench.gflops(statistics(times[0]).median) : 0;
  cs.finished = true;
  state.save();
  outcome.has_winner = true;
  progress.finish();
  return outcome;
}

}  // namespace clgemm::tune
