// The tools' shared command-line pieces: exit statuses and the exception boundary, --version,
// --list-devices, the device flags, flag and path checks, notes on stderr.
#include "common/cli_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>
#include <sstream>

#include "support/files.hpp"

namespace clgemm::cli {
namespace fs = std::filesystem;

namespace {

std::string g_tool = "clgemm";  // the running tool's name, set by run_tool()

void print_devices() {
  const auto devices = clgemm::list_devices();
  if (devices.empty()) throw Error(ErrorCode::NoPlatform, "the OpenCL platforms offer no devices");
  for (const auto& entry : devices) {
    const auto& d = entry.limits;
    std::cout << "platform " << entry.platform_index << " device " << entry.device_index << ": "
              << d.name << " [" << device_type_name(d.type) << "] on '" << d.platform_name
              << "', driver " << d.driver_version << ", " << d.compute_units
              << " compute units, max work-group " << d.max_work_group_size << ", local memory "
              << d.local_memory_bytes / 1024 << " KiB, global memory "
              << d.global_memory_bytes / (1024 * 1024) << " MiB\n";
  }
}

bool read_integer(const std::string& text, std::int64_t& value) {
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && stop == end && !text.empty();
}

[[noreturn]] void unwritable(const std::string& flag, const std::string& path,
                             const std::string& why) {
  throw Error(ErrorCode::FileError, flag + ": cannot write '" + path + "': " + why, Argument::File);
}

}  // namespace

void add_common_flags(CLI::App& app) {
  app.set_version_flag("--version", app.get_name() + " " + version());
  app.add_flag_callback(
      "--list-devices",
      [] {
        print_devices();
        throw CLI::Success();
      },
      "list the OpenCL devices and exit");
}

void add_device_flags(CLI::App& app, DeviceOptions& options) {
  app.add_option("--platform", options.platform,
                 "platform index or name substring (default: $CLGEMM_PLATFORM)");
  app.add_option("--device", options.device,
                 "device index or name substring (default: $CLGEMM_DEVICE)");
}

Context open_context(const DeviceOptions& options) {
  return Context(DeviceRequest{options.platform, options.device});
}

int run_tool(CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  g_tool = app.get_name();
  // The tools measure and say what they build themselves: no background warming unless
  // CLGEMM_WARM asks for it, and no library notice beside their own (build_notice).
  set_default_warm_mode(WarmMode::Off);
  set_compile_notices(false);
  try {
    add_common_flags(app);
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
      if (error.get_exit_code() == 0) return app.exit(error);  // --help, --version, ...
      std::cerr << g_tool << ": error: " << error.what() << " (see --help)\n";
      return kError;
    }
    return body();
  } catch (const Error& error) {
    std::cerr << g_tool << ": error (" << error_code_name(error.code()) << "): " << error.what()
              << "\n";
  } catch (const std::bad_alloc&) {
    std::cerr << g_tool << ": error: out of host memory (std::bad_alloc); try a smaller problem\n";
  } catch (const std::exception& error) {
    std::cerr << g_tool << ": error: " << error.what() << "\n";
  } catch (...) {
    std::cerr << g_tool << ": error: an unknown exception\n";
  }
  return kError;
}

cl_mem device_copy(cl_context context, const std::vector<float>& data) {
  cl_int status = CL_SUCCESS;
  cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            data.size() * sizeof(float), const_cast<float*>(data.data()), &status);
  if (status != CL_SUCCESS) throw OpenCLError("clCreateBuffer", status);
  return m;
}

void note(const std::string& line) {
  std::cerr << g_tool << ": " << line << std::endl;
}

CLI::Validator size_range() {
  const std::int64_t max = INT32_MAX;
  const std::string range = "1 to " + std::to_string(max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        std::int64_t value = 0;
        if (!read_integer(text, value) || value > max)
          return "Value " + text + " not in range " + range;
        if (value < 1)
          return "Value " + text + " not in range " + range +
                 (value == 0 ? " (a GEMM of size 0 leaves nothing to measure)" : "");
        return {};
      },
      "INT in [" + range + "]", "SIZE");
}

CLI::Validator finite_range(double min, double max) {
  std::ostringstream range;
  range << min << " to " << max;
  return CLI::Validator(
      [=, range = range.str()](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE ||
            !std::isfinite(value) || value < min || value > max)
          return "Value " + text + " not in range " + range + " (a finite number)";
        return {};
      },
      "NUMBER in [" + range.str() + "]", "FINITE");
}

std::int64_t parse_integer(const std::string& text, std::int64_t min, std::int64_t max,
                           const std::string& what) {
  std::int64_t value = 0;
  if (!read_integer(text, value) || value < min || value > max)
    throw Error(ErrorCode::InvalidArgument, what + ": expected an integer from " +
                                                std::to_string(min) + " to " + std::to_string(max) +
                                                ", got '" + text + "'");
  return value;
}

KernelOptions parse_defines(const std::vector<std::string>& defines) {
  KernelOptions options;
  for (const auto& text : defines) {
    const auto [name, value] = parse_option_assignment(text);
    if (!options.emplace(name, value).second)
      throw Error(ErrorCode::InvalidOption, "-D " + name + " is given twice", Argument::Kernel);
  }
  return options;
}

void check_output_path(const std::string& flag, const std::string& path) {
  if (path.empty()) unwritable(flag, path, "the path is empty");
  const fs::path target(path);
  if (target.filename().empty() || target.filename() == "." || target.filename() == "..")
    unwritable(flag, path, "it names a directory, not a file");
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) {
    if (S_ISLNK(info.st_mode))
      unwritable(flag, path, "it is a symbolic link, which clgemm does not write through");
    if (S_ISDIR(info.st_mode)) unwritable(flag, path, "it is a directory");
    if (!S_ISREG(info.st_mode)) unwritable(flag, path, "it exists and is not a regular file");
  }
  // The nearest ancestor that exists must be a directory we may create entries in.
  fs::path dir = target.parent_path();
  for (;;) {
    const std::string name = dir.empty() ? "." : dir.string();
    if (::stat(name.c_str(), &info) == 0) {
      if (!S_ISDIR(info.st_mode)) unwritable(flag, path, "'" + name + "' is not a directory");
      if (::access(name.c_str(), W_OK | X_OK) != 0)
        unwritable(flag, path, "directory '" + name + "': " + std::strerror(errno));
      return;
    }
    if (errno != ENOENT && errno != ENOTDIR)
      unwritable(flag, path, "'" + name + "': " + std::strerror(errno));
    if (dir.empty() || dir == dir.parent_path())
      unwritable(flag, path, "no existing directory above it");
    dir = dir.parent_path();
  }
}

void write_output(const std::string& flag, const std::string& path, const std::string& contents) {
  try {
    write_file_atomically(path, contents);
  } catch (const Error& error) {
    throw Error(error.code(), flag + ": " + error.what(), error.argument());
  }
}

std::string kernel_that_runs(Context& context, const std::string& kernel,
                             const GemmProblem& problem, Precision precision) {
  if (kernel != "auto") return kernel;
  RunSettings settings;
  settings.precision = precision;
  return context.choose(problem, settings).kernel;
}

std::function<void()> noting(std::string message) {
  if (message.empty()) return {};
  return [message = std::move(message)] { note(message); };
}

bool compiling() {
  return programs_compiling() > 0;
}

std::string build_notice(const std::string& kernel, const DeviceLimits& device) {
  const auto cache = cache_directory_setting();
  const bool cache_off = cache && cache->empty();
  return "building kernel '" + kernel + "' for '" + device.name + "' on its first call ... (" +
         (cache_off ? "compiled each time: the disk cache is off, CLGEMM_CACHE_DIR=off"
                    : "compiled once, then cached on disk for next time") +
         ")";
}

}  // namespace clgemm::cli
