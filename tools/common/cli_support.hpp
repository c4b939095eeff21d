// What the four command-line tools share: the exit statuses and the one place that turns every
// exception into one of them (run_tool), --version and --list-devices, the device flags and the
// context they open, strict checks of numeric flags, -D overrides and output paths, and the
// notes on stderr while something slow runs.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "clgemm/clgemm.hpp"

namespace clgemm::cli {

// The exit statuses of every tool.
constexpr int kSuccess = 0;
constexpr int kFailed = 1;  // a verification failed (clgemm-tune --check: the file has problems)
constexpr int kError = 2;   // any error, usage errors included

// The largest --reps and --warmup (their sum still fits an int).
constexpr int kMaxRuns = 1000000;

// Adds --version (prints "<tool> <clgemm::version()>") and --list-devices to `app`, whose
// name is the tool's. run_tool() calls it; a tool need not.
void add_common_flags(CLI::App& app);

// The device a tool runs on, as its --platform and --device flags give it (empty: the
// library's defaults, $CLGEMM_PLATFORM and $CLGEMM_DEVICE, then the first device).
struct DeviceOptions {
  std::string platform;
  std::string device;
};
// Adds --platform and --device to `app`, writing into `options`.
void add_device_flags(CLI::App& app, DeviceOptions& options);
// Opens the context `options` names (Error(NoPlatform) when nothing matches).
Context open_context(const DeviceOptions& options);

// The whole life of a tool: adds the common flags to `app`, parses the command line into it,
// then runs `body` and returns its exit status. Usage errors and every exception become one
// message on stderr ("<tool>: error: ...") and kError; --help, --version and --list-devices
// return kSuccess.
int run_tool(CLI::App& app, int argc, char** argv, const std::function<int()>& body);

// "<tool>: <line>" on stderr: progress and notices, apart from the results on stdout.
void note(const std::string& line);

// A device buffer of the context holding a copy of `data` (Error(OpenCLFailure) when it
// cannot be created); the caller releases it.
cl_mem device_copy(cl_context context, const std::vector<float>& data);

// M, N, K and the other matrix sizes: an integer from 1 to INT32_MAX (as CLI::Range says it,
// adding for 0 that a GEMM of size 0 leaves nothing to measure).
CLI::Validator size_range();
// A floating-point flag: finite and within [min, max] (CLI::Range lets NaN through).
CLI::Validator finite_range(double min, double max);

// "123" as an integer within [min, max]; throws Error(InvalidArgument) naming `what` when the
// text is anything else (a sign, spaces, trailing characters, a number out of range).
std::int64_t parse_integer(const std::string& text, std::int64_t min, std::int64_t max,
                           const std::string& what);

// -D NAME=value options as kernel overrides, each read by clgemm::parse_option_assignment;
// a name given twice is an Error(InvalidOption).
KernelOptions parse_defines(const std::vector<std::string>& defines);

// Before a long run: throws Error(FileError) naming `flag` and `path` unless write_output()
// can be expected to succeed there: `path` is absent or a regular file (not a directory or a
// symbolic link), and its nearest existing ancestor is a directory this user can write.
void check_output_path(const std::string& flag, const std::string& path);
// Writes `contents` to `path` with clgemm::write_file_atomically; a failure's message starts
// with the flag the path came from.
void write_output(const std::string& flag, const std::string& path, const std::string& contents);

// The kernel a call with `kernel` runs on `problem`: the tuning database's choice for "auto".
std::string kernel_that_runs(Context& context, const std::string& kernel,
                             const GemmProblem& problem, Precision precision);

// What a DelayedNotice (support/delayed_notice.hpp) around a slow call says: note(message);
// nothing for an empty message.
std::function<void()> noting(std::string message);

// The noted message for the first call of `kernel` on `device`, said only while a
// program compiles from source (compiling() is its DelayedNotice's only_while): a first call that
// loads its program from the disk cache and is slow for other reasons (uploads, the verification)
// says nothing.
std::string build_notice(const std::string& kernel, const DeviceLimits& device);
bool compiling();

}  // namespace clgemm::cli
