// The production kernel, blocked, as data: vectorized's tiles and constraints, float4 reads of
// local memory, per-device derived tiles, the precisions it computes, and the per-call host
// parameters of its multi-launch calls (split-K, aligned copies).
#include "catalog/kernel_spec.hpp"

namespace clgemm::detail {

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
    return o;
  };
  s.slices_k = true;
  s.description.host_parameters = {
      {"SPLIT_K",
       "slices of K computed by separate work-groups and summed by splitk_reduce (0: chosen "
       "from the shape and the compute units, 1: no split); clamped to whole TILE_K steps",
       0, 65536},
      {"ALIGN_COPY",
       "0: never copy operands, 1: copy an unaligned A or B to an aligned workspace when the "
       "copy is small next to the product, 2: copy every unaligned operand",
       0, 2}};
  s.description.precisions = {Precision::FP32, Precision::TF32, Precision::TF32x3};
  s.constraints.push_back({"ITEM_M % 4 == 0 (rows are read from local memory as float4)",
                           [](const KernelOptions& o) { return opt(o, "ITEM_M") % 4 == 0; }});
  s.constraints.push_back({"ITEM_N % 4 == 0 (columns are read from local memory as float4)",
                           [](const KernelOptions& o) { return opt(o, "ITEM_N") % 4 == 0; }});
  return s;
}

}  // namespace clgemm::detail
