// Internal: what preparation makes of a call's plan (launch/prepare_call.hpp): the programs
// ready to launch, in order, with the workspace they share; and the call's record of them
// (launch/call_record.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/kernel_spec.hpp"
#include "clgemm/gemm.hpp"
#include "plan/call_plan.hpp"
#include "plan/edge_split.hpp"
#include "plan/kernel_call.hpp"
#include "plan/operand_packing.hpp"
#include "plan/split_k.hpp"
#include "runtime/program_cache.hpp"

namespace clgemm::detail {

// A program ready to launch, with the parameters it was built with.
struct PreparedKernel {
  std::string name;                  // the kernel reported as run ("scale_c" for ScaleC)
  const KernelSpec* spec = nullptr;  // null for scale_c
  std::shared_ptr<const BuiltProgram> built;
  KernelOptions options;
  std::string build_options;
  bool cached = false;
  Precision precision = Precision::FP32;
  std::string precision_path = "fp32";  // see GemmRecord::precision_path
};

// Everything one call launches, in order: aligned copies of the call's A and B into the
// workspace (copy_a, copy_b; B's possibly transposed), the GEMM (`main`) and, for split-K, the
// reduction of its partial products; or scale_c alone (`main`). Offsets and leading dimensions in
// the workspace are in floats, each region starting at a multiple of 64 floats (256 bytes).
struct PreparedEdge;

struct PreparedCall {
  // Edge-aware tiling: these launches compute this region of C, and `edges` the rest.
  std::optional<Region> whole_tiles;
  std::vector<PreparedEdge> edges;
  PreparedKernel main;
  PreparedKernel copy;            // copy_padded, when an operand is copied
  PreparedKernel transpose;       // copy_padded with TRANSPOSE, when op(A) or op(B) is copied
  PreparedKernel reduce;          // splitk_reduce, when K is split
  PreparedKernel pack_a, pack_b;  // wgmma_pack, for a kernel that reads packed operands
  bool column_major = false;      // the call's A and B are the problem's B and A
  bool copy_a = false, copy_b = false;
  bool copy_a_transposed = false;        // A's copy is op(A), read untransposed
  bool copy_b_transposed = false;        // B's copy is op(B), read untransposed
  bool packed = false;                   // B (b_at) is packed before the GEMM, and A (a_at)
  bool a_packed = false;                 // unless the kernel reads A as stored
  PackedOperand a_packing, b_packing;    // their floats_per_product() apart, product by product
  std::int64_t a_ld = 0, b_ld = 0;       // the copies' leading dimensions
  std::size_t a_at = 0, b_at = 0;        // the copies' offsets
  KSlices slices;                        // slices.slices > 1: split-K
  std::int64_t partial_ld = 0;           // N rounded up to 4
  std::size_t partial_at = 0, slab = 0;  // the first partial product, floats between slabs
  std::size_t workspace_bytes = 0;
  std::string reason;             // the plan's reason and what the launches add to it
  std::int64_t batch = 1;         // products
  bool product_table = false;     // their offsets and scalars from a table
  std::string epilogue = "none";  // describe_epilogue()

  std::size_t launches() const {
    const auto gemm_launches = std::size_t(product_launches(batch));
    const std::size_t packs = packed ? (a_packed ? 2 : 1) : 0;
    return std::size_t(copy_a) + std::size_t(copy_b) + (packs + 1) * gemm_launches +
           (slices.slices > 1 ? 1 : 0) + edge_launches();
  }
  std::size_t edge_launches() const;  // after PreparedEdge
};

struct PreparedEdge {
  Region region;
  PreparedCall prepared;
};

inline std::size_t PreparedCall::edge_launches() const {
  std::size_t count = 0;
  for (const auto& edge : edges) count += edge.prepared.launches();
  return count;
}

// The record of a call that runs `prepared`.
GemmRecord record_of(const PreparedCall& prepared);
// The record of a build: `prepared` chosen for `reason`.
GemmRecord record_of_build(const PreparedKernel& prepared, const std::string& reason);
// The record of a call that launched nothing.
GemmRecord record_of_nothing(const CallPlan& plan);

}  // namespace clgemm::detail
