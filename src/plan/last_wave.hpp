// Internal: the last wave's split. A GEMM whose work-groups fill the device's concurrent slots
// W whole times and a fraction more runs that fraction as a wave of its own, most slots idle
// (3000^3 on 128 x 256 tiles is 288 work-groups: 2.18 waves of 132, run as three). With
// blocked's host parameter WAVE_UNITS (the work-groups the device runs at once), the tile rows
// of that last wave are computed apart: C's first rows as whole waves of the kernel as it is,
// the rest, a strip of C's last rows, with K split into enough slices to fill one wave, its
// partial products summed in order by splitk_reduce (the same bits run after run). The strip
// then takes about 1/S of a wave instead of a whole one.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "plan/edge_split.hpp"

namespace clgemm::detail {

// Each slice of the last wave's strip keeps at least this much of K: shallower slices cost more
// in partial products and their reduction than the idle slots they fill. (A whole call's split
// keeps wave_plan.hpp's kMinSplitSliceDepth.)
constexpr std::int64_t kMinWaveSliceDepth = 256;

struct LastWaveSplit {
  Region whole_waves;  // C's first rows, all columns
  Region last_rows;    // the rest of C's rows, all columns
  long slices = 1;     // the strip's split of K
  std::string reason;
};

// The split for the row-major m x n x k call (one product) on work-groups of block[0] x block[1]
// of C, `units` of them at once, or none: units <= 0, fewer than one whole wave, no fraction
// left over, or a strip too large (or K too shallow) for two slices to fit one wave. Whether it
// pays is choose_waves' decision (wave_plan.hpp).
std::optional<LastWaveSplit> split_last_wave(const std::array<std::int64_t, 3>& block,
                                             std::int64_t units, std::int64_t m, std::int64_t n,
                                             std::int64_t k);

}  // namespace clgemm::detail
