// Internal: a call's plan, the data that says what it runs (the kind of call, the settings with
// `auto` resolved, the split of K, C's edges computed apart, and why), decided before any
// resource is touched (choice/call_planning.hpp makes it); and the kind of call a problem is.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "clgemm/gemm.hpp"
#include "plan/edge_split.hpp"
#include "plan/split_plan.hpp"

namespace clgemm::detail {

// BLAS semantics: M or N = 0 (or K = 0 or alpha = 0 with beta = 1) changes nothing; K = 0 or
// alpha = 0 otherwise scales C by beta (kernels/scale_c.cl) without reading A or B; everything
// else runs a GEMM kernel.
enum class CallKind { Nothing, ScaleC, Gemm };

struct EdgePlan;

struct CallPlan {
  CallKind kind = CallKind::Gemm;
  RunSettings run;     // the caller's settings with `auto` resolved
  std::string reason;  // why this runs, for GemmRecord::kernel_choice
  // A GEMM's split of K for the region `run` computes, decided with no workspace used:
  // preparation uses it as it is while it holds beside the operands' copies (holds_for).
  SplitPlan split;
  // Edge-aware tiling (edge_split.hpp): `run` computes only this region of C, and each of
  // `edges` computes a strip of the rest.
  std::optional<Region> whole_tiles;
  std::vector<EdgePlan> edges;
};

struct EdgePlan {
  Region region;
  CallPlan plan;
};

// The kind of call `problem` is, and for Nothing or ScaleC why (empty for a GEMM).
struct KindOfCall {
  CallKind kind = CallKind::Gemm;
  std::string reason;
};
KindOfCall kind_of_call(const GemmProblem& problem);

}  // namespace clgemm::detail
