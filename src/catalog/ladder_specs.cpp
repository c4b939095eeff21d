// The teaching ladder as data: base, row, private, tile, coarsened and vectorized, each with
// its parameters, how they are derived from the device limits, their constraints, the launch
// geometry and the traffic model.
#include "catalog/kernel_spec.hpp"

namespace clgemm::detail {

namespace {
long row_work_group(const DeviceLimits& d) {
  return long(std::min<std::size_t>(64, d.max_work_group_size));
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
    return std::array<std::int64_t, 3>{opt(o, "WG"), 1,
                                       o.count("PRIVATE_K") ? opt(o, "PRIVATE_K") : 1};
  };
  return s;
}

}  // namespace

KernelSpec base_spec() {
  KernelSpec s;
  s.description = {"base",
                   "base.cl",
                   "one work-item per element of C, operands from global memory",
                   {{"WG_X", "work-group width (columns of C)", 1, 65536, {1, 2, 4, 8, 16, 32, 64}},
                    {"WG_Y", "work-group height (rows of C)", 1, 65536, {1, 2, 4, 8, 16, 32, 64}}}};
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

KernelSpec row_spec() {
  KernelSpec s =
      row_like_spec({"row",
                     "row.cl",
                     "one work-item per row of C",
                     {{"WG", "work-items per work-group", 1, 65536, {8, 16, 32, 64, 128, 256}}}},
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
                     {{"WG", "work-items per work-group", 1, 65536, {8, 16, 32, 64, 128, 256}},
                      {"PRIVATE_K",
                       "elements of A's row staged in private memory at once",
                       1,
                       65536,
                       {32, 64, 128, 256, 512, 1024}}}},
                    "gemm_private");
  s.derive = [](const DeviceLimits& d) {
    return KernelOptions{{"WG", row_work_group(d)}, {"PRIVATE_K", 256}};
  };
  s.registers_beside_outputs = [](const KernelOptions& o) { return opt(o, "PRIVATE_K"); };
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
  s.description = {
      "tile",
      "tile.cl",
      "TILE x TILE tiles of A and B staged in local memory",
      {{"TILE", "tile edge; the work-group is TILE x TILE work-items", 1, 65536, {4, 8, 16, 32}}}};
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
                   {{"TILE",
                     "edge of the block of C per work-group, and the K step",
                     1,
                     65536,
                     {16, 32, 64, 128}},
                    {"ITEM", "edge of the block of C per work-item", 1, 65536, {2, 4, 8, 16}}}};
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
  s.outputs_per_work_item = [](const KernelOptions& o) { return opt(o, "ITEM") * opt(o, "ITEM"); };
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
  s.registers_beside_outputs = one_staged_page(s);  // the next tile of A and B
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
                   {{"TILE_M", "rows of C per work-group", 1, 65536, {16, 32, 64, 128, 256}},
                    {"TILE_N", "columns of C per work-group", 1, 65536, {16, 32, 64, 128, 256}},
                    {"TILE_K", "depth of one K step", 1, 65536, {4, 8, 16, 32}},
                    {"ITEM_M", "rows of C per work-item", 1, 65536, {2, 4, 8, 16, 32}},
                    {"ITEM_N", "columns of C per work-item", 1, 65536, {2, 4, 8, 16, 32}},
                    {"VEC", "floats per global load (1, 2, 4, 8 or 16)", 1, 65536, {1, 2, 4, 8}}}};
  s.entry_point = "gemm_" + name;
  s.uses_alignment_hints = true;
  s.outputs_per_work_item = [](const KernelOptions& o) {
    return opt(o, "ITEM_M") * opt(o, "ITEM_N");
  };
  s.work_group = [](const KernelOptions& o) {
    return std::array<std::size_t, 2>{std::size_t(opt(o, "TILE_N") / opt(o, "ITEM_N")),
                                      std::size_t(opt(o, "TILE_M") / opt(o, "ITEM_M"))};
  };
  s.local_memory_bytes = [](const KernelOptions& o) {
    return std::size_t(2 * opt(o, "TILE_K") * (opt(o, "TILE_M") + opt(o, "TILE_N")) * 4);
  };
  s.registers_beside_outputs = one_staged_page(s);  // the next slice of A and B
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
      vector_width_constraint(),
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
  s.geometry = one_group_per_tile(s.work_group);
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

}  // namespace clgemm::detail
