// Internal: one program of the set a Context builds ahead (warm_set, choice/warm_up.hpp): a
// kernel's build variant, or a helper kernel's build.
#pragma once

#include <string>

#include "clgemm/gemm.hpp"
#include "launch/build_options.hpp"

namespace clgemm::detail {

struct WarmProgram {
  // A GEMM kernel: the settings a call resolves to (kernel, overrides, precision) and the
  // variant of the call; unused for a helper.
  RunSettings settings;
  BuildVariant variant;
  // A helper kernel (scale_c, copy_padded, splitk_reduce, wgmma_pack) and the options the call
  // adds to its work-group size; empty for a GEMM kernel.
  std::string helper;
  std::string helper_options;
  // What it is, for progress: the kernel and its full option string (as derived for the
  // device; a build under a lower work-group limit may change it).
  std::string kernel;
  std::string build_options;
};

}  // namespace clgemm::detail
