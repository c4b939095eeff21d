// clgemm-tune: the autotuner. For each shape class it searches a kernel's parameter space on
// the current device (tune_space: candidate lists and pruning; tune_search: the staged search;
// tune_measure: verified, timed runs on buffers), keeps what it measured in a state file so a
// Ctrl-C loses nothing (tune_state), shows its progress on stderr (tune_progress), and writes
// each class's winner into the per-device tuning database that the `auto` kernel reads.
// tune_arguments parses the budget, the classes and the size scale. --check validates a tuning
// file instead.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "clgemm/clgemm.hpp"
#include "common/cli_support.hpp"
#include "support/files.hpp"
#include "tune/tune_arguments.hpp"
#include "tune/tune_search.hpp"

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

// Puts the class's winner into the database file, under its lock, keeping what concurrent
// tuners wrote there; an entry of another kernel measured on the same problem and faster is
// kept unless `replace`. Returns what it did, for the report.
std::string write_entry(const std::string& path, const DeviceLimits& device,
                        const std::string& kernel, Precision precision, const ClassState& cs,
                        bool replace) {
  TunedEntry entry = TunedEntry::for_device(device);
  entry.shape_class = cs.shape_class;
  entry.precision = precision;
  entry.kernel = kernel;
  entry.options = cs.winner;
  entry.gflops = cs.winner_gflops;
  entry.m = cs.m, entry.n = cs.n, entry.k = cs.k;
  entry.batch = representative_problem(cs.shape_class).batch;  // --size-scale keeps the batch
  entry.tuned = today();
  std::string outcome = "written";
  TuningDatabase::update_file(path, [&](TuningDatabase& database) {
    if (const auto existing = database.find(device, cs.shape_class, precision);
        existing && !replace && existing->kernel != kernel && existing->m == cs.m &&
        existing->n == cs.n && existing->k == cs.k && existing->gflops > cs.winner_gflops) {
      char note[160];
      std::snprintf(note, sizeof note,
                    "kept the existing %s entry (%.2f GFLOP/s); --replace to "
                    "overwrite it",
                    existing->kernel.c_str(), existing->gflops);
      outcome = note;
      return;
    }
    database.put(entry);
  });
  return outcome;
}

// Before the tune: the database can be written, and is a tuning file if it exists.
void check_output_database(const std::string& path) {
  cli::check_output_path("--output", path);
  if (const auto text = read_regular_file(path, std::size_t(64) << 20))
    TuningDatabase::parse(*text, path);  // throws for a file that is not a tuning file
}

// --check: each problem of the tuning file on a line of its own. 0 when there are none, 1
// when there are (the file is not a tuning file, or some entries cannot be used), 2 (an
// Error) when nothing can be read there.
int check_tuning_file(const std::string& path) {
  if (!read_regular_file(path, std::size_t(64) << 20))
    throw Error(ErrorCode::FileError, "--check: tuning file '" + path + "' does not exist",
                Argument::File);
  const auto problems = TuningDatabase::check_file(path);
  for (const auto& problem : problems) std::cout << problem << "\n";
  std::cout << path << ": "
            << (problems.empty() ? std::string("no problems")
                                 : std::to_string(problems.size()) + " problem(s)")
            << std::endl;
  return problems.empty() ? cli::kSuccess : cli::kFailed;
}

struct Arguments {
  std::string kernel, precision = "fp32", budget, scale = "1", state_path, output, check_path;
  cli::DeviceOptions where;  // --platform, --device
  std::vector<std::string> classes = {"all"}, space_overrides;
  bool resume = false, verbose = false, dry_run = false, replace = false;
  SearchSettings search;
};

void add_options(CLI::App& app, Arguments& args) {
  app.add_option("--kernel", args.kernel,
                 "kernel to tune (default: blocked; tensorcore for tf32 and 3xtf32)");
  app.add_option("--precision", args.precision,
                 "precision the entries are for: fp32, or tf32 and 3xtf32 on a device with "
                 "tensor cores (elsewhere they run blocked with its fp32 entries)")
      ->capture_default_str()
      ->check(CLI::IsMember({"fp32", "tf32", "3xtf32"}));
  app.add_option(
         "--classes", args.classes,
         "shape classes to tune: all (those the kernel serves), or tiny, small, gemv, thin, "
         "skinny, small-k, medium, medium-large, large, batched-tiny, batched-small")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--budget", args.budget,
                 "candidates per class (40), a time for the whole tune (10m), or both (40,10m); "
                 "default 60 on a GPU, 16 otherwise");
  app.add_option("--space", args.space_overrides,
                 "candidate values of one parameter, NAME=v1,v2,... (repeatable)");
  app.add_option("--size-scale", args.scale,
                 "shrink each class's representative problem by this factor, for slow devices: "
                 "0.25, or per class: large=0.25,medium=0.5")
      ->capture_default_str();
  app.add_option("--state", args.state_path,
                 "state file (default: tune/<device>-<kernel>.json in the clgemm cache directory)");
  app.add_flag("--resume", args.resume,
               "continue the tune in the state file, skipping what it measured");
  app.add_option("--output", args.output,
                 "tuning database to update (default: the user's file, "
                 "$CLGEMM_TUNING_FILE or ~/.config/clgemm/tuning.json)");
  app.add_flag("--replace", args.replace,
               "overwrite an entry of another kernel even if it is faster");
  app.add_option("--seed", args.search.seed, "seed of the random sample")->capture_default_str();
  app.add_option("--min-time", args.search.measure.min_time, "seconds of timed calls per candidate")
      ->capture_default_str()
      ->check(cli::finite_range(0, 600));
  app.add_option("--max-runs", args.search.measure.max_runs, "most timed calls per candidate")
      ->capture_default_str()
      ->check(CLI::Range(1, cli::kMaxRuns));
  cli::add_device_flags(app, args.where);
  app.add_flag("-v,--verbose", args.verbose, "print a line per candidate");
  app.add_flag("--dry-run", args.dry_run, "print the search space of each class and exit");
  app.add_option("--check", args.check_path,
                 "check a tuning file and exit: each problem on a line; exit status 0 when "
                 "there are none, 1 when there are, 2 when the file cannot be read");
}

int run_tune(Arguments& args) {
  if (!args.check_path.empty()) return check_tuning_file(args.check_path);
  auto& search = args.search;
  std::string kernel = args.kernel.empty() ? "blocked" : find_kernel(args.kernel).name;
  search.measure.precision = parse_precision(args.precision);
  const auto classes = parse_classes(args.classes, kernel);
  for (const auto& cls : classes) size_scale_for(args.scale, cls);  // validate early
  auto context = cli::open_context(args.where);
  const DeviceLimits& limits = context.device();
  if (search.measure.precision != Precision::FP32) {
    // `auto` reads tf32 and 3xtf32 entries only on tensor cores, for the tensor-core kernels
    // (tensorcore, wgmma); elsewhere those precisions run blocked with its fp32 entries.
    if (!context.has_tensor_cores())
      throw Error(ErrorCode::UnsupportedPrecision,
                  "device '" + limits.name + "' has no tensor cores, so " + args.precision +
                      " runs blocked with its fp32 entries: tune those "
                      "with --precision fp32",
                  Argument::Precision);
    if (args.kernel.empty()) kernel = "tensorcore";
    if (!find_kernel(kernel).needs_tensor_cores)
      throw Error(ErrorCode::InvalidArgument,
                  "--precision " + args.precision +
                      " entries are read for the tensor-core kernels only (tensorcore, "
                      "wgmma); tune '" +
                      kernel + "' with --precision fp32",
                  Argument::Kernel);
  }
  if (!find_kernel(kernel).computes(search.measure.precision))
    throw Error(ErrorCode::UnsupportedPrecision,
                "kernel '" + kernel + "' does not compute " + args.precision +
                    "; give --precision tf32 or 3xtf32 for '" + kernel + "'",
                Argument::Precision);
  const bool gpu = limits.type == DeviceType::GPU;
  const Budget budget = parse_budget(args.budget.empty() ? (gpu ? "60" : "16") : args.budget);
  const KernelOptions derived = derive_options(kernel, limits);
  auto lists = default_value_lists(kernel, derived, limits);
  for (const auto& text : args.space_overrides) apply_space_override(lists, kernel, text);
  if (args.state_path.empty())
    args.state_path =
        default_state_path(limits, search.measure.precision == Precision::FP32
                                       ? kernel
                                       : kernel + "-" + precision_name(search.measure.precision));
  if (args.output.empty()) args.output = TuningDatabase::user_file_path();
  if (args.output.empty() && !args.dry_run)
    throw Error(ErrorCode::InvalidArgument,
                "no user tuning file ($HOME is not set): give --output");
  if (!args.dry_run) check_output_database(args.output);  // before the long tune

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
            << "\nstate:   " << args.state_path << (args.resume ? " (resuming)" : "") << "\n"
            << "output:  " << (args.dry_run ? "none (--dry-run)" : args.output) << "\n"
            << std::flush;

  auto state = TuneState::open(args.state_path, args.resume, limits, kernel);
  // A tune that does not resume starts its classes over; other classes in the file are kept.
  if (!args.dry_run) state.save(args.resume ? std::vector<std::string>{} : classes);
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  Progress progress(isatty(STDERR_FILENO));
  search.kernel = kernel;
  search.max_candidates = budget.candidates;
  search.verbose = args.verbose;
  const auto tune_start = std::chrono::steady_clock::now();
  std::vector<std::string> failures, summary;
  bool incomplete = false;
  for (std::size_t index = 0; index < classes.size(); ++index) {
    const auto& cls = classes[index];
    const auto representative = representative_problem(cls);
    const double scale = size_scale_for(args.scale, cls);
    const auto problem = scaled(representative, scale);
    std::cout << "\n" << cls << ": " << shape(problem);
    if (scale != 1)
      std::cout << " (the representative " << shape(representative) << " scaled by " << scale
                << (shape_class(problem) != cls
                        ? "; by size alone it is '" + shape_class(problem) + "'"
                        : std::string())
                << ")";
    const Space space = build_space(
        kernel, lists, prune_context(limits, problem.m, problem.n, search.measure.precision));
    std::cout << "\n  space: " << space_summary(space) << std::endl;
    if (args.dry_run) continue;

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
        std::cerr << "clgemm-tune: interrupted; what was measured is in " << args.state_path
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
        write_entry(args.output, limits, kernel, search.measure.precision, done, args.replace);
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
  if (args.dry_run) return cli::kSuccess;

  std::printf("\n%-8s %-16s %12s %12s %9s  %s\n", "class", "measured", "default GF/s", "tuned GF/s",
              "speed-up", "winner");
  for (const auto& line : summary) std::printf("%s\n", line.c_str());
  std::printf("database: %s\n", args.output.c_str());
  if (!failures.empty()) {
    std::fprintf(stderr, "\nclgemm-tune: %zu candidate(s) FAILED (kernel bugs; none was picked):\n",
                 failures.size());
    for (const auto& f : failures) std::fprintf(stderr, "  %s\n", f.c_str());
  }
  return failures.empty() && !incomplete ? cli::kSuccess : cli::kFailed;
}

}  // namespace

int main(int argc, char** argv) {
  Arguments args;
  CLI::App app{
      "Tune a kernel's parameters for each shape class on this device and write the "
      "winners into the tuning database that the `auto` kernel reads.",
      "clgemm-tune"};
  add_options(app, args);
  return cli::run_tool(app, argc, argv, [&] { return run_tune(args); });
}
