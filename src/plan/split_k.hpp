// Internal: how many slices of K a split-K GEMM uses. Pure functions of the shape, the kernel's
// block and the device's compute units, so the automatic kernel choice and the tests can call
// them without a device.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace clgemm::detail {

// Slices shallower than this are not worth a slab of the workspace, a share of the reduction
// and a second launch: each slice keeps at least this much of K. Measured on the H200: 512^3
// split into two slices of 256 ran back to back at 0.82x of the unsplit call (47 us against
// 40), while 512x512x65536 in 33 slices of about 2000 ran at 2.5x.
constexpr std::int64_t kMinSliceDepth = 1024;

// The work-groups of block[0] x block[1] tiles (rows x columns) that cover an m x n C.
inline std::int64_t tile_groups(std::int64_t m, std::int64_t n,
                                const std::array<std::int64_t, 3>& block) {
  return ((m + block[0] - 1) / block[0]) * ((n + block[1] - 1) / block[1]);
}

// The split factor S (1: no split) for the row-major m x n x k call on work-group tiles of
// block[0] x block[1] (rows x columns of C) where the work-groups the device runs at once are
// not known (where they are, wave_plan.hpp's model decides): when those tiles give fewer
// work-groups than two waves over the compute units, enough slices for about two waves, as
// long as each slice keeps K / S >= min_slice_depth; one slice fewer where the slices that
// reach two waves would leave some units a third work-group (the wave model, one group per
// unit at a time, then has the fewer slices faster).
long choose_split(std::int64_t m, std::int64_t n, std::int64_t k,
                  const std::array<std::int64_t, 3>& block, std::size_t compute_units,
                  std::int64_t min_slice_depth = kMinSliceDepth);

// S slices asked for, as the kernel runs them: each k_slice deep, a multiple of the kernel's
// K step (the last slice shorter), so slices = ceil(k / k_slice) <= requested, and never an
// empty slice (a request above K clamps). requested < 1 counts as 1.
struct KSlices {
  long slices = 1;
  std::int64_t k_slice = 0;
};
KSlices slice_k(std::int64_t k, long requested, std::int64_t k_step);

}  // namespace clgemm::detail
