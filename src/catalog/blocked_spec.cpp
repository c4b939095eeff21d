// The production kernel, blocked, as data: vectorized's tiles and constraints, float4 reads of
// local memory, the warp tiles, fragment prefetch and page padding of its inner loop,
// asynchronous copies into local memory on NVIDIA, 16-byte stores of C on GPUs, per-device
// derived tiles, the precisions it computes, and the per-call host parameters of its
// multi-launch calls (split-K, aligned copies).
#include <algorithm>

#include "catalog/kernel_spec.hpp"

namespace clgemm::detail {

KernelOptions blocked_short_k_tiles() {
  return {{"TILE_M", 64},   {"TILE_N", 128},   {"TILE_K", 8},  {"ITEM_M", 8},
          {"ITEM_N", 8},    {"VEC", 4},        {"LANES_N", 8}, {"FRAG_PREFETCH", 1},
          {"LOCAL_PAD", 4}, {"ASYNC_COPY", 1}, {"STAGES", 3},  {"UNROLL", 1}};
}

KernelSpec blocked_spec() {
  KernelSpec s = vector_tile_spec(
      "blocked",
      "the production kernel: vectorized's tiles with each work-item owning 4-wide groups of "
      "rows and columns, read from local memory as float4");
  auto& parameters = s.description.parameters;
  parameters.push_back(
      {"UNROLL", "1: unroll the register-block loops fully (GPUs), 0: leave it to the compiler", 0,
       1});
  parameters.push_back({"LANES_N",
                        "0: work-item (tx, ty) owns rows ty*4 + i*WG_M*4 and columns tx*4 + "
                        "j*WG_N*4 of the work-group's tile; else warp tiles: the 32 lanes of a "
                        "warp are 32 / LANES_N rows of LANES_N lanes (1, 2, 4, 8, 16 or 32) "
                        "that own a (32 / LANES_N * ITEM_M) x (LANES_N * ITEM_N) sub-tile",
                        0,
                        32,
                        {0, 4, 8, 16}});
  parameters.push_back({"FRAG_PREFETCH",
                        "1: read the next k step's fragments from local memory into a second "
                        "register set before this step's products (TILE_K even), 0: one set",
                        0, 1});
  parameters.push_back({"LOCAL_PAD",
                        "floats added after each k row of the local pages, a multiple of 4 "
                        "(0..64): moves the transposing stores of an operand loaded along k "
                        "off each other's banks",
                        0,
                        64,
                        {0, 4}});
  parameters.push_back({"ASYNC_COPY",
                        "1: copy the slices from global to local memory with cp.async (NVIDIA, "
                        "compute capability 8.0 or newer), STAGES pages deep, without passing "
                        "through registers; 0: load into registers, store the next page",
                        0, 1});
  parameters.push_back({"STORE_VEC4",
                        "1: store each group of 4 columns of C as one 16-byte word where C's row "
                        "is aligned to it (derived on GPUs), 0: a float at a time (derived on "
                        "CPUs, where PoCL ran the kernel at half speed with the wider stores)",
                        0,
                        1,
                        // The tuner tries 0 where it is derived (CPUs), not on GPUs, where the
                        // stores ran as fast, within the noise, or faster on every shape measured
                        // and 0 would double a space already near its cap (clgemm-tune's
                        // 2,000,000 combinations).
                        {1}});
  parameters.push_back({"STAGES",
                        "local pages of each operand: 2 with register staging; with ASYNC_COPY "
                        "= 1 the copies of STAGES - 1 slices run ahead of the products",
                        2, 4});
  parameters.push_back({"K_GROUPS",
                        "groups of work-items that share the work-group's tile and split its K "
                        "(each with pages of its own; their sums added through local memory at "
                        "the end): more warps per compute unit where a launch has few tiles",
                        1,
                        4,
                        {1}});
  // One k-group: the work-items as vectorized lays them out, and STAGES pages of each operand,
  // TILE_K rows of TILE_M (A) or TILE_N (B) plus the padding.
  const auto group_work_items = s.work_group;
  auto group_pages_bytes = [](const KernelOptions& o) {
    return std::size_t(opt(o, "STAGES") * opt(o, "TILE_K") *
                       (opt(o, "TILE_M") + opt(o, "TILE_N") + 2 * opt(o, "LOCAL_PAD")) * 4);
  };
  // K_GROUPS of them along dimension 1.
  s.work_group = [group_work_items](const KernelOptions& o) {
    auto wg = group_work_items(o);
    wg[1] *= std::size_t(opt(o, "K_GROUPS"));
    return wg;
  };
  s.geometry = one_group_per_tile(s.work_group);
  // Every k-group's pages; with K_GROUPS > 1 at least the TILE_M x TILE_N sums, which reuse
  // the pages.
  s.local_memory_bytes = [group_pages_bytes](const KernelOptions& o) {
    const std::size_t k_groups = std::size_t(opt(o, "K_GROUPS"));
    const std::size_t sums =
        k_groups > 1 ? std::size_t(opt(o, "TILE_M") * opt(o, "TILE_N")) * 4 : 0;
    return std::max(k_groups * group_pages_bytes(o), sums);
  };
  // Beside the accumulators: the next page's share of its k-group's work-items, loaded into
  // registers while the other is read (none where ASYNC_COPY copies the slices from global to
  // local memory directly), and with FRAG_PREFETCH a second set of fragments, one k step of A
  // and B, held while the first is multiplied.
  s.registers_beside_outputs = [group_pages_bytes, group_work_items](const KernelOptions& o) {
    const long staged = opt(o, "ASYNC_COPY") == 1
                            ? 0
                            : staged_page_share(group_pages_bytes(o), 2, group_work_items(o));
    const long prefetched = opt(o, "FRAG_PREFETCH") == 1 ? opt(o, "ITEM_M") + opt(o, "ITEM_N") : 0;
    return staged + prefetched;
  };
  s.derive = [vectorized_derive = s.derive](const DeviceLimits& d) {
    KernelOptions o;
    if (is_cpu(d)) {
      // 64 work-items of 8 x 16 outputs: faster on PoCL than vectorized's CPU blocks, and
      // quick to compile (measured: docs/PERFORMANCE.md, "Design notes ... behind the kernels").
      o = {{"TILE_M", 64}, {"TILE_N", 128}, {"TILE_K", 16},
           {"ITEM_M", 8},  {"ITEM_N", 16},  {"VEC", 8}};
    } else if (d.max_work_group_size < 256 || d.local_memory_bytes < 32 * 1024) {
      o = vectorized_derive(d);
    } else {
      // 256 work-items of 16 x 8 outputs over 128 x 256 tiles, 8 deep (24 KiB of local
      // memory, so two work-groups fit a multiprocessor): wider tiles halve the global loads
      // per multiply-add along N (measured: docs/PERFORMANCE.md, "What made blocked fast").
      o = {{"TILE_M", 128}, {"TILE_N", 256}, {"TILE_K", 8},
           {"ITEM_M", 16},  {"ITEM_N", 8},   {"VEC", 4}};
    }
    o["UNROLL"] = 1;
    // The inner loop as before the warp tiles; the tuner and the tuned entries choose them.
    o["LANES_N"] = 0;
    o["FRAG_PREFETCH"] = 0;
    o["LOCAL_PAD"] = 0;
    o["ASYNC_COPY"] = 0;
    o["STAGES"] = 2;
    o["K_GROUPS"] = 1;
    // 16-byte stores of C: 1.34x on the write-bound 8192x8192x64 on the H100, half speed on
    // PoCL (measured: docs/PERFORMANCE.md, "H100 and PoCL").
    o["STORE_VEC4"] = is_cpu(d) ? 0 : 1;
    return o;
  };
  s.slices_k = true;
  s.description.host_parameters = {
      split_k_parameter(),
      align_copy_parameter(),
      {"WAVE_UNITS",
       "the work-groups the device runs at once (0: unknown): a call of one product then "
       "splits K throughout, or only for its last wave's rows of tiles, or not at all, as a "
       "model of its waves has it fastest (plan/wave_plan.hpp)",
       0, 1 << 20}};
  s.description.precisions = {Precision::FP32, Precision::TF32, Precision::TF32x3};
  s.constraints.push_back({"ITEM_M % 4 == 0 (rows are read from local memory as float4)",
                           [](const KernelOptions& o) { return opt(o, "ITEM_M") % 4 == 0; }});
  s.constraints.push_back({"ITEM_N % 4 == 0 (columns are read from local memory as float4)",
                           [](const KernelOptions& o) { return opt(o, "ITEM_N") % 4 == 0; }});
  // The work-group's threads, for the warp constraints.
  auto threads = [](const KernelOptions& o) {
    return (opt(o, "TILE_M") / opt(o, "ITEM_M")) * (opt(o, "TILE_N") / opt(o, "ITEM_N"));
  };
  // Each constraint of the warp tiles holds trivially without them (LANES_N = 0).
  auto warp_tiled = [](const KernelOptions& o) { return opt(o, "LANES_N") != 0; };
  s.constraints.push_back(
      {"32 % LANES_N == 0 (LANES_N lanes of a 32-wide warp along N: 1, 2, 4, 8, 16 or 32)",
       [warp_tiled](const KernelOptions& o) {
         return !warp_tiled(o) || (opt(o, "LANES_N") > 0 && 32 % opt(o, "LANES_N") == 0);
       }});
  s.constraints.push_back({"work-items % 32 == 0 when LANES_N > 0 (whole warps)",
                           [warp_tiled, threads](const KernelOptions& o) {
                             return !warp_tiled(o) || threads(o) % 32 == 0;
                           }});
  s.constraints.push_back(
      {"WG_N % LANES_N == 0 (WG_N = TILE_N / ITEM_N work-items along N hold whole warps)",
       [warp_tiled](const KernelOptions& o) {
         return !warp_tiled(o) || (opt(o, "TILE_N") / opt(o, "ITEM_N")) % opt(o, "LANES_N") == 0;
       }});
  s.constraints.push_back(
      {"WG_M % LANES_M == 0 (WG_M = TILE_M / ITEM_M work-items along M hold whole warps of "
       "LANES_M = 32 / LANES_N rows)",
       [warp_tiled](const KernelOptions& o) {
         return !warp_tiled(o) ||
                (opt(o, "TILE_M") / opt(o, "ITEM_M")) % (32 / opt(o, "LANES_N")) == 0;
       }});
  s.constraints.push_back(
      {"TILE_K % 2 == 0 when FRAG_PREFETCH = 1 (step k's fragments are in register set k % 2)",
       [](const KernelOptions& o) {
         return opt(o, "FRAG_PREFETCH") == 0 || opt(o, "TILE_K") % 2 == 0;
       }});
  s.constraints.push_back(
      {"LOCAL_PAD % 4 == 0 (the float4 reads of local memory stay 16-byte aligned)",
       [](const KernelOptions& o) { return opt(o, "LOCAL_PAD") % 4 == 0; }});
  s.constraints.push_back(
      {"STAGES == 2 when ASYNC_COPY = 0 (register staging fills one page while the other is read)",
       [](const KernelOptions& o) { return opt(o, "ASYNC_COPY") == 1 || opt(o, "STAGES") == 2; }});
  s.constraints.push_back(
      {"VEC % 4 == 0 when ASYNC_COPY = 1 (an aligned operand is copied 16 bytes at a time, so "
       "its rows must start on 4-float boundaries)",
       [](const KernelOptions& o) { return opt(o, "ASYNC_COPY") == 0 || opt(o, "VEC") % 4 == 0; }});
  s.device_constraints.push_back(
      {"ASYNC_COPY = 1 needs cp.async: an NVIDIA device of compute capability 8.0 or newer",
       [](const KernelOptions& o, const DeviceLimits& d) {
         return opt(o, "ASYNC_COPY") == 0 || d.compute_capability >= 80;
       }});
  s.device_constraints.push_back(
      {"STAGES above 2 need ASYNC_COPY = 1, so cp.async: an NVIDIA device of compute "
       "capability 8.0 or newer",
       [](const KernelOptions& o, const DeviceLimits& d) {
         return opt(o, "STAGES") == 2 || d.compute_capability >= 80;
       }});
  return s;
}

}  // namespace clgemm::detail
