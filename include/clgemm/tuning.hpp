// The tuning database: the best kernel and parameters measured per device and shape class,
// and the choice `auto` makes from it. Entries shipped with the library (share/clgemm/tuning)
// are overridden by the user's file ($CLGEMM_TUNING_FILE, else
// $XDG_CONFIG_HOME/clgemm/tuning.json, else ~/.config/clgemm/tuning.json), which clgemm-tune
// writes. The format is JSON:
//   {"format": 1, "entries": [{"device": "NVIDIA H200", "platform": "NVIDIA CUDA",
//     "shape_class": "large", "kernel": "blocked", "options": {"TILE_M": 128, ...},
//     "gflops": 39319.6, "m": 4096, "n": 4096, "k": 4096, "tuned": "2026-11-29"}]}
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "clgemm/device.hpp"
#include "clgemm/gemm.hpp"
#include "clgemm/kernels.hpp"

namespace clgemm {

// The shape classes entries are kept for, from the problem's M, N and K (after mapping onto
// the row-major kernels): "small" (M*N*K <= 512^3), "skinny" (min(M, N) <= 256), "small-k"
// (K <= 512), "medium" (M*N*K <= 1024^3), else "large". On the H200 the best tiles change
// between 1024^3 (64 x 64) and 2048^3 (128 x 256), hence that boundary.
std::string shape_class(const GemmProblem& problem);
const std::vector<std::string>& shape_classes();

// A representative problem of each class, as the tuner measures it.
GemmProblem representative_problem(const std::string& shape_class);

struct TunedEntry {
  std::string device;    // CL_DEVICE_NAME
  std::string platform;  // CL_PLATFORM_NAME
  std::string shape_class;
  Precision precision = Precision::FP32;  // "precision" in the file, "fp32" when absent
  std::string kernel;
  KernelOptions options;
  double gflops = 0;                 // measured on the representative problem
  std::int64_t m = 0, n = 0, k = 0;  // that problem
  std::string tuned;                 // date of the measurement, YYYY-MM-DD
};

class TuningDatabase {
 public:
  // The shipped entries overlaid with the user's file; missing files are simply empty. Never
  // throws for a bad file: an unreadable or malformed file, or an entry this library cannot
  // use (an unknown kernel, shape class, precision or parameter, a value out of range), is
  // skipped and described in problems(), and `auto` says so in its reason.
  static TuningDatabase load_default();
  // One file, strictly: nothing at `path` gives an empty database; otherwise every problem
  // of the file or its entries throws Error(InvalidArgument) naming the file and listing them
  // (Error(FileError) when it cannot be read at all).
  static TuningDatabase load_file(const std::string& path);
  // The JSON text of a file that came from `origin` (a path, for the messages): the entries
  // that can be used, and a problem per entry that cannot. Throws Error(InvalidArgument)
  // when the text as a whole is not a tuning file (not JSON, another format, no entries).
  static TuningDatabase parse(const std::string& text, const std::string& origin);
  // Every problem of the file at `path`, one line each (empty: the file is fine or absent).
  static std::vector<std::string> check_file(const std::string& path);
  // Reads the file at `path`, lets `change` edit it and writes it back atomically, under a
  // lock that concurrent writers take in turn (see update_file_locked in clgemm/files.hpp).
  // Entries this library cannot use are kept as they were. Refuses (Error(InvalidArgument))
  // to replace a file that is not a tuning file at all.
  static void update_file(const std::string& path,
                          const std::function<void(TuningDatabase&)>& change);
  static std::string user_file_path();
  static std::string shipped_directory();  // share/clgemm/tuning, found like the kernels

  // Adds or replaces the entry for (device, platform, shape class, precision).
  void put(const TunedEntry& entry);
  // Entries from `other` replace this database's entries for the same key; its problems and
  // unusable entries are added to these.
  void overlay(const TuningDatabase& other);
  std::optional<TunedEntry> find(const DeviceLimits& device, const std::string& shape_class,
                                 Precision precision = Precision::FP32) const;
  const std::vector<TunedEntry>& entries() const { return entries_; }
  // What could not be used, one line each: "<file>: entry 3: unknown kernel 'nope' ...".
  const std::vector<std::string>& problems() const { return problems_; }
  // The file's JSON text: the usable entries, sorted, then the unusable ones as they were.
  std::string to_json_text() const;
  // Writes to_json_text() to `path` atomically (Error(FileError) when it cannot).
  void save(const std::string& path) const;

 private:
  std::vector<TunedEntry> entries_;
  std::vector<std::string> problems_;
  std::vector<std::string> unusable_entries_;  // their JSON text, kept for update_file
};

// What `auto` runs for a problem on a device, and why: the entry for the problem's shape
// class, else the device's 'large' entry, else derived parameters (the reason also says when
// the tuning files had problems that were skipped). FP32 never runs on tensor
// cores. TF32 and 3xTF32 use the tensorcore entries of that precision where `tensor_cores`,
// and otherwise the fp32 entries of a kernel that computes the precision portably (blocked).
struct KernelChoice {
  std::string kernel;
  KernelOptions overrides;  // empty: the parameters derived from the device
  std::string reason;
};
KernelChoice choose_kernel(const TuningDatabase& database, const DeviceLimits& device,
                           const GemmProblem& problem, Precision precision = Precision::FP32,
                           bool tensor_cores = false);

}  // namespace clgemm
