// Internal: the pieces of a host-array call (tile_plan.hpp) as the engine streams them: for
// each, the blocks of A, B, C and the bias it moves (where they lie in the caller's arrays
// and in the device slots), the keys that let a block already on the device be reused, and
// the problem the piece computes on those slots.
#pragma once

#include <cstdint>
#include <vector>

#include "clgemm/gemm.hpp"
#include "host/engine_sets.hpp"
#include "host/stored_block.hpp"
#include "host/tile_plan.hpp"

namespace clgemm::detail {

// One launch's worth: products [first_product, + products), C's rows [row, + rows) and
// columns [column, + columns) (the problem's M and N), K's slab [depth_start, + depth).
struct Piece {
  std::int64_t first_product = 0, products = 1;
  std::int64_t row = 0, rows = 0, column = 0, columns = 0, depth_start = 0, depth = 0;
  std::int64_t slab = 0, slabs = 1;
  std::size_t tile = 0;  // its tile of C (the slabs of one tile share it)
  bool first_slab() const { return slab == 0; }
  bool last_slab() const { return slab + 1 == slabs; }
};

// Tile by tile (products, then rows, then columns), each tile's slabs in order.
std::vector<Piece> list_pieces(const TilePlan& plan);

// The caller's arrays.
struct HostArrays {
  const float *a, *b;
  float* c;
  const float* bias;
};

// Whether some product reads C (beta != 0).
bool reads_c(const GemmProblem& problem);
// The plan's input for this problem.
TilingInput tiling_input(const GemmProblem& problem);

enum class Matrix { A, B, C, Bias };

// The block of `which` that `piece` moves.
StoredBlock block_of(Matrix which, const GemmProblem& problem, const TilePlan& plan,
                     const Piece& piece, const HostArrays& arrays);
// Which block that is, to find it among the slots.
BlockKey key_of(Matrix which, const GemmProblem& problem, const TilePlan& plan, const Piece& piece);

// The problem `piece` computes on the slots (offsets from each slot's start; the bias and a
// product table given as buffers by the caller). A table's entries are appended to `table`
// and the problem's products.offset says where they start.
GemmProblem piece_problem(const GemmProblem& problem, const TilePlan& plan, const Piece& piece,
                          std::vector<BatchProduct>& table);

}  // namespace clgemm::detail
