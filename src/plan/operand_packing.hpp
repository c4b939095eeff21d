// Internal: the packed operands of the wgmma kernel. Before the product, kernels/wgmma_pack.cl
// copies op(B)^T, and op(A) unless the kernel reads A as stored (KernelSpec::reads_stored_a),
// of every product into the workspace as blocks the kernel brings into local memory with one
// bulk copy each (the layout: kernels/wgmma_layout.clh), rounded to TF32 or split for 3xTF32 on
// the way. The kernel then reads them only there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "catalog/kernel_spec.hpp"
#include "plan/kernel_call.hpp"

namespace clgemm::detail {

// One operand's packed form: `rows` (M for A, N for B) x `depth` (K) cut into blocks of
// tile_rows x (tile_k / parts) of K, each block parts * tile_rows * (tile_k / parts) floats.
struct PackedOperand {
  std::int64_t rows = 0, depth = 0;
  long tile_rows = 0, tile_k = 0, parts = 1;
  bool rows_along_k = true;  // the source stores element (r, k) at r * ld + k
  bool operand_b = false;    // a product table's b_offset (else a_offset) locates it
  bool fragments = false;    // A in the order its work-items load it into registers
  bool paired_k = false;     // B in the column order of a kernel reading A as stored

  std::int64_t slice_depth() const { return tile_k / parts; }
  // Floats of one product's packed operand, or nothing when a size_t cannot hold them.
  std::optional<std::size_t> floats_per_product() const;
  // Work-items of the pack per product: one per 4 floats of the first part.
  std::size_t work_items_per_product() const;
  // "-D TILE_R=.. -D TILE_K=.. -D PRECISION=.. -D ROWS_ALONG_K=.. -D OPERAND_B=..
  // -D FRAGMENTS=.. -D PAIRED_K=.."
  std::string build_options(int precision) const;
};

// The packed operands of every product of the row-major `call`, for the kernel `spec` (wgmma)
// with `options` (TILE_M, TILE_N, TILE_K, A_REGISTERS: A in the fragment order, or not packed)
// in `precision` (two parts in 3xTF32), and their bytes in the workspace (SIZE_MAX where a
// size_t cannot hold them; a_bytes 0 where A is read as stored).
struct Packing {
  bool a_packed = true;  // false: the kernel reads A as stored, B paired_k
  PackedOperand a, b;
  std::size_t a_bytes = 0, b_bytes = 0;
  // Whether both fit a workspace of `limit` bytes.
  bool fits(std::size_t limit) const { return a_bytes <= limit && b_bytes <= limit - a_bytes; }
};
Packing packing(const KernelSpec& spec, const KernelCall& call, const KernelOptions& options,
                Precision precision);

}  // namespace clgemm::detail
