// clgemm-tune: the autotuner. For each shape class it searches a kernel's parameter space on
// the current device (tune_space: candidate lists and pruning; tune_search: the staged search;
// tune_measure: verified, timed runs on buffers), keeps what it measured in a state file so a
// Ctrl-C loses nothing (tune_state), shows its progress on stderr (tune_progress), and writes
// each class's winner into the per-device tuning database that the `auto` kernel reads.
// tune_arguments parses the budget, the classes and the size scale.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "clgemm/clgemm.hpp"
#include "tune_arguments.hpp"
#include "tune_search.hpp"

namespace {

using namespace clgemm;
using namespace clgemm::tune;

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void on_interrupt(int signal) {
  if (g_interrupted) {  // a second Ctrl-C: stop now (the state file is already up to date)
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  g_interrupted = 1;
  const char note[] =
      "\nclgemm-tune: interrupted; stopping after the current candidate (Ctrl-C again to quit "
      "now)\n";
  [[maybe_unused]] auto ignored = write(STDERR_FILENO, note, sizeof note - 1);
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::localtime(&now));
  return text;
}

std::string shape(const GemmProblem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

std::string space_summary(const Space& space) {
  std::string out = std::to_string(space.combinations) + " combinations, " +
                    std::to_string(space.candidates.size()) + " kept";
  for (const auto& [reason, count] : space.pruned)
    out += ", " + std::to_string(count) + " " + reason;
  return out;
}

// Puts the class's winner into the database file; an entry of another kernel measured on the
// same problem and faster is kept unless `replace`. Returns what it did, for the report.
std::string write_entry(const std::string& path, const DeviceLimits& device,
                        const std::string& kernel, Precision precision, const ClassState& cs,
                        bool replace) {
  auto database = TuningDatabase::load_file(path);
  if (const auto existing = database.find(device, cs.shape_class, precision);
      existing && !replace && existing->kernel != kernel && existing->m == cs.m &&
      existing->n == cs.n && existing->k == cs.k && existing->gflops > cs.winner_gflops) {
    char note[160];
    std::snprintf(note, sizeof note,
                  "kept the existing %s entry (%.2f GFLOP/s); --replace to "
                  "overwrite it",
                  existing->kernel.c_str(), existing->gflops);
    return note;
  }
  TunedEntry entry;
  entry.device = device.name;
  entry.platform = device.platform_name;
  entry.shape_class = cs.shape_class;
  entry.precision = precision;
  entry.kernel = kernel;
  entry.options = cs.winner;
  entry.gflops = cs.winner_gflops;
  entry.m = cs.m, entry.n = cs.n, entry.k = cs.k;
  entry.tuned = today();
  database.put(entry);
  database.save(path);
  return "written";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Tune a kernel's parameters for each shape class on this device and write the "
      "winners into the tuning database that the `auto` kernel reads."};
  std::string kernel = "blocked", precision_name_text = "fp32", budget_text, scale_text = "1",
              state_path, output, platform, device_selector;
  std::vector<std::string> class_names = {"all"}, space_overrides;
  bool resume = false, verbose = false, dry_run = false, replace = false;
  SearchSettings search;
  auto* kernel_option =
      app.add_option("--kernel", kernel, "kernel to tune (tensorcore for tf32 and 3xtf32)")
          ->capture_default_str();
  app.add_option("--precision", precision_name_text,
                 "precision the entries are for: fp32, or tf32 and 3xtf32 on a device with "
                 "tensor cores (elsewhere they run blocked with its fp32 entries)")
      ->capture_default_str()
      ->check(CLI::IsMember({"fp32", "tf32", "3xtf32"}));
  app.add_option("--classes", class_names,
                 "shape classes to tune: all, or small, skinny, small-k, medium, large")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--budget", budget_text,
                 "candidates per class (40), a time for the whole tune (10m), or both (40,10m); "
                 "default 60 on a GPU, 16 otherwise");
  app.add_option("--space", space_overrides,
                 "candidate values of one parameter, NAME=v1,v2,... (repeatable)");
  app.add_option("--size-scale", scale_text,
                 "shrink each class's representative problem by this factor, for slow devices: "
                 "0.25, or per class: large=0.25,medium=0.5")
      ->capture_default_str();
  app.add_option("--state", state_path,
                 "state file (default: tune/<device>-<kernel>.json in the clgemm cache directory)");
  app.add_flag("--resume", resume,
               "continue the tune in the state file, skipping what it measured");
  app.add_option("--output", output,
                 "tuning database to update (default: the user's file, "
                 "$CLGEMM_TUNING_FILE or ~/.config/clgemm/tuning.json)");
  app.add_flag("--replace", replace, "overwrite an entry of another kernel even if it is faster");
  app.add_option("--seed", search.seed, "seed of the random sample")->capture_default_str();
  app.add_option("--min-time", search.measure.min_time, "seconds of timed calls per candidate")
      ->capture_default_str();
  app.add_option("--max-runs", search.measure.max_runs, "most timed calls per candidate")
      ->capture_default_str();
  app.add_option("--platform", platform, "platform index or name substring");
  app.add_option("--device", device_selector, "device index or name substring");
  app.add_flag("-v,--verbose", verbose, "print a line per candidate");
  app.add_flag("--dry-run", dry_run, "print the search space of each class and exit");
  CLI11_PARSE(app, argc, argv);

  try {
    find_kernel(kernel);
    search.measure.precision = parse_precision(precision_name_text);
    const auto classes = parse_classes(class_names);
    for (const auto& cls : classes) size_scale_for(scale_text, cls);  // validate early
    Context context(DeviceRequest{platform, device_selector});
    const DeviceLimits& limits = context.device();
    if (search.measure.precision != Precision::FP32) {
      // `auto` reads tf32 and 3xtf32 entries only on tensor cores, for the tensorcore kernel;
      // elsewhere those precisions run blocked with its fp32 entries.
      if (!context.has_tensor_cores())
        throw Error(ErrorCode::UnsupportedPrecision,
                    "device '" + limits.name + "' has no tensor cores, so " + precision_name_text +
                        " runs blocked with its fp32 entries: tune those "
                        "with --precision fp32",
                    "precision");
      if (kernel_option->count() == 0) kernel = "tensorcore";
      if (!find_kernel(kernel).needs_tensor_cores)
        throw Error(ErrorCode::InvalidArgument,
                    "--precision " + precision_name_text +
                        " entries are read for the tensorcore "
                        "kernel only; tune '" +
                        kernel + "' with --precision fp32",
                    "kernel");
    }
    if (!find_kernel(kernel).computes(search.measure.precision))
      throw Error(ErrorCode::UnsupportedPrecision,
                  "kernel '" + kernel + "' does not compute " + precision_name_text +
                      "; give --precision tf32 or 3xtf32 for tensorcore",
                  "precision");
    const bool gpu = limits.type == DeviceType::GPU;
    const Budget budget = parse_budget(budget_text.empty() ? (gpu ? "60" : "16") : budget_text);
    const KernelOptions derived = derive_options(kernel, limits);
    auto lists = default_value_lists(kernel, derived);
    for (const auto& text : space_overrides) apply_space_override(lists, kernel, text);
    if (state_path.empty())
      state_path =
          default_state_path(limits, search.measure.precision == Precision::FP32
                                         ? kernel
                                         : kernel + "-" + precision_name(search.measure.precision));
    if (output.empty()) output = TuningDatabase::user_file_path();
    if (output.empty() && !dry_run)
      throw Error(ErrorCode::InvalidArgument,
                  "no user tuning file ($HOME is not set): give --output");

    std::cout << "device:  " << limits.name << " [" << device_type_name(limits.type) << "] on '"
              << limits.platform_name << "', driver " << limits.driver_version << "\n"
              << "kernel:  " << kernel << " (default " << describe(derived) << "), precision "
              << precision_name(search.measure.precision) << "\n";
    for (const auto& [name, values] : lists) {
      std::string list;
      for (long v : values) list += (list.empty() ? "" : ",") + std::to_string(v);
      std::cout << "space:   " << name << " in {" << list << "}\n";
    }
    std::cout << "budget:  "
              << (budget.candidates ? std::to_string(budget.candidates) + " candidates per class"
                                    : std::string("no candidate limit"))
              << (budget.seconds > 0 ? ", " + format_duration(budget.seconds) + " in all" : "")
              << "\nstate:   " << state_path << (resume ? " (resuming)" : "") << "\n"
              << "output:  " << (dry_run ? "none (--dry-run)" : output) << "\n"
              << std::flush;

    auto state = TuneState::open(state_path, resume, limits, kernel);
    if (!dry_run) state.save();
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    Progress progress(isatty(STDERR_FILENO));
    search.kernel = kernel;
    search.max_candidates = budget.candidates;
    search.verbose = verbose;
    const auto tune_start = std::chrono::steady_clock::now();
    std::vector<std::string> failures, summary;
    bool incomplete = false;
    for (std::size_t index = 0; index < classes.size(); ++index) {
      const auto& cls = classes[index];
      const auto representative = representative_problem(cls);
      const double scale = size_scale_for(scale_text, cls);
      const auto problem = scaled(representative, scale);
      std::cout << "\n" << cls << ": " << shape(problem);
      if (scale != 1)
        std::cout << " (the representative " << shape(representative) << " scaled by " << scale
                  << (shape_class(problem) != cls
                          ? "; by size alone it is '" + shape_class(problem) + "'"
                          : std::string())
                  << ")";
      const Space space = build_space(kernel, lists, prune_context(limits, problem.m, problem.n));
      std::cout << "\n  space: " << space_summary(space) << std::endl;
      if (dry_run) continue;

      ClassState& cs = state.for_class(cls, problem);
      if (!cs.finished) {
        if (budget.seconds > 0) {
          const double spent =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - tune_start).count();
          search.max_seconds =
              std::max(1.0, (budget.seconds - spent) / double(classes.size() - index));
        }
        Bench bench(context, problem);
        const auto outcome = tune_class(bench, space, state, cls, progress, search, g_interrupted);
        failures.insert(failures.end(), outcome.failures.begin(), outcome.failures.end());
        if (outcome.resumed)
          std::cout << "  resumed: " << outcome.resumed << " candidates from the state file\n";
        std::cout << "  measured: " << outcome.measured << " candidates";
        if (outcome.unfit)
          std::cout << " (" << outcome.unfit
                    << " unfit: over a limit the device reports once built, such as "
                       "CL_KERNEL_WORK_GROUP_SIZE)";
        std::cout << std::endl;
        if (outcome.interrupted) {
          progress.finish();
          std::cerr << "clgemm-tune: interrupted; what was measured is in " << state_path
                    << "\n  continue with the same arguments and --resume\n";
          return 130;
        }
      } else {
        std::cout << "  already tuned in the state file (--resume)\n";
      }
      const ClassState& done = state.for_class(cls, problem);
      if (!done.finished) {
        std::cout << "  no candidate passed: nothing written\n";
        incomplete = true;
        continue;
      }
      const std::string written =
          write_entry(output, limits, kernel, search.measure.precision, done, replace);
      char line[256];
      std::snprintf(line, sizeof line,
                    "  winner: %.2f GFLOP/s (default %.2f, %.2fx): ", done.winner_gflops,
                    done.default_gflops,
                    done.default_gflops > 0 ? done.winner_gflops / done.default_gflops : 0.0);
      std::cout << line << describe(done.winner) << "\n  database: " << written << std::endl;
      std::snprintf(line, sizeof line, "%-8s %-16s %12.2f %12.2f %8.2fx  ", cls.c_str(),
                    shape(problem).c_str(), done.default_gflops, done.winner_gflops,
                    done.default_gflops > 0 ? done.winner_gflops / done.default_gflops : 0.0);
      summary.push_back(line + describe(done.winner));
    }
    if (dry_run) return 0;

    std::printf("\n%-8s %-16s %12s %12s %9s  %s\n", "class", "measured", "default GF/s",
                "tuned GF/s", "speed-up", "winner");
    for (const auto& line : summary) std::printf("%s\n", line.c_str());
    std::printf("database: %s\n", output.c_str());
    if (!failures.empty()) {
      std::fprintf(stderr,
                   "\nclgemm-tune: %zu candidate(s) FAILED (kernel bugs; none was picked):\n",
                   failures.size());
      for (const auto& f : failures) std::fprintf(stderr, "  %s\n", f.c_str());
    }
    return failures.empty() && !incomplete ? 0 : 1;
  } catch (const Error& error) {
    std::cerr << "clgemm-tune: error (" << error_code_name(error.code()) << "): " << error.what()
              << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "clgemm-tune: error: " << error.what() << "\n";
    return 2;
  }
}
