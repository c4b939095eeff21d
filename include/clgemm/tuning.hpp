// The tuning database: the best kernel and parameters measured per device and shape class,
// and the choice `auto` makes from it. Entries shipped with the library (share/clgemm/tuning)
// are overridden by the user's file ($CLGEMM_TUNING_FILE, else
// $XDG_CONFIG_HOME/clgemm/tuning.json, else ~/.config/clgemm/tuning.json), which clgemm-tune
// writes. The format is JSON:
//   {"format": 1, "entries": [{"device": "NVIDIA H200", "platform": "NVIDIA CUDA",
//     "shape_class": "large", "kernel": "blocked", "options": {"TILE_M": 128, ...},
//     "gflops": 39319.6, "m": 4096, "n": 4096, "k": 4096, "tuned": "2026-11-29"}]}
#pragma once

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
  // The shipped entries overlaid with the user's file; missing files are simply empty.
  // A malformed file throws Error(InvalidArgument) naming the file and the problem.
  static TuningDatabase load_default();
  static TuningDatabase load_file(const std::string& path);
  static std::string user_file_path();
  static std::string shipped_directory();  // share/clgemm/tuning, found like the kernels

  // Adds or replaces the entry for (device, platform, shape class, precision).
  void put(const TunedEntry& entry);
  // Entries from `other` replace this database's entries for the same key.
  void overlay(const TuningDatabase& other);
  std::optional<TunedEntry> find(const DeviceLimits& device, const std::string& shape_class,
                                 Precision precision = Precision::FP32) const;
  const std::vector<TunedEntry>& entries() const { return entries_; }
  void save(const std::string& path) const;

 private:
  std::vector<TunedEntry> entries_;
};

// What `auto` runs for a problem on a device, and why: the entry for the problem's shape
// class, else the device's 'large' entry, else derived parameters. FP32 never runs on tensor
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
