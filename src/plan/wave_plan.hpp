// Internal: how a one-product call fills the waves of a device that runs a known number of
// work-groups at once (blocked's host parameter WAVE_UNITS), and the choice that follows from
// it between three ways of running the call: its work-groups as they are, K split into S slices
// throughout (split_k.hpp), or the last wave's rows of tiles apart with their K split
// (last_wave.hpp). A launch of G work-groups of K steps on W units takes ceil(G / W) waves, each
// as long as one group; a slice of K / S steps makes the groups S times as many and each 1/S as
// long, plus a fixed cost per group (its prologue and its stores), and adds the reduction of the
// S partial products. On the H200's large tiles (one work-group per SM, W = 132) the model ranks
// the measured splits as they ran: 128x6144x4096 fastest in 11 slices (264 groups: two full
// waves), 512x14336x4096 in 4 (896 groups: 6.8 waves), 1536^3 in 5, 3200^3 in 2, 2048^3 unsplit.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "clgemm/kernels.hpp"
#include "plan/last_wave.hpp"

namespace clgemm::detail {

// The fixed cost of one work-group beyond its share of K, as that much more depth of K.
constexpr double kGroupFixedDepth = 32.0;
// The device's FP32 rate over its memory bandwidth (flops per byte; the H200: about 45 TFLOP/s
// reached over about 3 TB/s reached), by which the reduction's traffic counts as work-group time.
constexpr double kFlopsPerByte = 16.0;
// Each slice of a whole call's split keeps at least this much of K (a slice of the last wave's
// strip keeps kMinWaveSliceDepth): on the H100 the 64 x 128 tiles ran 768^3 fastest in 4 slices
// of 192 and 512^3 in 4 of 128 (docs/PERFORMANCE.md, "H100: calls timed as a caller makes
// them ...").
constexpr std::int64_t kMinSplitSliceDepth = 128;
// A split is taken only when the model has it at least this much faster than the call without
// it: what the model leaves out (the reduction's launch, the partial products' allocation) and
// the noise of its constants.
constexpr double kMinSplitGain = 1.05;

struct WaveGeometry {
  std::int64_t m = 0, n = 0, k = 0;
  std::array<std::int64_t, 3> block{};  // rows x columns of C per work-group, its K step
  std::int64_t units = 0;               // work-groups the device runs at once
};

// The model's time of the call, as depth of K one work-group runs through, with K split into
// `slices` throughout (1: unsplit; as slice_k() clamps them to whole TILE_K steps) and with the
// last wave's split.
double whole_split_time(const WaveGeometry& g, long slices);
double last_wave_time(const WaveGeometry& g, const LastWaveSplit& split);

struct WaveChoice {
  long slices = 1;                         // K's split throughout (1: none)
  std::optional<LastWaveSplit> last_wave;  // or the last wave's rows apart (slices is then 1)
  double time = 0;                         // the model's time of the choice
  double work = 0;  // the groups' depth of K over the units: the time on a full device without
                    // fixed costs (work / time is the share of the device the call keeps busy)
};

// The fastest of the three by the model, a split only where it gains kMinSplitGain. With
// forced_slices > 0 (SPLIT_K given) the whole call's split is that one, and the last wave's
// split is weighed only when it is 1. With g.units <= 0 or an empty call: no split, time and
// work 0.
WaveChoice choose_waves(const WaveGeometry& g, long forced_slices = 0);

// The geometry of the row-major m x n x k call for `kernel` with these resolved options, its
// units being their WAVE_UNITS (0 where absent).
WaveGeometry wave_geometry(const std::string& kernel, const KernelOptions& options, std::int64_t m,
                           std::int64_t n, std::int64_t k);

}  // namespace clgemm::detail
