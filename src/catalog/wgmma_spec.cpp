// The warpgroup tensor-core kernel (kernels/wgmma.cl) as data: operands packed first
// (kernels/wgmma_pack.cl), B (and A, unless A_REGISTERS) brought into local pages by bulk
// copies, A otherwise loaded straight into registers, packed (A_REGISTERS 1) or as the caller
// stores it (2, no pack of A); one wgmma m64nTILE_Nk8 per 64 rows of a warpgroup and 8-deep
// step; pages refilled after a work-group barrier or by the last warp done with them
// (LAST_WARP_REFILLS); built through the PTX rewrite to sm_90a.
#include <algorithm>

#include "catalog/kernel_spec.hpp"

namespace clgemm::detail {

namespace {
constexpr long kWarpgroupRows = 64;              // the M of every wgmma
constexpr long kWarpgroupItems = 128;            // four warps
constexpr long kWgmmaK = 8;                      // the K of wgmma ... .tf32
constexpr std::size_t kLocalBudget = 44 * 1024;  // below the < 48 KiB a work-group gets on the H200
constexpr std::size_t kBarrierBytes = 8;         // one mbarrier per page
constexpr long kFragmentBuffers = 3;             // slices of A held in registers (A_REGISTERS)
constexpr long kRegisterFile = 65536;            // 32-bit registers a work-group may hold
constexpr long kRegisterBudget = 192;            // accumulators and A's fragments per work-item
constexpr long kRegistersBeside = 32;            // addresses, counters, barriers' phases

// WARPGROUPS, or by default one warpgroup for 64 rows and two for 128 or 256 (each then 64 or
// 128 rows: SUBTILES wgmma per step).
long warpgroups(const KernelOptions& o) {
  const long given = opt(o, "WARPGROUPS");
  if (given != 0) return given;
  return opt(o, "TILE_M") == kWarpgroupRows ? 1 : 2;
}
long subtiles(const KernelOptions& o) {
  return opt(o, "TILE_M") / (kWarpgroupRows * warpgroups(o));
}
bool a_in_registers(const KernelOptions& o) {
  return opt(o, "A_REGISTERS") != 0;
}
long accumulators(const KernelOptions& o) {
  return subtiles(o) * kWarpgroupRows * opt(o, "TILE_N") / kWarpgroupItems;
}
// A's registers per work-item with A_REGISTERS: kFragmentBuffers slices of 4 floats per
// 64 x 8 step and part (TILE_K counts both parts).
long fragment_registers(const KernelOptions& o) {
  return a_in_registers(o) ? kFragmentBuffers * subtiles(o) * opt(o, "TILE_K") / 2 : 0;
}
// What accumulators and fragments may hold per work-item: kRegisterBudget, and with four
// warpgroups what 512 work-items leave of the register file beside the other registers
// (ptxas fits the kernel to its required size, spilling what does not fit).
long register_budget(const KernelOptions& o) {
  const long threads = warpgroups(o) * kWarpgroupItems;
  return std::min(kRegisterBudget, kRegisterFile / threads - kRegistersBeside);
}

// STAGES pages, each one packed block of B (TILE_N x TILE_K floats) and, unless A_REGISTERS,
// of A (TILE_M x TILE_K): in TF32 a TILE_K-deep slice, in 3xTF32 the high and low parts of a
// TILE_K / 2-deep one (the same bytes either way), and the page's barrier.
std::size_t wgmma_local_bytes(const KernelOptions& o) {
  const long rows = (a_in_registers(o) ? 0 : opt(o, "TILE_M")) + opt(o, "TILE_N");
  return std::size_t(opt(o, "STAGES")) * (std::size_t(rows) * opt(o, "TILE_K") * 4 + kBarrierBytes);
}
}  // namespace

KernelSpec wgmma_spec() {
  KernelSpec s;
  s.description = {
      "wgmma",
      "wgmma.cl",
      "TF32 and 3xTF32 on Hopper's warpgroup MMA (sm_90a, compute capability 9.0 only): A and "
      "B packed into TF32 blocks first, B (and A unless A_REGISTERS) brought into STAGES local "
      "pages by bulk copies, one wgmma m64nTILE_Nk8 per 64 rows and step",
      {{"TILE_M",
        "rows of C per work-group: 64, 128 or 256, shared by WARPGROUPS warpgroups",
        64,
        256,
        {64, 128, 256}},
       {"WARPGROUPS",
        "warpgroups of 128 work-items per work-group (1, 2 or 4), each owning TILE_M / "
        "WARPGROUPS rows; 0: one for TILE_M 64, two otherwise",
        0,
        4,
        {0, 1, 2, 4}},
       {"TILE_N",
        "columns of C per work-group, the N of the wgmma (64, 128, 192 or 256)",
        64,
        256,
        {64, 128, 192, 256}},
       {"TILE_K",
        "floats per row of a packed block: the depth of one slice in TF32, twice it in 3xTF32 "
        "(high and low parts; 3xTF32 needs a multiple of 16)",
        8,
        64,
        {8, 16, 24, 32, 48, 64}},
       {"STAGES",
        "local pages, slices in flight ahead of the tensor cores plus one",
        2,
        6,
        {2, 3, 4, 5, 6}},
       // 2 is not a default candidate of the tuner: it measured slower than 1 on every size
       // (docs/PERFORMANCE.md, "wgmma reading A as stored"); --space A_REGISTERS=1,2 weighs it.
       {"A_REGISTERS",
        "1: each work-item loads its fragments of A straight into registers, two slices ahead, "
        "and local memory holds B only; 2: the same from A as the caller stores it (only B is "
        "packed; A rounded or split in registers); 0: A packed and through local pages too",
        0,
        2,
        {0, 1}},
       {"LAST_WARP_REFILLS",
        "1: the last warp done with a page issues its refill, no warp waiting for another; 0: a "
        "work-group barrier per slice, then one work-item refills",
        0,
        1,
        {0, 1}}}};
  s.description.precisions = {Precision::TF32, Precision::TF32x3};
  s.description.needs_tensor_cores = true;
  s.description.needs_wgmma = true;
  s.entry_point = "gemm_wgmma";
  s.ptx_rewrite = PtxRewrite::Sm90a;
  s.packs_operands = true;
  // Split-K over the packed slices (a slice of K is whole packed blocks: TILE_K is a multiple
  // of the DEPTH of a block), the partial products beside the packs in the workspace.
  s.slices_k = true;
  s.description.host_parameters = {split_k_parameter()};
  s.reads_stored_a = [](const KernelOptions& o) { return opt(o, "A_REGISTERS") == 2; };
  auto threads = [](const KernelOptions& o) {
    return std::size_t(warpgroups(o) * kWarpgroupItems);
  };
  // A warpgroup's SUBTILES x 64 x TILE_N accumulators over its 128 work-items (3xTF32 holds
  // as many again for the sum of each slice).
  s.outputs_per_work_item = accumulators;
  s.registers_beside_outputs = fragment_registers;
  // 3xTF32 sums each slice's products from zero before adding them to the accumulators
  // (kernels/wgmma.cl): a second set as large.
  s.registers_in_precision = [](const KernelOptions& o, Precision precision) {
    return precision == Precision::TF32x3 ? accumulators(o) : 0L;
  };
  s.local_memory_bytes = wgmma_local_bytes;
  s.derive = [](const DeviceLimits& d) {
    // Two warpgroups of 64 x 64, slices 32 deep (16 in 3xTF32), A in registers, three pages of
    // B: 24 KiB of local memory. 3xTF32 adds each slice's sum into the accumulators with a
    // rounding, so deeper slices are more accurate: with slices 8 deep its error at 64 x 64 x
    // 2048 was 2.5x that of `auto`'s FP32 there (which splits K), with 16 deep 1.7x. On the H100
    // as fast, except 12% slower in TF32 at 2048^3 (measured: docs/PERFORMANCE.md, "Design notes
    // and measurements behind the kernels"); the tuner refines it per shape class.
    KernelOptions o{{"TILE_M", 128}, {"WARPGROUPS", 0},  {"TILE_N", 64},          {"TILE_K", 32},
                    {"STAGES", 3},   {"A_REGISTERS", 1}, {"LAST_WARP_REFILLS", 0}};
    while (wgmma_local_bytes(o) > d.local_memory_bytes && o["STAGES"] > 2) --o["STAGES"];
    return o;
  };
  s.constraints = {
      {"TILE_M is 64, 128 or 256",
       [](const KernelOptions& o) {
         const long m = opt(o, "TILE_M");
         return m == 64 || m == 128 || m == 256;
       }},
      {"WARPGROUPS is 0, 1, 2 or 4, and TILE_M % (64 * warpgroups) == 0 (each warpgroup owns "
       "whole blocks of 64 rows)",
       [](const KernelOptions& o) {
         const long w = opt(o, "WARPGROUPS");
         return (w == 0 || w == 1 || w == 2 || w == 4) &&
                opt(o, "TILE_M") % (kWarpgroupRows * warpgroups(o)) == 0;
       }},
      {"TILE_N is 64, 128, 192 or 256 (m64n64k8, m64n128k8, m64n192k8 or m64n256k8)",
       [](const KernelOptions& o) {
         const long n = opt(o, "TILE_N");
         return n == 64 || n == 128 || n == 192 || n == 256;
       }},
      {"TILE_K % 8 == 0 (whole steps of the wgmma's K = 8; 3xTF32 also needs TILE_K % 16 == 0)",
       [](const KernelOptions& o) { return opt(o, "TILE_K") % kWgmmaK == 0; }},
      {"TILE_M * TILE_N / (128 * warpgroups) <= 128 (accumulators per work-item)",
       [](const KernelOptions& o) { return accumulators(o) <= 128; }},
      {"accumulators + 3 * SUBTILES * TILE_K / 2 (A's three slices of fragments, with "
       "A_REGISTERS) <= 192, and <= 65536 / 512 - 32 = 96 with four warpgroups (SUBTILES = "
       "TILE_M / (64 * warpgroups))",
       [](const KernelOptions& o) {
         return accumulators(o) + fragment_registers(o) <= register_budget(o);
       }},
      {"STAGES >= 2 (one page multiplied while the next is copied)",
       [](const KernelOptions& o) { return opt(o, "STAGES") >= 2; }},
      {"STAGES * (((A_REGISTERS ? 0 : TILE_M) + TILE_N) * TILE_K * 4 + 8) <= 45056 (within the "
       "< 48 KiB of local memory a work-group gets on the H200)",
       [](const KernelOptions& o) { return wgmma_local_bytes(o) <= kLocalBudget; }},
  };
  set_one_dimensional_tiles(s, threads);
  return s;
}

}  // namespace clgemm::detail
