// The tensor-core kernel as data: warp tiles of mma.sync, cp.async pages, the swizzle's
// constraints, and the local-memory budget its derived pages fit.
#include "catalog/kernel_spec.hpp"

namespace clgemm::detail {

// The shape of the tensor-core instruction, mma.sync.m16n8k8 (MMA_M, MMA_N, MMA_K in
// kernels/ptx.clh): a warp's part of C is a grid of kMmaM x kMmaN tiles.
namespace {
constexpr long kMmaM = 16, kMmaN = 8;
}  // namespace

KernelOptions tensorcore_thin_tiles(std::int64_t rows) {
  if (rows <= kTensorCoreMinRows)
    return {{"TILE_M", 32}, {"TILE_N", 128}, {"TILE_K", 32}, {"WARP_M", 16},
            {"WARP_N", 64}, {"STAGES", 2},   {"VEC", 4}};
  return {{"TILE_M", 64}, {"TILE_N", 128}, {"TILE_K", 16}, {"WARP_M", 32},
          {"WARP_N", 64}, {"STAGES", 3},   {"VEC", 4}};
}

KernelOptions tensorcore_small_tiles() {
  return {{"TILE_M", 64}, {"TILE_N", 64}, {"TILE_K", 16}, {"WARP_M", 32},
          {"WARP_N", 32}, {"STAGES", 2},  {"VEC", 4}};
}

KernelSpec tensorcore_spec() {
  KernelSpec s;
  s.description = {"tensorcore",
                   "tensorcore.cl",
                   "TF32 and 3xTF32 on NVIDIA tensor cores: mma.sync per warp tile, cp.async "
                   "copies into STAGES local pages",
                   {{"TILE_M", "rows of C per work-group", 1, 65536, {32, 64, 128, 256}},
                    {"TILE_N", "columns of C per work-group", 1, 65536, {32, 64, 128, 256}},
                    {"TILE_K", "depth of one slice: 8, 16 or 32", 1, 65536, {8, 16, 32}},
                    {"WARP_M",
                     "rows of C per warp, a multiple of MMA_M = " + std::to_string(kMmaM) +
                         " (the M of mma.sync.m16n8k8)",
                     1,
                     65536,
                     {16, 32, 64, 128}},
                    {"WARP_N",
                     "columns of C per warp, a multiple of MMA_N = " + std::to_string(kMmaN) +
                         " (the N of mma.sync.m16n8k8)",
                     1,
                     65536,
                     {8, 16, 32, 64, 128}},
                    {"STAGES", "local pages in flight", 2, 4},
                    {"VEC", "floats per cp.async of an aligned operand (1 or 4)", 1, 4}}};
  s.description.precisions = {Precision::TF32, Precision::TF32x3};
  s.description.needs_tensor_cores = true;
  s.entry_point = "gemm_tensorcore";
  s.uses_alignment_hints = true;
  // Split-K as in blocked: for products whose tiles leave the device idle, and so that 3xTF32
  // sums long K in slices, as FP32 does there.
  s.slices_k = true;
  s.description.host_parameters = {split_k_parameter(), align_copy_parameter()};
  auto threads = [](const KernelOptions& o) {
    return std::size_t(opt(o, "TILE_M") / opt(o, "WARP_M") * (opt(o, "TILE_N") / opt(o, "WARP_N")) *
                       32);
  };
  // A warp's WARP_M x WARP_N accumulators, spread over its 32 lanes.
  s.outputs_per_work_item = [](const KernelOptions& o) {
    return opt(o, "WARP_M") * opt(o, "WARP_N") / 32;
  };
  s.local_memory_bytes = [](const KernelOptions& o) {
    return std::size_t(opt(o, "STAGES") * (opt(o, "TILE_M") + opt(o, "TILE_N")) * opt(o, "TILE_K") *
                       4);
  };
  s.derive = [lm = s.local_memory_bytes](const DeviceLimits& d) {
    // 4 warps of 64 x 64 over 128 x 128 tiles, 16 deep, three pages: 48 KiB of local memory.
    KernelOptions o{{"TILE_M", 128}, {"TILE_N", 128}, {"TILE_K", 16}, {"WARP_M", 64},
                    {"WARP_N", 64},  {"STAGES", 3},   {"VEC", 4}};
    while (lm(o) > d.local_memory_bytes && o["STAGES"] > 2) --o["STAGES"];
    if (lm(o) > d.local_memory_bytes) o["TILE_K"] = 8;
    return o;
  };
  s.constraints = {
      {"TILE_K is 8, 16 or 32 (the swizzle of the pages)",
       [](const KernelOptions& o) {
         const long k = opt(o, "TILE_K");
         return k == 8 || k == 16 || k == 32;
       }},
      {"TILE_M % 32 == 0 and TILE_N % 32 == 0 (the swizzle of the pages)",
       [](const KernelOptions& o) {
         return opt(o, "TILE_M") % 32 == 0 && opt(o, "TILE_N") % 32 == 0;
       }},
      {"WARP_M % MMA_M == 0 (MMA_M = " + std::to_string(kMmaM) + ", the M of mma.sync.m16n8k8)",
       [](const KernelOptions& o) { return opt(o, "WARP_M") % kMmaM == 0; }},
      {"WARP_N % MMA_N == 0 (MMA_N = " + std::to_string(kMmaN) + ", the N of mma.sync.m16n8k8)",
       [](const KernelOptions& o) { return opt(o, "WARP_N") % kMmaN == 0; }},
      {"TILE_M % WARP_M == 0",
       [](const KernelOptions& o) { return opt(o, "TILE_M") % opt(o, "WARP_M") == 0; }},
      {"TILE_N % WARP_N == 0",
       [](const KernelOptions& o) { return opt(o, "TILE_N") % opt(o, "WARP_N") == 0; }},
      {"VEC is 1 or 4",
       [](const KernelOptions& o) { return opt(o, "VEC") == 1 || opt(o, "VEC") == 4; }},
  };
  set_one_dimensional_tiles(s, threads);
  return s;
}

}  // namespace clgemm::detail
