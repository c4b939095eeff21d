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
#include <utility>
#include <vector>

#include "clgemm/device.hpp"
#include "clgemm/export.h"
#include "clgemm/gemm.hpp"
#include "clgemm/kernels.hpp"

namespace clgemm {

// The shape classes the tuner measures, one representative problem each, from the problem's
// M, N and K (after mapping onto the row-major kernels); the first that matches, in this order:
//   "batched-tiny"   a batch of more than one product, each with M*N*K <= 64^3;
//   "batched-small"  a batch of more than one product, each with M*N*K <= 256^3;
//   "gemv"           gemv's regime with at most 8 rows (min(M, N) <= 8, the long side at least
//                    256 and 8 times the short one, K >= 256);
//   "tiny"           M*N*K <= 256^3, where the launch dominates;
//   "small"          M*N*K <= 512^3;
//   "thin"           min(M, N) <= 64: a few rows or columns against long sides;
//   "skinny"         min(M, N) <= 256;
//   "small-k"        K <= 512;
//   "medium"         M*N*K <= 1024^3;
//   "medium-large"   M*N*K <= 3072^3;
//   "large"          everything else.
// Entries record the class they were tuned for; `auto` weighs them all (choose_kernel below).
CLGEMM_API std::string shape_class(const GemmProblem& problem);
CLGEMM_API const std::vector<std::string>& shape_classes();

// A representative problem of each class, as the tuner measures it.
CLGEMM_API GemmProblem representative_problem(const std::string& shape_class);

// The device an entry was measured on, at four levels of detail: `auto` uses the entries of
// the most specific level that matches a device (as CLBlast's database does), so a device
// without entries of its own still runs parameters measured on its kind.
enum class MatchLevel {
  Device,        // the same CL_DEVICE_NAME on the same CL_PLATFORM_NAME
  Architecture,  // the same device_architecture() (e.g. sm_90 for an H100 and an H200)
  Vendor,        // the same CL_DEVICE_VENDOR and device type
  DeviceType,    // any device of the same type (CPU, GPU, ...)
};
CLGEMM_API const char* match_level_name(MatchLevel level);  // "device", "architecture", ...
// The levels from the most specific on.
inline constexpr MatchLevel kMatchLevels[] = {MatchLevel::Device, MatchLevel::Architecture,
                                              MatchLevel::Vendor, MatchLevel::DeviceType};

// A device's architecture as tuning entries record it: "sm_<major><minor>" on NVIDIA
// (cl_nv_device_attribute_query); on PoCL's CPU device the LLVM CPU its name carries
// ("pthread-skylake-avx512-Intel(R) Xeon(R) ..." -> "skylake-avx512"); the device name
// elsewhere (AMD reports its gfx target there).
CLGEMM_API std::string device_architecture(const DeviceLimits& device);

struct CLGEMM_API TunedEntry {
  std::string device;    // CL_DEVICE_NAME
  std::string platform;  // CL_PLATFORM_NAME
  // The fallback levels' keys (empty in files written before they existed: such an entry
  // serves its own device only).
  std::string architecture;  // device_architecture()
  std::string vendor;        // CL_DEVICE_VENDOR
  std::string device_type;   // device_type_name(): "CPU", "GPU", ...
  std::string shape_class;
  Precision precision = Precision::FP32;  // "precision" in the file, "fp32" when absent
  std::string kernel;
  KernelOptions options;
  double gflops = 0;                 // measured on the representative problem
  std::int64_t m = 0, n = 0, k = 0;  // that problem
  std::int64_t batch = 1;            // and its products ("batch" in the file, 1 when absent)
  std::string tuned;                 // date of the measurement, YYYY-MM-DD

  // An entry for `device`: its name, platform, architecture, vendor and type filled in.
  static TunedEntry for_device(const DeviceLimits& device);
  // Whether the entry was measured on a device that matches `device` at `level`.
  bool matches(const DeviceLimits& device, MatchLevel level) const;
};

class CLGEMM_API TuningDatabase {
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
  // lock that concurrent writers take in turn (the library's safe-file module).
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
  // The device's own entry (MatchLevel::Device) for the class and precision.
  std::optional<TunedEntry> find(const DeviceLimits& device, const std::string& shape_class,
                                 Precision precision = Precision::FP32) const;
  // The entries of `precision` at the most specific level that has any for `device` (every
  // shape class), and that level; empty when no level matches.
  std::pair<std::vector<TunedEntry>, MatchLevel> entries_for(const DeviceLimits& device,
                                                             Precision precision) const;
  // The entries of `precision` that match `device` at `level` (every shape class).
  std::vector<TunedEntry> entries_at(const DeviceLimits& device, Precision precision,
                                     MatchLevel level) const;
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

// Which tensor-core kernels a device runs: none, the mma.sync kernel 'tensorcore'
// (Context::has_tensor_cores()), or also the wgmma kernel (Context::has_wgmma()).
enum class TensorCores { None, MmaSync, Wgmma };

// What `auto` runs for a problem on a device, and why (src/choice/kernel_choice.cpp). The regime
// comes first: GEMV-like shapes (the row-major call's M or N at most 8 on a GPU, gemv's rows
// per pass on a CPU, the other side and K long) run `gemv`. Otherwise every entry of the
// most specific level with an entry that can serve the call is a candidate (a device's own
// entries for batches, or for gemv's regime, do not hide its kind's entries for a single
// product), and so are the parameters derived from the device; each entry's measured speed is
// carried to this shape by the fraction of the device its launch keeps busy here against on the
// problem it was measured on (the fill of its edge tiles times the fill of its last wave of
// work-groups over the compute units, K slices included), never above the measured speed; the
// fastest prediction wins, ties going to the entry measured nearest in size. blocked itself splits
// K where its tiles give less than two waves and K is long (SPLIT_K, automatic by default). FP32
// never runs on tensor cores. TF32 and 3xTF32 use the tensor-core entries of that precision where
// the device has tensor cores (tensorcore's, and wgmma's too where it runs wgmma), and otherwise
// the fp32 entries of a kernel that computes the precision portably (blocked). The reason says
// which entry and level were used, what the model predicted, which entries were skipped and why,
// and whether the tuning files had problems.
CLGEMM_API KernelChoice choose_kernel(const TuningDatabase& database, const DeviceLimits& device,
                                      const GemmProblem& problem,
                                      Precision precision = Precision::FP32,
                                      TensorCores tensor_cores = TensorCores::None);

}  // namespace clgemm
