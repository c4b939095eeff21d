// The warpgroup tensor-core kernel (kernels/wgmma.cl) as data: one wgmma m64nTILE_Nk8 per
// warpgroup and 8-deep step, both operands from local pages through descriptors, built
// through the PTX rewrite to sm_90a.
#include "kernel_spec.hpp"

namespace clgemm::detail {

namespace {
constexpr long kWarpgroupRows = 64;     // the M of every wgmma
constexpr long kWarpgroupItems = 128;   // four warps
constexpr long kWgmmaK = 8;             // the K of wgmma ... .tf32
constexpr std::size_t kLocalBudget = 40 * 1024;  // below the < 48 KiB a work-group gets on the H200

long warpgroups(const KernelOptions& o) { return opt(o, "TILE_M") / kWarpgroupRows; }

// STAGES pages of TILE_K floats per row of A and B: in TF32 one TILE_K-deep slice each, in
// 3xTF32 the high and the low parts of a TILE_K / 2-deep slice (the same bytes either way).
std::size_t local_bytes(const KernelOptions& o) {
  return std::size_t(opt(o, "STAGES") * (opt(o, "TILE_M") + opt(o, "TILE_N")) *
                     opt(o, "TILE_K") * 4);
}
}  // namespace

KernelSpec wgmma_spec() {
  KernelSpec s;
  s.description = {
      "wgmma",
      "wgmma.cl",
      "TF32 and 3xTF32 on Hopper's warpgroup MMA (sm_90a, compute capability 9.0 only): one "
      "wgmma m64nTILE_Nk8 per warpgroup and step, A and B from local pages through matrix "
      "descriptors",
      {{"TILE_M", "rows of C per work-group: 64 per warpgroup (64: one, 128: two)", 64, 128,
        {64, 128}},
       {"TILE_N", "columns of C per work-group, the N of the wgmma (64 or 128)", 64, 128,
        {64, 128}},
       {"TILE_K",
        "floats of K per page row, a multiple of 16: the depth of one slice in TF32, twice it "
        "in 3xTF32 (high and low pages)",
        16, 64, {16, 32, 64}},
       {"STAGES",
        "local pages (TF32: up to STAGES - 1 slices' wgmma in flight; 3xTF32 waits for each "
        "slice)",
        2, 4, {2, 3, 4}}}};
  s.description.precisions = {Precision::TF32, Precision::TF32x3};
  s.description.needs_tensor_cores = true;
  s.description.needs_wgmma = true;
  s.entry_point = "gemm_wgmma";
  s.ptx_rewrite = PtxRewrite::Sm90a;
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
    // Two warpgroups of 64 x 128, slices 16 deep (8 in 3xTF32), two stages: 32 KiB of local
    // memory. Unmeasured: a first guess until the tuner has run on the H200.
    KernelOptions o{{"TILE_M", 128}, {"TILE_N", 128}, {"TILE_K", 16}, {"STAGES", 2}};
    if (local_bytes(o) > d.local_memory_bytes) o["TILE_N"] = 64;
    return o;
  };
  s.constraints = {
      {"TILE_M is 64 or 128 (one or two warpgroups of 64 rows)",
       [](const KernelOptions& o) { return opt(o, "TILE_M") == 64 || opt(o, "TILE_M") == 128; }},
      {"TILE_N is 64 or 128 (m64n64k8 or m64n128k8; n256 spills registers)",
       [](const KernelOptions& o) { return opt(o, "TILE_N") == 64 || opt(o, "TILE_N") == 128; }},
      {"TILE_K % 16 == 0 (3xTF32's slices, TILE_K / 2 deep, are whole steps of the wgmma's K "
       "= 8)",
       [](const KernelOptions& o) { return opt(o, "TILE_K") % (2 * kWgmmaK) == 0; }},
      {"STAGES * (TILE_M + TILE_N) * TILE_K * 4 <= 40960 (within the < 48 KiB of local memory "
       "a work-group gets on the H200)",
       [](const KernelOptions& o) { return local_bytes(o) <= kLocalBudget; }},
  };
  set_one_dimensional_tiles(s, threads);
  return s;
}

}  // namespace clgemm::detail
