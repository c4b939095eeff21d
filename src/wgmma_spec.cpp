// The warpgroup tensor-core kernel (kernels/wgmma.cl) as data: operands packed first
// (kernels/wgmma_pack.cl), brought into local pages by bulk copies, one wgmma m64nTILE_Nk8 per
// warpgroup and 8-deep step; built through the PTX rewrite to sm_90a.
#include "kernel_spec.hpp"

namespace clgemm::detail {

namespace {
constexpr long kWarpgroupRows = 64;     // the M of every wgmma
constexpr long kWarpgroupItems = 128;   // four warps
constexpr long kWgmmaK = 8;             // the K of wgmma ... .tf32
constexpr std::size_t kLocalBudget = 44 * 1024;  // below the < 48 KiB a work-group gets on the H200
constexpr std::size_t kBarrierBytes = 8;         // one mbarrier per page

long warpgroups(const KernelOptions& o) { return opt(o, "TILE_M") / kWarpgroupRows; }

// STAGES pages, each one packed block of A (TILE_M x TILE_K floats) and of B (TILE_N x
// TILE_K), in TF32 a TILE_K-deep slice, in 3xTF32 the high and low parts of a TILE_K / 2-deep
// one (the same bytes either way), and the page's barrier.
std::size_t local_bytes(const KernelOptions& o) {
  return std::size_t(opt(o, "STAGES")) *
         (std::size_t(opt(o, "TILE_M") + opt(o, "TILE_N")) * opt(o, "TILE_K") * 4 + kBarrierBytes);
}
}  // namespace

KernelSpec wgmma_spec() {
  KernelSpec s;
  s.description = {
      "wgmma",
      "wgmma.cl",
      "TF32 and 3xTF32 on Hopper's warpgroup MMA (sm_90a, compute capability 9.0 only): A and "
      "B packed into TF32 blocks first, brought into STAGES local pages by bulk copies, one "
      "wgmma m64nTILE_Nk8 per warpgroup and step through matrix descriptors",
      {{"TILE_M", "rows of C per work-group: 64 per warpgroup (64: one, 128: two)", 64, 128,
        {64, 128}},
       {"TILE_N", "columns of C per work-group, the N of the wgmma (64, 128 or 256)", 64, 256,
        {64, 128, 256}},
       {"TILE_K",
        "floats per row of a packed block: the depth of one slice in TF32, twice it in 3xTF32 "
        "(high and low parts; 3xTF32 needs a multiple of 16)",
        8, 64, {8, 16, 32, 64}},
       {"STAGES", "local pages, slices in flight ahead of the tensor cores plus one", 2, 6,
        {2, 3, 4, 5, 6}}}};
  s.description.precisions = {Precision::TF32, Precision::TF32x3};
  s.description.needs_tensor_cores = true;
  s.description.needs_wgmma = true;
  s.entry_point = "gemm_wgmma";
  s.ptx_rewrite = PtxRewrite::Sm90a;
  s.packs_operands = true;
  auto threads = [](const KernelOptions& o) {
    return std::size_t(warpgroups(o) * kWarpgroupItems);
  };
  // A warpgroup's 64 x TILE_N accumulators over its 128 work-items (3xTF32 holds as many
  // again for the sum of each slice).
  s.outputs_per_work_item = [](const KernelOptions& o) {
    return kWarpgroupRows * opt(o, "TILE_N") / kWarpgroupItems;
  };
  s.local_memory_bytes = local_bytes;
  s.derive = [](const DeviceLimits& d) {
    // Two warpgroups of 64 x 64, slices 16 deep (8 in 3xTF32), three stages: 36 KiB of local
    // memory. On the H200 the best of the first measured variants in 3xTF32 and within 4% of
    // the best in TF32 (tools/device/h200_wgmma.sh); the tuner refines it per shape class.
    KernelOptions o{{"TILE_M", 128}, {"TILE_N", 64}, {"TILE_K", 16}, {"STAGES", 3}};
    while (local_bytes(o) > d.local_memory_bytes && o["STAGES"] > 2) --o["STAGES"];
    return o;
  };
  s.constraints = {
      {"TILE_M is 64 or 128 (one or two warpgroups of 64 rows: the work-group stays within the "
       "256 work-items the H200 allows this kernel)",
       [](const KernelOptions& o) { return opt(o, "TILE_M") == 64 || opt(o, "TILE_M") == 128; }},
      {"TILE_N is 64, 128 or 256 (m64n64k8, m64n128k8 or m64n256k8)",
       [](const KernelOptions& o) {
         const long n = opt(o, "TILE_N");
         return n == 64 || n == 128 || n == 256;
       }},
      {"TILE_K % 8 == 0 (whole steps of the wgmma's K = 8; 3xTF32 also needs TILE_K % 16 == 0)",
       [](const KernelOptions& o) { return opt(o, "TILE_K") % kWgmmaK == 0; }},
      {"STAGES >= 2 (one page multiplied while the next is copied)",
       [](const KernelOptions& o) { return opt(o, "STAGES") >= 2; }},
      {"STAGES * ((TILE_M + TILE_N) * TILE_K * 4 + 8) <= 45056 (within the < 48 KiB of local "
       "memory a work-group gets on the H200)",
       [](const KernelOptions& o) { return local_bytes(o) <= kLocalBudget; }},
  };
  set_one_dimensional_tiles(s, threads);
  return s;
}

}  // namespace clgemm::detail
