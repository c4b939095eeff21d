// clgemm-tune's state file: what a tune has measured so far, so that an interrupted tune can
// resume (--resume) without measuring a candidate twice. JSON, written after every candidate
// under the file's lock (clgemm::update_file_locked), merged with what other tuners of the same
// device and kernel wrote there meanwhile: {"format": 1, "device", "platform", "driver",
//   "kernel", "classes": [{"shape_class", "m", "n", "k", "finished", "winner", "winner_gflops",
//   "default_gflops", "candidates": [{"options", "status", "median_seconds", "gflops", "runs",
//   "build_seconds", "first_call_seconds", "message", "default"}]}]}.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clgemm/device.hpp"
#include "tune/tune_measure.hpp"

namespace clgemm::tune {

struct CandidateRecord {
  Measurement measurement;
  double gflops = 0;
  bool is_default = false;  // the options the library derives for the device
};

struct ClassState {
  std::string shape_class;
  std::int64_t m = 0, n = 0, k = 0;
  bool finished = false;
  std::vector<CandidateRecord> candidates;
  // Set when finished: the confirmed winner and the default it was compared with.
  KernelOptions winner;
  double winner_gflops = 0, default_gflops = 0;
  const CandidateRecord* find(const KernelOptions& options) const;
};

struct TuneState {
  std::string path;
  std::string device, platform, driver, kernel;
  std::vector<ClassState> classes;

  // The class's record; a fresh one when there is none or it was measured on another size.
  ClassState& for_class(const std::string& shape_class, const GemmProblem& problem);
  // Writes the file atomically under its lock, merged with what the file holds for the same
  // device, platform, driver and kernel: its classes this state lacks, and in classes of the
  // same size its candidates this state has not measured (and its winner, where this state has
  // none yet). The file's records of `restart_classes` are dropped instead (a tune that starts
  // over); a file for another device or kernel, or not a state file, is replaced.
  void save(const std::vector<std::string>& restart_classes = {}) const;
  // An empty state for the device and kernel, or the file's content when `resume` is set and
  // the file exists. Throws Error(InvalidArgument) when that file is for another device or
  // kernel, or is malformed.
  static TuneState open(const std::string& path, bool resume, const DeviceLimits& device,
                        const std::string& kernel);
};

// $CLGEMM_CACHE_DIR (made absolute; unless "off" in any case), else
// clgemm::per_user_directory("XDG_CACHE_HOME",
// ".cache") ($XDG_CACHE_HOME/clgemm, ~/.cache/clgemm, a private /tmp/clgemm-<uid>), then
// tune/<device>-<kernel>.json with the device name reduced to [A-Za-z0-9._-]. Throws
// Error(FileError) when there is no such directory.
std::string default_state_path(const DeviceLimits& device, const std::string& kernel);

}  // namespace clgemm::tune
