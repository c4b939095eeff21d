// The table, geometric means, CSV and JSON of clgemm-bench (see bench_report.hpp).
#include "bench/bench_report.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace clgemm::bench {
namespace {

// The suites' words for a bias: none, row, col.
const char* bias_label(Bias bias) {
  return bias == Bias::PerRow ? "row" : bias == Bias::PerColumn ? "col" : "none";
}

}  // namespace

std::vector<GeometricMean> geometric_means(const std::vector<Result>& results) {
  std::vector<GeometricMean> means;
  std::map<std::string, std::pair<double, double>> logs;  // sums of log GFLOP/s
  for (const auto& r : results) {
    if (!(r.gflops() > 0 && r.back_to_back_gflops() > 0)) continue;
    auto found = logs.find(r.contender);
    if (found == logs.end()) {
      means.push_back({r.contender});
      found = logs.emplace(r.contender, std::pair{0.0, 0.0}).first;
    }
    found->second.first += std::log(r.gflops());
    found->second.second += std::log(r.back_to_back_gflops());
    for (auto& m : means)
      if (m.contender == r.contender) ++m.shapes;
  }
  for (auto& m : means) {
    const auto& [per_call, back_to_back] = logs.at(m.contender);
    m.per_call_gflops = std::exp(per_call / m.shapes);
    m.back_to_back_gflops = std::exp(back_to_back / m.shapes);
  }
  return means;
}

void print_header() {
  std::printf("%-28s %-16s %10s %10s %10s %10s %9s %7s\n", "M x N x K", "contender", "call ms",
              "GFLOP/s", "b2b ms", "GFLOP/s", "vs clblast", "verify");
  std::printf("%-28s %-16s %21s %21s\n", "", "", "(per call: median)", "(back to back)");
  std::fflush(stdout);
}

void print_rows(const std::vector<Result>& row) {
  // CLBlast's line: Gemm for one product, GemmStridedBatched for a batch.
  double clblast = 0;
  for (const auto& r : row)
    if (r.contender == "clblast" || r.contender == "clblast-strided") clblast = r.median_seconds;
  for (const auto& r : row) {
    char ratio[16] = "-";
    if (clblast > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", clblast / r.median_seconds);
    const std::string shape = shape_text(shape_of(r.problem));
    std::printf("%-28s %-16s %10.3f %10.1f %10.3f %10.1f %9s %7s\n", shape.c_str(),
                r.contender.c_str(), r.median_seconds * 1e3, r.gflops(),
                r.back_to_back_seconds * 1e3, r.back_to_back_gflops(), ratio,
                r.passed ? "passed" : "FAILED");
  }
  std::fflush(stdout);
}

void print_geometric_means(const std::vector<GeometricMean>& means) {
  std::printf("\ngeometric mean of GFLOP/s over the shapes:\n%-16s %7s %12s %14s\n", "contender",
              "shapes", "per call", "back to back");
  for (const auto& m : means)
    std::printf("%-16s %7d %12.1f %14.1f\n", m.contender.c_str(), m.shapes, m.per_call_gflops,
                m.back_to_back_gflops);
}

std::pair<std::string, std::string> reports(const DeviceLimits& limits, const RunInfo& info,
                                            const std::vector<Result>& results) {
  auto known = [](double v) { return v > 0 ? nlohmann::json(v) : nlohmann::json(); };
  auto cell = [](double v) { return v > 0 ? std::to_string(v) : std::string(); };
  nlohmann::json rows = nlohmann::json::array();
  std::ostringstream csv;
  csv << "device,contender,m,n,k,batch_count,bias,activation,median_seconds,gflops,runs,back_to_"
         "back_seconds,"
         "back_to_back_gflops,batch,verified,intensity_flop_per_byte,ceiling_gflops,trans_a,"
         "trans_b\n";
  for (const auto& r : results) {
    rows.push_back({{"device", limits.name},
                    {"platform", limits.platform_name},
                    {"contender", r.contender},
                    {"kernel", r.kernel},
                    {"m", r.problem.m},
                    {"n", r.problem.n},
                    {"k", r.problem.k},
                    {"batch_count", r.problem.batch},
                    {"trans_a", r.problem.trans_a == Transpose::Trans},
                    {"trans_b", r.problem.trans_b == Transpose::Trans},
                    {"bias", bias_label(r.problem.epilogue.bias)},
                    {"activation", activation_name(r.problem.epilogue.activation)},
                    {"shape", shape_text(shape_of(r.problem))},
                    {"median_seconds", r.median_seconds},
                    {"gflops", r.gflops()},
                    {"runs", r.runs},
                    {"back_to_back_seconds", r.back_to_back_seconds},
                    {"back_to_back_gflops", r.back_to_back_gflops()},
                    {"batch", r.batch},
                    {"batches", r.batches},
                    {"verified", r.passed},
                    {"intensity_flop_per_byte", known(r.intensity)},
                    {"ceiling_gflops", known(r.ceiling_gflops)},
                    {"peak_gflops", known(info.peak_gflops)},
                    {"bandwidth_gbs", known(info.bandwidth_gbs)}});
    csv << '"' << limits.name << "\"," << r.contender << ',' << r.problem.m << ',' << r.problem.n
        << ',' << r.problem.k << ',' << r.problem.batch << ','
        << bias_label(r.problem.epilogue.bias) << ','
        << activation_name(r.problem.epilogue.activation) << ',' << r.median_seconds << ','
        << r.gflops() << ',' << r.runs << ',' << r.back_to_back_seconds << ','
        << r.back_to_back_gflops() << ',' << r.batch << ',' << (r.passed ? "true" : "false") << ','
        << cell(r.intensity) << ',' << cell(r.ceiling_gflops) << ','
        << (r.problem.trans_a == Transpose::Trans ? 't' : 'n') << ','
        << (r.problem.trans_b == Transpose::Trans ? 't' : 'n') << '\n';
  }
  nlohmann::json means = nlohmann::json::array();
  for (const auto& m : geometric_means(results))
    means.push_back({{"contender", m.contender},
                     {"shapes", m.shapes},
                     {"per_call_gflops", m.per_call_gflops},
                     {"back_to_back_gflops", m.back_to_back_gflops}});
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& s : info.skipped)
    skipped.push_back({{"m", s.m},
                       {"n", s.n},
                       {"k", s.k},
                       {"batch_count", s.batch},
                       {"bias", bias_label(s.bias)},
                       {"activation", activation_name(s.activation)},
                       {"shape", shape_text(s)}});
  const nlohmann::json json = {
      {"tool", "clgemm-bench"},
      {"version", version()},
      {"device", limits.name},
      {"platform", limits.platform_name},
      {"driver", limits.driver_version},
      {"suite", info.suite.empty() ? nlohmann::json() : nlohmann::json(info.suite)},
      {"max_size", info.max_size > 0 ? nlohmann::json(info.max_size) : nlohmann::json()},
      {"skipped", skipped},
      {"peak_gflops", known(info.peak_gflops)},
      {"bandwidth_gbs", known(info.bandwidth_gbs)},
      {"timing",
       {{"per_call", "median over calls, each enqueued and finished on its own (host wall time)"},
        {"back_to_back",
         "median over batches of `batch` calls enqueued with one finish, "
         "divided by `batch`"}}},
      {"results", rows},
      {"geometric_means", means}};
  return {csv.str(), json.dump(1) + "\n"};
}

}  // namespace clgemm::bench
