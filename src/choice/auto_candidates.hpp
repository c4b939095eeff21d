// Internal: the tuned entries `auto` weighs for a kind of call (choose_kernel,
// kernel_choice.cpp) and, by the same rules, every kernel and parameter set `auto` may run on
// a device (auto_kernels), which warming builds ahead (choice/warm_up.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "clgemm/tuning.hpp"

namespace clgemm::detail {

// The kind of call `auto` chooses for: everything of the call its choice of entries depends on
// besides the shape, which only weighs them.
struct AutoScope {
  Precision precision = Precision::FP32;
  TensorCores cores = TensorCores::None;
  bool gemv_regime = false;    // the call is in gemv's regime (is_gemv_like)
  bool single_product = true;  // a batch of one
};

// Whether `kernel` computes `precision` here (a kernel that needs tensor cores or wgmma only
// where the device has them); false for a name outside the catalogue.
bool kernel_runs(const std::string& kernel, Precision precision, TensorCores cores);
// Whether the call's precision runs on tensor cores: a reduced precision on a device with them.
bool on_tensor_cores(Precision precision, TensorCores cores);
// Whether gemv's regime can exist for this precision here: gemv is catalogued, computes the
// precision, and the precision does not run on tensor cores.
bool gemv_regime_possible(Precision precision, TensorCores cores);
// Products in gemv's regime of at most this many rows (or columns) leave the tensor cores for
// the FMA kernels (kernel_spec.hpp's kTensorCoreMinRows says why): kTensorCoreMinRows in TF32 on
// a device that runs wgmma, else the GEMV-like ones (kGemvRowsOnGpus). Those of few rows that
// runs_thin_tensorcore_tiles() takes do not get that far.
std::int64_t thin_for_tensor_cores_rows(Precision precision, TensorCores cores);
// Whether an m x n x k product runs tensorcore on its thin tiles (tensorcore_thin_tiles;
// kernel_spec.hpp's kTensorCoreMinRows and kTensorCoreMidRows say why): a reduced precision on
// a device that runs wgmma, more rows than a GEMV-like product and at most kTensorCoreMidRows,
// N and K long.
bool runs_thin_tensorcore_tiles(Precision precision, TensorCores cores, std::int64_t m,
                                std::int64_t n, std::int64_t k);
// Whether a call of `batch` m x n x k products is too small for wgmma in this precision here
// (kernel_spec.hpp's kWgmmaSmallCallWork says why): TF32 on a device that runs wgmma, at most
// kWgmmaSmallCallWork multiply-adds in all or a batch of products of at most
// kWgmmaSmallProductWork each. Such calls leave wgmma: for tensorcore's small tiles where
// runs_small_tensorcore_tiles(), else as on a device without tensor cores.
bool small_for_wgmma(Precision precision, TensorCores cores, std::int64_t m, std::int64_t n,
                     std::int64_t k, std::int64_t batch);
// Whether a call of `batch` m x n x k products runs tensorcore on tensorcore_small_tiles()
// (kernel_spec.hpp's kTf32x3SmallProductWork says why), on a device that runs wgmma and not in
// gemv's regime there: in 3xTF32 at most kWgmmaSmallCallWork multiply-adds in all or a batch of
// products of at most kTf32x3SmallProductWork each; in TF32 a call small_for_wgmma() whose
// products have both sides at least kSmallTilesMinSide.
bool runs_small_tensorcore_tiles(Precision precision, TensorCores cores, std::int64_t m,
                                 std::int64_t n, std::int64_t k, std::int64_t batch);
// Whether a call of `batch` m x n x k products runs blocked_short_k_tiles() (kernel_spec.hpp's
// kShortPipelineDepth says why): FP32 on a device with cp.async, K at most
// kShortPipelineDepth, and at least two waves of the tiles.
bool runs_short_k_pipeline(Precision precision, const DeviceLimits& device, std::int64_t m,
                           std::int64_t n, std::int64_t k, std::int64_t batch);
// The kernel `auto` runs with derived parameters in the scope: tensorcore on tensor cores,
// gemv in its regime, else blocked.
std::string regime_kernel(const AutoScope& scope);

struct UsableEntry {
  TunedEntry entry;
  KernelOptions options;  // resolved for the device
};
struct UsableEntries {
  std::vector<UsableEntry> entries;
  MatchLevel level = MatchLevel::DeviceType;
  std::string skipped;  // the entries found unusable on the way, and why
};

// The entries that can serve a call of `scope` on `device`, at the most specific level that has
// any (a device's own entries for batches, or for gemv's regime, do not hide its kind's entries
// that serve a single product): of a kernel that computes the precision here, gemv's only in its
// regime and only gemv's there, measured on a batch only for a batch, with options valid here,
// and for which `unfit` (when given) returns "" (else its text is why it was skipped).
UsableEntries usable_entries(
    const TuningDatabase& database, const DeviceLimits& device, const AutoScope& scope,
    const std::function<std::string(const TunedEntry&, const KernelOptions&)>& unfit = {});

// Every kernel and parameter set `auto` may choose for `precision` on `device`: for each scope
// (on the tensor cores or, for products too thin for them, off; gemv's regime or not, one
// product or a batch), usable_entries()'s entries and the regime kernel with derived
// parameters (overrides empty), each once, in that order. A superset where
// a kernel's packed operands do not fit the workspace for a call (choose_kernel then looks a
// level further).
std::vector<KernelSelection> auto_kernels(const TuningDatabase& database,
                                          const DeviceLimits& device, Precision precision,
                                          TensorCores cores);

}  // namespace clgemm::detail
