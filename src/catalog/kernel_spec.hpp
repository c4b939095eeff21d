// Internal description of a kernel: everything the host needs beyond the public catalogue
// entry, namely how to derive its parameters, which constraints they obey, and how to launch it.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "clgemm/device.hpp"
#include "clgemm/kernels.hpp"
#include "runtime/ptx_rewrite.hpp"

namespace clgemm::detail {

// A rule the parameters must obey, written as data so a broken one is named before building.
struct Constraint {
  std::string text;  // e.g. "TILE_M % ITEM_M == 0"
  std::function<bool(const KernelOptions&)> holds;
};

// A rule the parameters must obey on a device: the instructions some of them ask for exist
// only on some devices (blocked's ASYNC_COPY: cp.async, NVIDIA compute capability 8.0). Each
// names what one parameter's value needs, whatever the others (parameter_value_runs_on).
struct DeviceConstraint {
  std::string text;  // e.g. "ASYNC_COPY = 1 needs cp.async (NVIDIA, compute capability 8.0+)"
  std::function<bool(const KernelOptions&, const DeviceLimits&)> holds;
};

// What fit_to_call sees of a row-major call: C is m x n, K deep, which operands are read
// transposed, and whether it is a batch (whose operands are never copied).
struct CallLayout {
  std::int64_t m = 0, n = 0, k = 0;
  bool a_transposed = false, b_transposed = false;
  bool batched = false;
};

struct LaunchGeometry {
  std::array<std::size_t, 2> global;
  std::array<std::size_t, 2> local;
};

struct KernelSpec {
  KernelDescription description;
  std::string entry_point;            // the __kernel function in the file
  bool uses_alignment_hints = false;  // takes A_ALIGNED / B_ALIGNED from the problem
  // Takes two arguments after the GEMM's (int k_slice, ulong c_slice_stride) and slices K
  // over the third grid dimension (see kernels/blocked.cl): split-K and aligned copies of the
  // operands are planned for it (SPLIT_K, ALIGN_COPY in description.host_parameters).
  bool slices_k = false;
  // What the build does to the kernel's PTX (ptx_rewrite.hpp): Sm90a for a kernel that writes
  // sm_90a-only instructions (wgmma) as marked comments; such a kernel builds only on NVIDIA
  // devices of compute capability 9.0 whose wgmma probe passed (wgmma_spec.cpp asks for it).
  PtxRewrite ptx_rewrite = PtxRewrite::None;
  // Reads B, and A unless reads_stored_a, only as packed by kernels/wgmma_pack.cl into the
  // workspace (operand_packing.hpp): the host packs them before each launch, and the kernel is
  // built without their transposes (the packed operands are K-major).
  bool packs_operands = false;
  // For a kernel that packs its operands: whether, with these options, it reads A as the
  // caller stores it instead (built with A's transpose); unset: never.
  std::function<bool(const KernelOptions&)> reads_stored_a;
  // Whether, with these options, a call of this layout reads op(A) or op(B) from a transposed
  // copy in the workspace (copy_padded with TRANSPOSE, plan/aligned_copy.hpp), where the copy
  // fits; unset: never.
  std::function<bool(const KernelOptions&, const CallLayout&)> reads_a_transposed_copy;
  std::function<bool(const KernelOptions&, const CallLayout&)> reads_b_transposed_copy;
  // Reads its operands from global memory through a CPU's caches, with no local memory: on a
  // CPU device an operand whose lines share the caches' sets (within a cache line of a multiple
  // of kCacheAliasBytes apart) is read from a copy one cache line wider, and B read as vectors
  // whose vectors straddle cache lines from an aligned copy (plan/aligned_copy.hpp).
  bool reads_through_caches = false;
  // For such a kernel: whether, with these options, it reads B's stored lines as whole vectors
  // (VEC floats at a time), so that a B whose lines start off the vectors is read from an
  // aligned copy on a CPU; unset: never.
  std::function<bool(const KernelOptions&)> reads_b_lines_as_vectors;
  std::function<KernelOptions(const DeviceLimits&)> derive;
  // The options `auto` runs a call with, from a tuned or derived set: a work-item's block of
  // outputs larger than C computes values it throws away, so such a kernel shrinks it to C,
  // and a kernel with a loop for the call's transposes takes it. Unset: as given.
  std::function<KernelOptions(KernelOptions, const CallLayout&)> fit_to_call;
  std::vector<Constraint> constraints;
  std::vector<DeviceConstraint> device_constraints;
  std::function<std::array<std::size_t, 2>(const KernelOptions&)> work_group;  // (x, y)
  std::function<std::size_t(const KernelOptions&)> local_memory_bytes;
  std::function<LaunchGeometry(const KernelOptions&, std::int64_t m, std::int64_t n)> geometry;
  // The block one work-group covers: rows and columns of C, and the depth of one K step. The
  // kernels index with 32-bit ints, so each size rounded up to its block, plus one block more
  // (the next step's loads), must stay below 2^31 (check_index_range).
  std::function<std::array<std::int64_t, 3>(const KernelOptions&)> block;
  // Accumulators per work-item (kernel_outputs_per_work_item); unset means 1.
  std::function<long(const KernelOptions&)> outputs_per_work_item;
  // Floats a work-item keeps in registers beside its accumulators (its share of a local page
  // staged through registers, a private array, a second set of fragments, A's fragments),
  // which kernel_registers_per_work_item adds; unset means none.
  std::function<long(const KernelOptions&)> registers_beside_outputs;
  // Floats a work-item keeps in one precision alone, beside those (wgmma's 3xTF32 slice sums);
  // kernel_registers_per_work_item with a precision adds them; unset means none.
  std::function<long(const KernelOptions&, Precision)> registers_in_precision;
  // The traffic model: floats of A and B the kernel loads from global memory for a row-major
  // M x N x K problem, counted as its work-items issue them (reuse through local or private
  // memory lowers it; loads outside the matrix are masked and not counted). C is added by
  // global_traffic_bytes(), the same for every kernel.
  std::function<double(const KernelOptions&, std::int64_t m, std::int64_t n, std::int64_t k)>
      operand_loads;
};

// Whether a kernel that packs its operands reads A as the caller stores it with these options
// (KernelSpec::reads_stored_a).
inline bool reads_stored_a(const KernelSpec& spec, const KernelOptions& options) {
  return spec.packs_operands && spec.reads_stored_a && spec.reads_stored_a(options);
}

// The host parameters of a kernel that slices K (KernelSpec::slices_k): SPLIT_K, and for one
// that also takes alignment hints ALIGN_COPY (kernel_catalog.cpp).
KernelParameter split_k_parameter();
KernelParameter align_copy_parameter();

// Whether calls of the kernel may read an unaligned operand from an aligned copy (copy_padded,
// plan/aligned_copy.hpp): a kernel that slices K and takes alignment hints.
inline bool may_copy_operands(const KernelSpec& spec) {
  return spec.slices_k && spec.uses_alignment_hints;
}

// Every kernel, in ladder order, then the production kernels; find_spec throws
// Error(UnknownKernel) naming the valid kernels.
const std::vector<KernelSpec>& kernel_specs();
const KernelSpec& find_spec(const std::string& name);

// One builder per kernel, each in the file of its family: the ladder (ladder_specs.cpp), the
// production kernels (blocked_spec.cpp, tensorcore_spec.cpp, wgmma_spec.cpp, gemv_spec.cpp,
// register_block_spec.cpp).
KernelSpec base_spec();
KernelSpec row_spec();
KernelSpec private_spec();
KernelSpec tile_spec();
KernelSpec coarsened_spec();
KernelSpec vectorized_spec();
// vectorized's parameters, launch and constraints under another name, for kernels built on it.
KernelSpec vector_tile_spec(std::string name, std::string summary);
KernelSpec blocked_spec();
KernelSpec tensorcore_spec();
KernelSpec wgmma_spec();
KernelSpec gemv_spec();
KernelSpec register_block_spec();
// The gemv kernel's regime: the short side of C at most `max_rows`, the long side at least 256
// and 8 times the short one, and K at least 256, so that streaming the long operand is the
// work. GPUs run gemv for at most kGemvRowsOnGpus rows (kernel_choice.cpp says why); its
// tuning class "gemv" is this regime on GPUs.
constexpr std::int64_t kGemvRowsOnGpus = 8;
// CPUs run gemv for at most this many rows: on PoCL (2-core AMD EPYC) blocked with tiles of
// 8 to 32 rows (the tuned 'thin' entry) ran 8-32-row products 1.6-2.4x faster than gemv, which
// won at 1-4 rows (kernel_choice.cpp).
constexpr std::int64_t kGemvRowsOnCpus = 4;
bool is_gemv_regime(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t max_rows);
// wgmma's tiles are 64-128 rows deep and it packs all of the long operand of a product that
// reads it once, so on devices that run wgmma a product in gemv's regime of at most this many
// rows (the short side, bound by memory) runs `tensorcore` on thin tiles
// (tensorcore_thin_tiles): mma.sync on 32 rows, A and B copied into local memory as stored
// (cp.async), no packs. On the H100, 16x28672x4096 in 3xTF32 13.0 TFLOP/s against wgmma's 3.7
// and blocked's 2.6 (blocked multiplies three times with FMAs); in TF32 14.8 against blocked's
// 13.2 and wgmma's 6.9 (FP32 on blocked: 15.0). A product of at most this many columns leaves
// the tensor cores for the FMA kernels in TF32 only (thin_for_tensor_cores_rows; on the H100
// FP32 at 16-32 rows ran 1.6-2.0x as fast as wgmma's TF32), and keeps wgmma in 3xTF32 (tensorcore's
// thin tiles along N are not measured). Devices with mma.sync only: only GEMV-like products,
// at most kGemvRowsOnGpus rows, leave the tensor cores.
constexpr std::int64_t kTensorCoreMinRows = 32;
// Products of more rows than that and at most this many (N and K long) run tensorcore on 64-row
// tiles: on the H100, in TF32 128 x 11008 x 4096 at 60.2 TFLOP/s against wgmma's 42.3 (split 4
// ways) and the 32-row tiles' 42.4, 96 x 12288 x 3072 46.2 against 32.1 and 36.5; in 3xTF32
// 64 x 8192 x 4096 33.7 against wgmma's 13.3, 128 x 11008 x 4096 35.3 against 23.5,
// 96 x 12288 x 3072 29.0 against 19.1.
constexpr std::int64_t kTensorCoreMidRows = 128;
// TF32 calls on a device that runs wgmma of at most kWgmmaSmallCallWork multiply-adds in all
// (512^3), or batches of products of at most kWgmmaSmallProductWork (128^3) each, leave wgmma
// (small_for_wgmma): wgmma's 128-row tiles and packs cost more there than the tensor cores
// save. Those of products narrower than kSmallTilesMinSide run on the FMA kernels, which round
// the operands to TF32 once, the others on tensorcore's small tiles (below). On the H100, TF32 per
// call, GFLOP/s, wgmma before and blocked after: 128^3 78 -> 253, 256^3 617 -> 1,663, 512^3 4,569
// -> 9,001, 32^3 x 8192 1,399 -> 8,719, 128^3 x 1024 17,732 -> 24,422 (blocked's TF32 runs at
// 0.97-1.0x its FP32 there). From 768^3 wgmma is faster (21,284 against FP32's 17,932); at
// 640^3 blocked ran 12,866, wgmma was not measured. 3xTF32 never goes to blocked, which
// multiplies three times with FMAs (7-30x slower at these shapes).
constexpr double kWgmmaSmallCallWork = double(1 << 27);
constexpr double kWgmmaSmallProductWork = double(1 << 21);
// 3xTF32 calls there of at most kWgmmaSmallCallWork multiply-adds in all, or batches of products
// of at most kTf32x3SmallProductWork (256^3) each, run tensorcore on tensorcore_small_tiles()
// (runs_small_tensorcore_tiles): 64 x 64 x 16 tiles, four warps of 32 x 32, two stages, A and B
// copied into local memory as stored, no packs. On the H100, 3xTF32 per call, GFLOP/s, wgmma's
// tuned 'medium' entry (64 x 64 x 32) against these tiles (three stages where marked *): 64^3 18
// -> 32, 128^3 136 -> 212*, 256^3 1,002 -> 1,311*, 384^3 3,190 -> 3,687, 512^3 6,943 -> 7,130*,
// 32^3 x 8192 2,131 -> 5,508, 128^3 x 1024 13,315 -> 29,519, 256^3 x 64 19,575 -> 28,408; wgmma
// stays faster from 768^3 (18,437 against 14,700) and at 1024^3 x 16 (50,114 against 38,301).
// Small TF32 calls (small_for_wgmma) run those tiles too where both sides of each product are
// at least kSmallTilesMinSide: on the H100, TF32 per call, GFLOP/s, blocked against them: 128^3
// 169 -> 226, 256^3 1,287 -> 1,319, 512^3 7,128 -> 8,842, 128^3 x 1024 23,763 -> 30,203; but
// 32^3 x 8192 7,902 -> 6,755 (a 64 x 64 tile three quarters empty), so narrower ones stay on
// blocked.
constexpr double kTf32x3SmallProductWork = double(1 << 24);
constexpr std::int64_t kSmallTilesMinSide = 64;
// tensorcore's tiles for a thin product of `rows` rows: up to kTensorCoreMinRows, 32 x 128 x 32,
// two warps of 16 x 64, two stages; beyond, 64 x 128 x 16, four warps of 32 x 64, three stages.
KernelOptions tensorcore_thin_tiles(std::int64_t rows);
// tensorcore's tiles for a small TF32 or 3xTF32 call (kTf32x3SmallProductWork): 64 x 64 x 16,
// four warps of 32 x 32, two stages.
KernelOptions tensorcore_small_tiles();
// FP32 calls of K at most kShortPipelineDepth (32 slices of 8 or fewer) pay the start of each
// work-group's pipeline once per few slices; on NVIDIA devices with cp.async (compute capability
// 8.0 or newer) those of at least two waves of 64 x 128 tiles run `blocked` on
// blocked_short_k_tiles(): the medium-large tiles (64 x 128 x 8, 8 x 8 warp tiles, fragments
// prefetched) with three stages of asynchronous copies, two slices in flight. On the H100, per
// call, GFLOP/s, against the tuned tiles `auto` ran before (same call): 128^3 x 1024 28,211
// against 23,685, 512 x 512 x 128 x 32 24,287 against 22,031, 2048 x 2048 x 128 x 32 35,666
// against 32,186, 8192 x 8192 x 128 34,531 against 29,921, 8192 x 8192 x 64 24,072 against
// 21,662, 8192 x 8192 x 256 37,165 against 36,572; at K = 1024 (1024^3 x 16) the large tiles
// with registers stay faster (43,291 against the medium-large tiles' 38,724). Not in TF32: with
// the copies the operands are rounded at every fragment read, not once as staged (128^3 x 1024
// 19,749 against 24,422).
constexpr std::int64_t kShortPipelineDepth = 256;
KernelOptions blocked_short_k_tiles();
// Whether register_block computes a call as inner products (INNER_PRODUCTS = 1), where the
// outer products would read the operand along which the work runs element by element: op(B) =
// B^T with op(A) = A below kOuterProductRowsCopiedB rows (a batch at any); op(B) = B^T beside
// op(A) = A^T for products of at most
// kInnerProductRowsBothTransposed rows (a batch), or kInnerProductRowsCopiedA (one product,
// whose op(A) is then copied transposed where that pays); op(A) = A with op(B) = B for fewer than
// kInnerProductColumns columns and K of at least kInnerProductMinDepth
// (register_block_spec.cpp has the measurements).
constexpr std::int64_t kInnerProductRowsBothTransposed = 16;
constexpr std::int64_t kInnerProductRowsCopiedA = 64;
// With op(A) = A and op(B) = B^T, a single product of at least this many rows reads op(B) from a
// transposed copy on the outer products instead (register_block_spec.cpp has the measurements).
constexpr std::int64_t kOuterProductRowsCopiedB = 256;
constexpr std::int64_t kInnerProductColumns = 8;
constexpr std::int64_t kInnerProductMinDepth = 256;
bool register_block_inner_products(const CallLayout& call);
// register_block's outer products with op(A) = A^T read ROWS consecutive floats of each of A's
// stored lines per step: on calls of at least kTransposedAMinimumRows rows, blocks of at least
// kTransposedARows rows (register_block_spec.cpp has the measurements).
constexpr long kTransposedARows = 12;
constexpr std::int64_t kTransposedAMinimumRows = 64;
// register_block's outer products whose block of columns over all of K (its slab of B) is
// larger than kDeepSlabBytes take its rows in at least kDeepRowBlocks turns along K
// (register_block_spec.cpp has the measurements).
constexpr long kDeepSlabBytes = 256 * 1024;
constexpr long kDeepRowBlocks = 8;
// gemv's overrides for `precision` on `device`: `overrides` (which resolve to `options`) with
// what that precision changes. 3xTF32 splits each element of the long operand
// into its two TF32 parts as it is used, and on a GPU the 8 x 8 blocks (VEC = 8) of the tuned
// entry then leave ptxas too few registers (it spilled 2.3 KB of the H200 entry, against none
// with VEC = 4), so there 3xTF32 takes blocks of 4 with the entry's lanes and slices of K (the
// same work-items, so whatever launched the entry launches these; each group covers half the
// columns). On the H100, 3xTF32 per call: 8 x 4096 x 4096 2.21 -> 3.56 TFLOP/s, 1 x 4096 x 4096
// 0.57 -> 0.68, 4096 x 1 x 4096 0.40 -> 0.69, 8 x 11008 x 4096 (B transposed) 1.98 -> 3.79;
// twice the lanes (512 work-items, or 256 with half the slices) gained at most 3%. In FP32
// and TF32 the 8 x 8 blocks are faster at 8 rows (TF32 4096 x 8 x 4096 2.61 against 1.72
// TFLOP/s), so they keep them.
KernelOptions gemv_overrides_for_precision(KernelOptions overrides, const KernelOptions& options,
                                           Precision precision, const DeviceLimits& device);
// The same short and long sides with any K, where the long operand (long side x K) holds at
// least kGemvStreamedFloats (4 MiB, beyond a CPU's caches): streaming it once is the work
// even when K is short. CPUs run gemv there too (kernel_choice.cpp); the tuning class is
// unchanged.
constexpr std::int64_t kGemvStreamedFloats = std::int64_t(1) << 20;
bool is_long_operand_regime(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t max_rows);

// Small helpers the builders share.
inline long opt(const KernelOptions& o, const char* name) {
  return o.at(name);
}
inline std::size_t round_up(std::int64_t value, std::size_t multiple) {
  const auto v = static_cast<std::size_t>(value);
  return (v + multiple - 1) / multiple * multiple;
}
// Work-groups of `per_group` needed to cover `extent`.
inline std::size_t groups(std::int64_t extent, std::size_t per_group) {
  return (static_cast<std::size_t>(extent) + per_group - 1) / per_group;
}
inline bool is_power_of_two(long v) {
  return v > 0 && (v & (v - 1)) == 0;
}
// Largest power of two p <= cap with p * p <= budget.
inline long square_power_of_two(std::size_t budget, long cap) {
  long p = 1;
  while (p * 2 <= cap && std::size_t(p * 2) * std::size_t(p * 2) <= budget) p *= 2;
  return p;
}
// GPUs are capped at 32 x 32 = 1024 work-items per group: more never pays for these shapes.
// A CPU (PoCL reports 4096) runs a work-group as a loop, so the group shape matters for
// cache reuse and vectorisation, not occupancy; the builders' CPU caps were measured with PoCL.
// A work-item's floats of one page, for a kernel that loads the next page into registers while
// the other is read: one of `pages` pages in `local_bytes`, over the work-group's items.
inline long staged_page_share(std::size_t local_bytes, long pages,
                              const std::array<std::size_t, 2>& work_group) {
  const long items = long(std::max<std::size_t>(1, work_group[0] * work_group[1]));
  return long(local_bytes / sizeof(float)) / pages / items;
}
// KernelSpec::registers_beside_outputs of a kernel with two pages whose next one is loaded
// into registers while the other is read, from its local memory and work-group.
inline std::function<long(const KernelOptions&)> one_staged_page(const KernelSpec& s) {
  return [lm = s.local_memory_bytes, wgf = s.work_group](const KernelOptions& o) {
    return staged_page_share(lm(o), 2, wgf(o));
  };
}
// KernelSpec::geometry of a kernel with one work-group of `work_group` per TILE_M x TILE_N block
// of C (vectorized's and blocked's launch).
inline std::function<LaunchGeometry(const KernelOptions&, std::int64_t, std::int64_t)>
one_group_per_tile(std::function<std::array<std::size_t, 2>(const KernelOptions&)> work_group) {
  return [work_group](const KernelOptions& o, std::int64_t m, std::int64_t n) {
    const auto wg = work_group(o);
    return LaunchGeometry{
        {groups(n, opt(o, "TILE_N")) * wg[0], groups(m, opt(o, "TILE_M")) * wg[1]}, wg};
  };
}
// VEC, the floats of one vector load, is an OpenCL vector width.
inline Constraint vector_width_constraint() {
  return {"VEC is 1, 2, 4, 8 or 16", [](const KernelOptions& o) {
            const long v = opt(o, "VEC");
            return is_power_of_two(v) && v <= 16;
          }};
}
inline bool is_cpu(const DeviceLimits& d) {
  return d.type == DeviceType::CPU;
}
// Floats of A and B loaded by a grid of tile_m x tile_n work-group tiles that each read their
// rows of A and columns of B over all of K once: A is read once per column of groups, B once
// per row of groups (edge groups load only what lies inside the matrix).
inline double tiled_loads(std::int64_t m, std::int64_t n, std::int64_t k, long tile_m,
                          long tile_n) {
  return double(m) * double(k) * double(groups(n, tile_n)) +
         double(k) * double(n) * double(groups(m, tile_m));
}

// The launch of a kernel whose work-groups are `threads(options)` work-items in one dimension,
// each computing a TILE_M x TILE_N tile of C, TILE_K deep per step (the tensor-core kernels):
// its work-group, geometry, block and traffic model.
inline void set_one_dimensional_tiles(KernelSpec& s,
                                      std::function<std::size_t(const KernelOptions&)> threads) {
  s.work_group = [threads](const KernelOptions& o) {
    return std::array<std::size_t, 2>{threads(o), 1};
  };
  s.geometry = [threads](const KernelOptions& o, std::int64_t m, std::int64_t n) {
    const std::size_t t = threads(o);
    return LaunchGeometry{{groups(n, opt(o, "TILE_N")) * t, groups(m, opt(o, "TILE_M"))}, {t, 1}};
  };
  s.block = [](const KernelOptions& o) {
    return std::array<std::int64_t, 3>{opt(o, "TILE_M"), opt(o, "TILE_N"), opt(o, "TILE_K")};
  };
  s.operand_loads = [](const KernelOptions& o, std::int64_t m, std::int64_t n, std::int64_t k) {
    return tiled_loads(m, n, k, opt(o, "TILE_M"), opt(o, "TILE_N"));
  };
}

}  // namespace clgemm::detail
