// The GEMV-like kernel, gemv, as data: SMALL rows of the short side in registers, the long
// operand streamed once by LANES x SPLIT work-items, K split inside the work-group and reduced
// in local memory; its derived parameters, launch and traffic model.
#include <algorithm>

#include "catalog/kernel_spec.hpp"

namespace clgemm::detail {

namespace {

// The kernel's view of a row-major M x N problem (kernels/gemv.cl): C is S x L with the short
// side S = min(M, N) and the long side L, the other one.
struct Sides {
  std::int64_t short_side, long_side;
};
Sides sides(std::int64_t m, std::int64_t n) {
  return m <= n ? Sides{m, n} : Sides{n, m};
}

long threads(const KernelOptions& o) {
  return opt(o, "LANES") * opt(o, "SPLIT");
}
long tile_l(const KernelOptions& o) {
  return opt(o, "LANES") * opt(o, "VEC");
}
// The partial sums of PASS_ROWS rows from every slice.
std::size_t gemv_local_bytes(const KernelOptions& o) {
  return std::size_t(opt(o, "PASS_ROWS") * opt(o, "SPLIT") * tile_l(o)) * sizeof(float);
}

}  // namespace

bool is_gemv_regime(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t max_rows) {
  const Sides c = sides(m, n);
  return c.short_side <= max_rows && c.long_side >= std::max<std::int64_t>(256, 8 * c.short_side) &&
         k >= 256;
}

bool is_long_operand_regime(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t max_rows) {
  const Sides c = sides(m, n);
  return c.short_side >= 1 && c.short_side <= max_rows && k >= 1 &&
         c.long_side >= std::max<std::int64_t>(256, 8 * c.short_side) &&
         double(c.long_side) * double(k) >= double(kGemvStreamedFloats);
}

KernelOptions gemv_overrides_for_precision(KernelOptions overrides, const KernelOptions& options,
                                           Precision precision, const DeviceLimits& device) {
  if (precision == Precision::TF32x3 && !is_cpu(device) && opt(options, "VEC") == 8)
    overrides["VEC"] = 4;
  return overrides;
}

KernelSpec gemv_spec() {
  KernelSpec s;
  s.description = {
      "gemv",
      "gemv.cl",
      "GEMV-like shapes (M or N small): the short side in registers, the large operand streamed "
      "once in coalesced vectors, K split inside the work-group and reduced in a fixed order",
      {{"SMALL",
        "rows of the short side (min(M, N)) per work-group, held as accumulators",
        1,
        65536,
        {4, 8, 16, 32}},
       {"LANES",
        "work-items along the long side, each owning VEC columns",
        1,
        65536,
        {2, 4, 8, 16, 32}},
       {"SPLIT",
        "work-items along K per work-group, their partial sums reduced in local memory",
        1,
        65536,
        {4, 8, 16, 32, 64}},
       {"VEC",
        "floats per global load of the large operand (1, 2, 4, 8 or 16)",
        1,
        65536,
        {1, 2, 4, 8}},
       {"PASS_ROWS",
        "rows of the short side whose partial sums are reduced per pass through local memory "
        "(at most SMALL)",
        1,
        65536,
        {1, 2, 4, 8, 16}},
       {"AHEAD", "blocks of VEC x VEC floats of the large operand each work-item has in flight", 1,
        4},
       {"UNROLL",
        "1: unroll the loops over the rows of accumulators fully (GPUs; PoCL takes minutes to "
        "compile it), 0: leave them to the compiler",
        0, 1}}};
  s.description.precisions = {Precision::FP32, Precision::TF32, Precision::TF32x3};
  s.entry_point = "gemm_gemv";
  s.uses_alignment_hints = true;
  s.local_memory_bytes = gemv_local_bytes;
  s.derive = [](const DeviceLimits& d) {
    KernelOptions o;
    if (is_cpu(d)) {
      // A work-group runs as a loop over its work-items: few of them, each with a long stretch
      // of K, keep the reduction short; the rows are not unrolled, which would take PoCL
      // minutes to compile (measured: docs/PERFORMANCE.md, "Design notes ... behind the kernels").
      o = {{"SMALL", 32}, {"LANES", 4}, {"SPLIT", 4}, {"VEC", 8}, {"AHEAD", 2}, {"UNROLL", 0}};
    } else {
      // GPU (the H200: warps of 32, 128-byte lines, 132 SMs, 64 Ki registers per SM): 4 lanes
      // of 8 floats read whole 128-byte lines of an l-contiguous operand, 64 slices 2 KiB runs
      // of a k-contiguous one; a group covers 32 columns, so a 4096-long side gives 128 groups
      // of 256 work-items, one per SM. GPUs run gemv for at most 8 rows
      // (src/choice/kernel_choice.cpp), so 8 rows of 8 accumulators; two 8 x 8 blocks of the
      // operand per work-item in flight (512 bytes) keep the memory busy. These are
      // clgemm-tune's winner at 8 x 4096 x 4096 on the H200 (docs/PERFORMANCE.md).
      o = {{"SMALL", 8}, {"LANES", 4}, {"SPLIT", 64}, {"VEC", 8}, {"AHEAD", 2}, {"UNROLL", 1}};
    }
    while (o["SPLIT"] > 1 && (std::size_t(threads(o)) > d.max_work_group_size ||
                              std::size_t(threads(o)) > d.max_work_item_sizes[0]))
      o["SPLIT"] /= 2;
    // One output per work-item in each pass of the reduction, fewer where local memory is short.
    o["PASS_ROWS"] = std::clamp(threads(o) / tile_l(o), 1L, o["SMALL"]);
    while (gemv_local_bytes(o) > d.local_memory_bytes && (o["PASS_ROWS"] > 1 || o["SPLIT"] > 1))
      o[o["PASS_ROWS"] > 1 ? "PASS_ROWS" : "SPLIT"] /= 2;
    return o;
  };
  s.constraints = {
      vector_width_constraint(),
      {"PASS_ROWS <= SMALL",
       [](const KernelOptions& o) { return opt(o, "PASS_ROWS") <= opt(o, "SMALL"); }},
  };
  s.outputs_per_work_item = [](const KernelOptions& o) { return opt(o, "SMALL") * opt(o, "VEC"); };
  s.work_group = [](const KernelOptions& o) {
    return std::array<std::size_t, 2>{std::size_t(threads(o)), 1};
  };
  // Dimension 0: the long side in groups of LANES * VEC columns; dimension 1: the short side
  // in groups of SMALL rows.
  s.geometry = [](const KernelOptions& o, std::int64_t m, std::int64_t n) {
    const Sides c = sides(m, n);
    const std::size_t t = std::size_t(threads(o));
    return LaunchGeometry{{groups(c.long_side, std::size_t(tile_l(o))) * t,
                           groups(c.short_side, std::size_t(opt(o, "SMALL")))},
                          {t, 1}};
  };
  // Which of M and N is the short side depends on the problem, so both get the larger block.
  s.block = [](const KernelOptions& o) {
    const std::int64_t side = std::max(opt(o, "SMALL"), tile_l(o));
    return std::array<std::int64_t, 3>{side, side, opt(o, "SPLIT") * opt(o, "VEC")};
  };
  // The long operand (K x L) once per group of SMALL rows of the short side; the short operand
  // (S x K) by every work-item that owns columns inside the long side, ceil(L / VEC) of them
  // (it is not staged in local memory: the lanes of a work-group read the same elements, which
  // caches serve, but the model counts loads as issued).
  s.operand_loads = [](const KernelOptions& o, std::int64_t m, std::int64_t n, std::int64_t k) {
    const Sides c = sides(m, n);
    const double long_operand =
        double(k) * double(c.long_side) * double(groups(c.short_side, opt(o, "SMALL")));
    const double short_operand =
        double(c.short_side) * double(k) * double(groups(c.long_side, opt(o, "VEC")));
    return long_operand + short_operand;
  };
  return s;
}

}  // namespace clgemm::detail
