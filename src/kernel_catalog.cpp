// The ladder of kernels as data: for each one, its parameters, how they are derived from the
// device limits, the constraints they must satisfy, the launch geometry and the traffic model
// (global loads per kernel). Also the public functions that resolve, validate and format kernel
// options and that evaluate the traffic model.
#include <algorithm>
#include <sstream>

#include "clgemm/errors.hpp"
#include "kernel_spec.hpp"
#include "error_boundary.hpp"

namespace clgemm::detail {
namespace {

std::size_t round_up(std::int64_t value, std::size_t multiple) {
  const auto v = static_cast<std::size_t>(value);
  return (v + multiple - 1) / multiple * multiple;
}

std::size_t groups(std::int64_t extent, std::size_t per_group) {
  return (static_cast<std::size_t>(extent) + per_group - 1) / per_group;
}

// Floats of A and B loaded by a grid of tile_m x tile_n work-group tiles that each read their
// rows of A and columns of B over all of K once: A is read once per column of groups, B once
// per row of groups (edge groups load only what lies inside the matrix).
double tiled_loads(std::int64_t m, std::int64_t n, std::int64_t k, long tile_m, long tile_n) {
  return double(m) * double(k) * double(groups(n, tile_n)) +
         double(k) * double(n) * double(groups(m, tile_m));
}

// Largest power of two p <= cap with p * p <= budget.
long square_power_of_two(std::size_t budget, long cap) {
  long p = 1;
  while (p * 2 <= cap && std::size_t(p * 2) * std::size_t(p * 2) <= budget) p *= 2;
  return p;
}

bool is_power_of_two(long v) {
  return v > 0 && (v & (v - 1)) == 0;
}

long opt(const KernelOptions& o, const char* name) {
  return o.at(name);
}

// GPUs are capped at 32 x 32 = 1024 work-items per group: more never pays for these shapes.
// A CPU (PoCL reports 4096) runs a work-group as a loop, so the group shape matters for
// cache reuse and vectorisation, not occupancy; its caps below were measured with PoCL.
bool is_cpu(const DeviceLimits& d) {
  return d.type == DeviceType::CPU;
}

KernelSpec base_spec() {
  KernelSpec s;
  s.description = {
      "base",
      "base.cl",
      "one work-item per element of C, operands from global memory",
      {{"WG_X", "work-group width (columns of C)"}, {"WG_Y", "work-group height (rows of C)"}}};
  s.entry_point = "gemm_base";
  s.derive = [](const DeviceLimits& d) {
    const long side = square_power_of_two(d.max_work_group_size, 16);
    return KernelOptions{{"WG_X", side}, {"WG_Y", side}};
  };
  s.work_group = [](const KernelOptions& o) {
    return std::array<std::size_t, 2>{std::size_t(opt(o, "WG_X")), std::size_t(opt(o, "WG_Y"))};
  };
  s.local_memory_bytes = [](const KernelOptions&) { return std::size_t(0); };
  s.geometry = [](const KernelOptions& o, std::int64_t m, std::int64_t n) {
    const std::size_t x = opt(o, "WG_X"), y = opt(o, "WG_Y");
    return LaunchGeometry{{round_up(n, x), round_up(m, y)}, {x, y}};
  };
  s.block = [](const KernelOptions& o) {
    return std::array<std::int64_t, 3>{opt(o, "WG_Y"), opt(o, "WG_X"), 1};
  };
  // Each work-item reads its row of A and column of B: 2*M*N*K floats, no reuse.
  s.operand_loads = [](const KernelOptions&, std::int64_t m, std::int64_t n, std::int64_t k) {
    return 2.0 * double(m) * double(n) * double(k);
  };
  return s;
}

// row and private share their launch: a 1-D range of WG work-items per group, one per row.
KernelSpec row_like_spec(KernelDescription description, std::string entry_point) {
  KernelSpec s;
  s.description = std::move(description);
  s.entry_point = std::move(entry_point);
  s.work_group = [](const KernelOptions& o) {
    return std::array<std::size_t, 2>{std::size_t(opt(o, "WG")), 1};
  };
  s.local_memory_bytes = [](const KernelOptions&) { return std::size_t(0); };
  s.geometry = [](const KernelOptions& o, std::int64_t m, std::int64_t) {
    const std::size_t wg = opt(o, "WG");
    return LaunchGeometry{{round_up(m, wg), 1}, {wg, 1}};
  };
  s.block = [](const KernelOptions& o) {  // each work-item loops over all of N and K
    return std::array<std::int64_t, 3>{opt(o, "WG"), 1, o.count("PRIVATE_K") ? opt(o, "PRIVATE_K") : 1};
  };
  return s;
}

long row_work_group(const DeviceLimits& d) {
  return long(std::min<std::size_t>(64, d.max_work_group_size));
}

KernelSpec row_spec() {
  KernelSpec s = row_like_spec(
      {"row", "row.cl", "one work-item per row of C", {{"WG", "work-items per work-group"}}},
      "gemm_row");
  s.derive = [](const DeviceLimits& d) { return KernelOptions{{"WG", row_work_group(d)}}; };
  // Per row, N columns of B, with the row of A read again for each column: 2*M*N*K floats.
  s.operand_loads = [](const KernelOptions&, std::int64_t m, std::int64_t n, std::int64_t k) {
    return 2.0 * double(m) * double(n) * double(k);
  };
  return s;
}

KernelSpec private_spec() {
  KernelSpec s =
      row_like_spec({"private",
                     "private.cl",
                     "one work-item per row of C, its row of A in private memory",
                     {{"WG", "work-items per work-group"},
                      {"PRIVATE_K", "elements of A's row staged in private memory at once"}}},
                    "gemm_private");
  s.derive = [](const DeviceLimits& d) {
    return KernelOptions{{"WG", row_work_group(d)}, {"PRIVATE_K", 256}};
  };
  s.constraints = {
      {"PRIVATE_K <= 4096", [](const KernelOptions& o) { return opt(o, "PRIVATE_K") <= 4096; }}};
  // The row of A once per row (staged in private memory), a column of B per element of C.
  s.operand_loads = [](const KernelOptions&, std::int64_t m, std::int64_t n, std::int64_t k) {
    return double(m) * double(k) + double(m) * double(n) * double(k);
  };
  return s;
}

KernelSpec tile_spec() {
  KernelSpec s;
  s.description = {"tile",
                   "tile.cl",
                   "TILE x TILE tiles of A and B staged in local memory",
                   {{"TILE", "tile edge; the work-group is TILE x TILE work-items"}}};
  s.entry_point = "gemm_tile";
  s.derive = [](const DeviceLimits& d) {
    const long cap = is_cpu(d) ? 16 : 32;
    long tile = square_power_of_two(d.max_work_group_size, cap);
    while (tile > 1 && std::size_t(2 * tile * tile * 4) > d.local_memory_bytes) tile /= 2;
    return KernelOptions{{"TILE", tile}};
  };
  s.work_group = [](const KernelOptions& o) {
    return std::array<std::size_t, 2>{std::size_t(opt(o, "TILE")), std::size_t(opt(o, "TILE"))};
  };
  s.local_memory_bytes = [](const KernelOptions& o) {
    return std::size_t(2 * opt(o, "TILE") * opt(o, "TILE") * 4);
  };
  s.geometry = [](const KernelOptions& o, std::int64_t m, std::int64_t n) {
    const std::size_t t = opt(o, "TILE");
    return LaunchGeometry{{round_up(n, t), round_up(m, t)}, {t, t}};
  };
  s.block = [](const KernelOptions& o) {
    const std::int64_t t = opt(o, "TILE");
    return std::array<std::int64_t, 3>{t, t, t};
  };
  // (M/T)(N/T) groups, each reading T*K of A and K*T of B: M*N*K*(2/T) floats.
  s.operand_loads = [](const KernelOptions& o, std::int64_t m, std::int64_t n, std::int64_t k) {
    return tiled_loads(m, n, k, opt(o, "TILE"), opt(o, "TILE"));
  };
  return s;
}

KernelSpec coarsened_spec() {
  KernelSpec s;
  s.description = {"coarsened",
                   "coarsened.cl",
                   "ITEM x ITEM outputs per work-item as a sum of outer products in registers",
                   {{"TILE", "edge of the block of C per work-group, and the K step"},
                    {"ITEM", "edge of the block of C per work-item"}}};
  s.entry_point = "gemm_coarsened";
  s.local_memory_bytes = [](const KernelOptions& o) {
    const std::size_t t = opt(o, "TILE");
    return 2 * t * (t + 1) * 4;  // two padded TILE x (TILE + 1) tiles
  };
  s.derive = [lm = s.local_memory_bytes](const DeviceLimits& d) {
    // PoCL runs a work-group as a loop over its work-items: few work-items with large blocks
    // vectorise best (n = 1024: 15.7 GFLOP/s with 8 x 8 per work-item, 9.6 with 4 x 4).
    const long item = is_cpu(d) ? 8 : 4;
    long tile = is_cpu(d) ? 64 : item * square_power_of_two(d.max_work_group_size, 16);
    while (tile > item && lm({{"TILE", tile}, {"ITEM", item}}) > d.local_memory_bytes) tile /= 2;
    return KernelOptions{{"TILE", tile}, {"ITEM", item}};
  };
  s.constraints = {{"TILE % ITEM == 0",
                    [](const KernelOptions& o) { return opt(o, "TILE") % opt(o, "ITEM") == 0; }}};
  s.work_group = [](const KernelOptions& o) {
    const std::size_t wg = opt(o, "TILE") / opt(o, "ITEM");
    return std::array<std::size_t, 2>{wg, wg};
  };
  s.geometry = [wgf = s.work_group](const KernelOptions& o, std::int64_t m, std::int64_t n) {
    const auto wg = wgf(o);
    const std::size_t t = opt(o, "TILE");
    return LaunchGeometry{{groups(n, t) * wg[0], groups(m, t) * wg[1]}, wg};
  };
  s.block = [](const KernelOptions& o) {
    const std::int64_t t = opt(o, "TILE");
    return std::array<std::int64_t, 3>{t, t, t};
  };
  // As tile, with the work-group's TILE x TILE block of C: M*N*K*(2/TILE) floats.
  s.operand_loads = [](const KernelOptions& o, std::int64_t m, std::int64_t n, std::int64_t k) {
    return tiled_loads(m, n, k, opt(o, "TILE"), opt(o, "TILE"));
  };
  return s;
}

// vectorized and blocked share their parameters, launch and most constraints: rectangular
// work-group tiles, ITEM_M x ITEM_N per work-item, VEC-wide loads, two local pages.
KernelSpec vector_tile_spec(std::string name, std::string summary) {
  KernelSpec s;
  s.description = {name,
                   name + ".cl",
                   std::move(summary),
                   {{"TILE_M", "rows of C per work-group"},
                    {"TILE_N", "columns of C per work-group"},
                    {"TILE_K", "depth of one K step"},
                    {"ITEM_M", "rows of C per work-item"},
                    {"ITEM_N", "columns of C per work-item"},
                    {"VEC", "floats per global load (1, 2, 4, 8 or 16)"}}};
  s.entry_point = "gemm_" + name;
  s.uses_alignment_hints = true;
  s.work_group = [](const KernelOptions& o) {
    return std::array<std::size_t, 2>{std::size_t(opt(o, "TILE_N") / opt(o, "ITEM_N")),
                                      std::size_t(opt(o, "TILE_M") / opt(o, "ITEM_M"))};
  };
  s.local_memory_bytes = [](const KernelOptions& o) {
    return std::size_t(2 * opt(o, "TILE_K") * (opt(o, "TILE_M") + opt(o, "TILE_N")) * 4);
  };
  s.derive = [](const DeviceLimits& d) {
    KernelOptions o{{"TILE_K", 16}, {"VEC", 4}};
    if (is_cpu(d)) {
      // 8 work-items of 16 x 32 outputs, float8 loads: 39 GFLOP/s at n = 1024 on the 2-core
      // PoCL machine, against 7.5 with the GPU-style 16 x 16 work-items of 4 x 4.
      o.insert({{"TILE_M", 64}, {"TILE_N", 128}, {"ITEM_M", 16}, {"ITEM_N", 32}});
      o["VEC"] = 8;
    } else if (d.max_work_group_size >= 256 && d.local_memory_bytes >= 32 * 1024) {
      o.insert({{"TILE_M", 128}, {"TILE_N", 128}, {"ITEM_M", 8}, {"ITEM_N", 8}});
    } else {
      // 8 x 8 work-items of 4 x 4 outputs: fits any device with 64 work-items and 8 KiB.
      o.insert({{"TILE_M", 32}, {"TILE_N", 32}, {"ITEM_M", 4}, {"ITEM_N", 4}});
    }
    return o;
  };
  auto threads = [wgf = s.work_group](const KernelOptions& o) {
    const auto wg = wgf(o);
    return long(wg[0] * wg[1]);
  };
  s.constraints = {
      {"VEC is 1, 2, 4, 8 or 16",
       [](const KernelOptions& o) {
         const long v = opt(o, "VEC");
         return is_power_of_two(v) && v <= 16;
       }},
      {"TILE_M % ITEM_M == 0",
       [](const KernelOptions& o) { return opt(o, "TILE_M") % opt(o, "ITEM_M") == 0; }},
      {"TILE_N % ITEM_N == 0",
       [](const KernelOptions& o) { return opt(o, "TILE_N") % opt(o, "ITEM_N") == 0; }},
      {"TILE_K % VEC == 0",
       [](const KernelOptions& o) { return opt(o, "TILE_K") % opt(o, "VEC") == 0; }},
      {"TILE_N % VEC == 0",
       [](const KernelOptions& o) { return opt(o, "TILE_N") % opt(o, "VEC") == 0; }},
      {"TILE_M % VEC == 0 (a transposed A is loaded in vectors along M)",
       [](const KernelOptions& o) { return opt(o, "TILE_M") % opt(o, "VEC") == 0; }},
      {"(TILE_M * TILE_K / VEC) % work-items == 0 (each work-item loads whole vectors of A)",
       [threads](const KernelOptions& o) {
         return (opt(o, "TILE_M") * opt(o, "TILE_K") / opt(o, "VEC")) % threads(o) == 0;
       }},
      {"(TILE_K * TILE_N / VEC) % work-items == 0 (each work-item loads whole vectors of B)",
       [threads](const KernelOptions& o) {
         return (opt(o, "TILE_K") * opt(o, "TILE_N") / opt(o, "VEC")) % threads(o) == 0;
       }},
  };
  s.geometry = [wgf = s.work_group](const KernelOptions& o, std::int64_t m, std::int64_t n) {
    const auto wg = wgf(o);
    return LaunchGeometry{
        {groups(n, opt(o, "TILE_N")) * wg[0], groups(m, opt(o, "TILE_M")) * wg[1]}, wg};
  };
  s.block = [](const KernelOptions& o) {
    return std::array<std::int64_t, 3>{opt(o, "TILE_M"), opt(o, "TILE_N"), opt(o, "TILE_K")};
  };
  // TILE_M x TILE_N groups: M*N*K*(1/TILE_N + 1/TILE_M) floats.
  s.operand_loads = [](const KernelOptions& o, std::int64_t m, std::int64_t n, std::int64_t k) {
    return tiled_loads(m, n, k, opt(o, "TILE_M"), opt(o, "TILE_N"));
  };
  return s;
}

KernelSpec vectorized_spec() {
  return vector_tile_spec("vectorized",
                          "rectangular tiles, ITEM_M x ITEM_N per work-item, vector loads, "
                          "double-buffered local memory");
}

KernelSpec blocked_spec() {
  KernelSpec s = vector_tile_spec(
      "blocked",
      "the production kernel: vectorized's tiles with each work-item owning 4-wide groups of "
      "rows and columns, read from local memory as float4");
  s.description.parameters.push_back(
      {"UNROLL", "1: unroll the register-block loops fully (GPUs), 0: leave it to the compiler", 0,
       1});
  s.derive = [vectorized_derive = s.derive](const DeviceLimits& d) {
    KernelOptions o;
    if (is_cpu(d)) {
      // 64 work-items of 8 x 16 outputs: 27 GFLOP/s at n = 1024 on the loaded 2-core PoCL
      // machine, compiled in 7 s. vectorized's 16 x 32 blocks ran at 12 here and take 30 s
      // to compile unrolled; not unrolling them costs more than half the speed.
      o = {{"TILE_M", 64}, {"TILE_N", 128}, {"TILE_K", 16},
           {"ITEM_M", 8},  {"ITEM_N", 16},  {"VEC", 8}};
    } else if (d.max_work_group_size < 256 || d.local_memory_bytes < 32 * 1024) {
      o = vectorized_derive(d);
    } else {
      // 256 work-items of 16 x 8 outputs over 128 x 256 tiles, 8 deep (24 KiB of local
      // memory): on the H200 46.7 TFLOP/s at n = 4096, against 39.1 with vectorized's
      // 128 x 128 x 16 of 8 x 8 (docs/measurements/h200-blocked-variants-*.txt).
      o = {{"TILE_M", 128}, {"TILE_N", 256}, {"TILE_K", 8},
           {"ITEM_M", 16},  {"ITEM_N", 8},   {"VEC", 4}};
    }
    o["UNROLL"] = 1;
    return o;
  };
  s.description.precisions = {Precision::FP32, Precision::TF32, Precision::TF32x3};
  s.constraints.push_back({"ITEM_M % 4 == 0 (rows are read from local memory as float4)",
                           [](const KernelOptions& o) { return opt(o, "ITEM_M") % 4 == 0; }});
  s.constraints.push_back({"ITEM_N % 4 == 0 (columns are read from local memory as float4)",
                           [](const KernelOptions& o) { return opt(o, "ITEM_N") % 4 == 0; }});
  return s;
}

// The shape of the tensor-core instruction, mma.sync.m16n8k8 (MMA_M, MMA_N, MMA_K in
// kernels/ptx.clh): a warp's part of C is a grid of kMmaM x kMmaN tiles.
constexpr long kMmaM = 16, kMmaN = 8;

KernelSpec tensorcore_spec() {
  KernelSpec s;
  s.description = {
      "tensorcore",
      "tensorcore.cl",
      "TF32 and 3xTF32 on NVIDIA tensor cores: mma.sync per warp tile, cp.async "
      "copies into STAGES local pages",
      {{"TILE_M", "rows of C per work-group"},
       {"TILE_N", "columns of C per work-group"},
       {"TILE_K", "depth of one slice: 8, 16 or 32"},
       {"WARP_M", "rows of C per warp, a multiple of MMA_M = " + std::to_string(kMmaM) +
                      " (the M of mma.sync.m16n8k8)"},
       {"WARP_N", "columns of C per warp, a multiple of MMA_N = " + std::to_string(kMmaN) +
                      " (the N of mma.sync.m16n8k8)"},
       {"STAGES", "local pages in flight", 2, 4},
       {"VEC", "floats per cp.async of an aligned operand (1 or 4)", 1, 4}}};
  s.description.precisions = {Precision::TF32, Precision::TF32x3};
  s.description.needs_tensor_cores = true;
  s.entry_point = "gemm_tensorcore";
  s.uses_alignment_hints = true;
  auto threads = [](const KernelOptions& o) {
    return std::size_t(opt(o, "TILE_M") / opt(o, "WARP_M") * (opt(o, "TILE_N") / opt(o, "WARP_N")) *
                       32);
  };
  s.work_group = [threads](const KernelOptions& o) {
    return std::array<std::size_t, 2>{threads(o), 1};
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
  return s;
}

}  // namespace

const std::vector<KernelSpec>& kernel_specs() {
  // The ladder in order, then the production kernels.
  static const std::vector<KernelSpec> specs = {base_spec(),    row_spec(),       private_spec(),
                                                tile_spec(),    coarsened_spec(), vectorized_spec(),
                                                blocked_spec(), tensorcore_spec()};
  return specs;
}

const KernelSpec& find_spec(const std::string& name) {
  for (const auto& spec : kernel_specs())
    if (spec.description.name == name) return spec;
  std::string names;
  for (const auto& spec : kernel_specs())
    names += (names.empty() ? "" : ", ") + spec.description.name;
  throw Error(ErrorCode::UnknownKernel,
              "unknown kernel '" + name + "'; valid kernels are: " + names);
}

}  // namespace clgemm::detail

namespace clgemm {

const std::vector<KernelDescription>& kernel_catalog() {
  static const std::vector<KernelDescription> catalog = [] {
    std::vector<KernelDescription> out;
    for (const auto& spec : detail::kernel_specs()) out.push_back(spec.description);
    return out;
  }();
  return catalog;
}

const KernelDescription& find_kernel(const std::string& name) {
  return detail::find_spec(name).description;
}

namespace {

// The spec of `kernel`, with every one of its parameters present in `options`.
const detail::KernelSpec& spec_with_options(const std::string& kernel, const KernelOptions& options) {
  const auto& spec = detail::find_spec(kernel);
  for (const auto& parameter : spec.description.parameters)
    if (!options.count(parameter.name))
      throw Error(ErrorCode::InvalidOption,
                  "kernel '" + kernel + "' needs parameter " + parameter.name + " (options: '" +
                      format_build_options(options) + "')",
                  Argument::Kernel);
  return spec;
}

}  // namespace

std::array<std::size_t, 2> kernel_work_group(const std::string& kernel,
                                             const KernelOptions& options) try {
  return spec_with_options(kernel, options).work_group(options);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

std::size_t kernel_local_memory_bytes(const std::string& kernel, const KernelOptions& options) try {
  return spec_with_options(kernel, options).local_memory_bytes(options);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

std::array<std::int64_t, 3> kernel_block(const std::string& kernel,
                                         const KernelOptions& options) try {
  return spec_with_options(kernel, options).block(options);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

KernelOptions derive_options(const std::string& kernel, const DeviceLimits& limits) try {
  return detail::find_spec(kernel).derive(limits);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

void validate_options(const std::string& kernel, const KernelOptions& options,
                      const DeviceLimits& limits) try {
  const auto& spec = detail::find_spec(kernel);
  auto fail = [&](const std::string& what) {
    throw Error(ErrorCode::InvalidOption, "invalid options for kernel '" + kernel + "' (" +
                                              format_build_options(options) + "): " + what);
  };
  for (const auto& parameter : spec.description.parameters) {
    const auto it = options.find(parameter.name);
    if (it == options.end()) fail("missing parameter " + parameter.name);
    if (it->second < parameter.minimum || it->second > parameter.maximum)
      fail(parameter.name + " = " + std::to_string(it->second) + " is outside " +
           std::to_string(parameter.minimum) + ".." + std::to_string(parameter.maximum));
  }
  for (const auto& constraint : spec.constraints)
    if (!constraint.holds(options)) fail("constraint violated: " + constraint.text);

  const auto wg = spec.work_group(options);
  const std::size_t items = wg[0] * wg[1];
  for (int dim = 0; dim < 2; ++dim)
    if (wg[dim] > limits.max_work_item_sizes[dim])
      fail("work-group dimension " + std::to_string(dim) + " is " + std::to_string(wg[dim]) +
           " work-items, above CL_DEVICE_MAX_WORK_ITEM_SIZES[" + std::to_string(dim) +
           "] = " + std::to_string(limits.max_work_item_sizes[dim]));
  if (items > limits.max_work_group_size)
    fail("work-group of " + std::to_string(wg[0]) + " x " + std::to_string(wg[1]) + " = " +
         std::to_string(items) + " work-items exceeds CL_DEVICE_MAX_WORK_GROUP_SIZE = " +
         std::to_string(limits.max_work_group_size));
  const std::size_t local = spec.local_memory_bytes(options);
  if (local > limits.local_memory_bytes)
    fail("needs " + std::to_string(local) + " bytes of local memory, above " +
         "CL_DEVICE_LOCAL_MEM_SIZE = " + std::to_string(limits.local_memory_bytes));
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

KernelOptions resolve_options(const std::string& kernel, const DeviceLimits& limits,
                              const KernelOptions& overrides) try {
  const auto& spec = detail::find_spec(kernel);
  KernelOptions options = spec.derive(limits);
  for (const auto& [name, value] : overrides) {
    if (!options.count(name)) {
      std::string valid;
      for (const auto& p : spec.description.parameters)
        valid += (valid.empty() ? "" : ", ") + p.name;
      throw Error(ErrorCode::InvalidOption, "kernel '" + kernel + "' has no parameter '" + name +
                                                "'; its parameters are: " + valid);
    }
    options[name] = value;
  }
  validate_options(kernel, options, limits);
  return options;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

std::string format_build_options(const KernelOptions& options) {
  std::ostringstream out;
  for (const auto& [name, value] : options)
    out << (out.tellp() > 0 ? " " : "") << "-D " << name << "=" << value;
  return out.str();
}

double global_traffic_bytes(const std::string& kernel, const KernelOptions& options, std::int64_t m,
                            std::int64_t n, std::int64_t k, bool reads_c) try {
  const auto& spec = detail::find_spec(kernel);
  const double c = double(m) * double(n) * (reads_c ? 2.0 : 1.0);
  return 4.0 * (spec.operand_loads(options, m, n, k) + c);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

double arithmetic_intensity(const std::string& kernel, const KernelOptions& options, std::int64_t m,
                            std::int64_t n, std::int64_t k, bool reads_c) try {
  return 2.0 * double(m) * double(n) * double(k) /
         global_traffic_bytes(kernel, options, m, n, k, reads_c);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace clgemm
