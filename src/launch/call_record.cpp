// The record of a call (GemmRecord, clgemm/gemm.hpp): what a prepared call launches, which
// programs it built or found, and why; or that it launched nothing.
#include <algorithm>

#include "launch/prepared_call.hpp"

namespace clgemm {

const char* program_origin_name(ProgramOrigin origin) {
  switch (origin) {
    case ProgramOrigin::None:
      return "none";
    case ProgramOrigin::Compiled:
      return "compiled";
    case ProgramOrigin::DiskCache:
      return "disk cache";
    case ProgramOrigin::Memory:
      return "memory";
  }
  return "none";
}

namespace detail {

GemmRecord record_of_nothing(const CallPlan& plan) {
  GemmRecord record;
  record.kernel = "none";
  record.kernel_choice = plan.reason;
  record.precision = plan.run.precision;
  record.precision_path = "none";
  return record;
}

GemmRecord record_of(const PreparedCall& prepared) {
  GemmRecord record = record_of_build(prepared.main, prepared.reason);
  record.split_k = prepared.slices.slices;
  const bool copied_a = prepared.copy_a || prepared.a_packed;
  const bool copied_b = prepared.copy_b || prepared.packed;
  record.copied_a = prepared.column_major ? copied_b : copied_a;
  record.copied_b = prepared.column_major ? copied_a : copied_b;
  record.launches = prepared.launches();
  record.workspace_bytes = prepared.workspace_bytes;
  record.batch = prepared.batch;
  record.product_table = prepared.product_table;
  record.epilogue = prepared.epilogue;
  for (const auto* helper :
       {&prepared.copy, &prepared.transpose, &prepared.reduce, &prepared.pack_a, &prepared.pack_b})
    if (helper->built && !helper->cached) record.build_seconds += helper->built->build_seconds;
  // Edge-aware tiling: the record is the whole tiles' launch, with the strips' launches,
  // builds and workspace (they use it one after another) counted in.
  for (const PreparedEdge& edge : prepared.edges) {
    const GemmRecord part = record_of(edge.prepared);
    record.build_seconds += part.build_seconds;
    record.workspace_bytes = std::max(record.workspace_bytes, part.workspace_bytes);
  }
  return record;
}

GemmRecord record_of_build(const PreparedKernel& prepared, const std::string& reason) {
  GemmRecord record;
  record.kernel = prepared.name;
  record.kernel_choice = reason;
  record.options = prepared.options;
  record.build_options = prepared.build_options;
  record.origin = prepared.cached                   ? ProgramOrigin::Memory
                  : prepared.built->from_disk_cache ? ProgramOrigin::DiskCache
                                                    : ProgramOrigin::Compiled;
  record.build_seconds = prepared.cached ? 0 : prepared.built->build_seconds;
  record.precision = prepared.precision;
  record.precision_path = prepared.precision_path;
  record.kernel_local_memory_bytes = prepared.built->kernel_local_memory_bytes;
  record.kernel_compile_work_group = prepared.built->compile_work_group;
  return record;
}

}  // namespace detail
}  // namespace clgemm
