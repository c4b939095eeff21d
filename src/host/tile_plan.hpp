// Internal: how the host-memory engine cuts a call into pieces, without OpenCL. Either one
// piece holding every matrix whole as the caller laid it out ("whole": small calls, where
// tiling cannot pay), or tiles of C (tile_m x tile_n, `products` products of a batch at a
// time) with K in slabs of tile_k, each operand block packed densely; and the device buffers
// that takes: rings of slots for A, B, C and the bias blocks, under the memory limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace clgemm::detail {

// What the plan needs to know of a call.
struct TilingInput {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool operands = true;                     // A and B are read (not for C = beta * C)
  bool reads_c = false;                     // some product has beta != 0
  bool a_shared = false, b_shared = false;  // one A (B) for every product: stride 0, no table
  bool bias = false, bias_shared = false, bias_per_row = false;
  bool table = false;  // a product table gives each product's offsets and scalars
  // The whole piece's buffers: each matrix from its lowest product's offset to its end.
  std::size_t a_span = 0, b_span = 0, c_span = 0, bias_span = 0;  // bytes
  std::size_t max_allocation = 0;                                 // CL_DEVICE_MAX_MEM_ALLOC_SIZE
  std::size_t limit = 0;     // the engine's device memory limit
  std::string limit_source;  // where the limit came from, for the error
  // Forced tiles (CLGEMM_HOST_TILE), 0 to choose; tile_k 0: K whole.
  std::int64_t tile_m = 0, tile_n = 0, tile_k = 0;
};

// Device buffers: `count` slots of `bytes` each, per ring.
struct SlotRing {
  std::size_t count = 0, bytes = 0;
  std::size_t total() const { return count * bytes; }
};
struct DeviceLayout {
  SlotRing a, b, c, bias, table;  // table: each piece's product table
  std::size_t total() const {
    return a.total() + b.total() + c.total() + bias.total() + table.total();
  }
};

struct TilePlan {
  bool whole = false;
  std::int64_t tile_m = 0, tile_n = 0, tile_k = 0, products = 1;
  DeviceLayout layout;
  std::int64_t row_tiles() const { return (m + tile_m - 1) / tile_m; }
  std::int64_t column_tiles() const { return (n + tile_n - 1) / tile_n; }
  std::int64_t slabs() const { return k == 0 ? 1 : (k + tile_k - 1) / tile_k; }
  std::int64_t groups() const { return (batch + products - 1) / products; }
  std::int64_t tiles() const { return groups() * row_tiles() * column_tiles(); }
  std::int64_t pieces() const { return tiles() * slabs(); }
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
};

// Multiply-adds (batch * M * N * K) up to which a call is one whole piece: the pipeline's
// overlap cannot pay for its extra launches there.
constexpr double kWholeCallMultiplyAdds = 1024.0 * 1024.0 * 1024.0;
// The edge the engine aims its tiles at: large enough that each launch runs at full speed on
// a large GPU (an H200 needs about 1024 x 1024 and K whole), small enough for a pipeline.
constexpr std::int64_t kTargetTileEdge = 2048;
// The smallest tile edge (and K slab) the plan shrinks to under a tight memory limit.
constexpr std::int64_t kSmallestTileEdge = 64;

// The plan for `input`; Error(AllocationTooLarge) naming the limit when even the smallest
// tiles do not fit it.
TilePlan plan_tiles(const TilingInput& input);

// A short description for GemmRecord::kernel_choice, e.g. "host engine: 8 tiles of 2048 x 2048
// (K whole), B kept on the device".
std::string describe_tiles(const TilePlan& plan);

}  // namespace clgemm::detail
