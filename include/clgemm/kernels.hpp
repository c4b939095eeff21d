// The kernel catalogue: which kernels exist, which compile-time parameters (-D NAME=value)
// each takes, how the host derives them from device limits, and which combinations are valid.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "clgemm/device.hpp"
#include "clgemm/export.h"
#include "clgemm/precision.hpp"

namespace clgemm {

// Compile-time parameters of one kernel, by name (e.g. {"TILE", 16}).
using KernelOptions = std::map<std::string, long>;

struct CLGEMM_API KernelParameter {
  std::string name;
  std::string meaning;
  long minimum = 1;  // the range validate_options() accepts
  long maximum = 65536;
  // The values worth trying when tuning, ascending: clgemm-tune's default search list (with
  // the derived value added), whatever the range, so a value of a short range left out is not
  // searched unless --space names it. Empty: the tuner tries every value of a short range
  // (maximum - minimum under 16), else powers of two around the derived value.
  std::vector<long> candidates = {};
};

struct CLGEMM_API KernelDescription {
  std::string name;     // as given to --kernel, e.g. "tile"
  std::string file;     // source file under the kernel directory, e.g. "tile.cl"
  std::string summary;  // one line on the idea the kernel teaches
  std::vector<KernelParameter> parameters;
  // Parameters the host applies per call and never compiles in (blocked: SPLIT_K, ALIGN_COPY).
  // They are given and resolved like the others, but are left out of the build options, so
  // they do not rebuild the program, and the tuner does not search them.
  std::vector<KernelParameter> host_parameters = {};
  std::vector<Precision> precisions = {Precision::FP32};  // the modes it computes
  bool needs_tensor_cores = false;  // built only where Context::has_tensor_cores()
  bool needs_wgmma = false;         // built only where Context::has_wgmma() too

  bool computes(Precision precision) const {
    return std::find(precisions.begin(), precisions.end(), precision) != precisions.end();
  }
  // Whether it can compute `precision` on a device with or without tensor cores (and wgmma:
  // left out, a kernel that needs it does not run).
  bool runs(Precision precision, bool tensor_cores, bool wgmma = false) const {
    return computes(precision) && (!needs_tensor_cores || tensor_cores) && (!needs_wgmma || wgmma);
  }
};

// Every kernel, in ladder order (base first).
CLGEMM_API const std::vector<KernelDescription>& kernel_catalog();

// Program builds from OpenCL C source running now in this process, in any Context: a tool's
// "building kernel" notice is said only while one runs (a program loaded from the disk cache or
// already built is not counted).
CLGEMM_API int programs_compiling() noexcept;
// The kernel of that name; throws Error(UnknownKernel) listing the valid names.
CLGEMM_API const KernelDescription& find_kernel(const std::string& name);

// The parameters the host picks for this kernel on a device with these limits.
CLGEMM_API KernelOptions derive_options(const std::string& kernel, const DeviceLimits& limits);

// The derived parameters with `overrides` applied on top. Throws Error(InvalidOption) for an
// override the kernel does not take or a combination that breaks one of its constraints (the
// message names the constraint and the values).
CLGEMM_API KernelOptions resolve_options(const std::string& kernel, const DeviceLimits& limits,
                                         const KernelOptions& overrides);

// Checks a complete set of parameters against the kernel's constraints and the device limits.
CLGEMM_API void validate_options(const std::string& kernel, const KernelOptions& options,
                                 const DeviceLimits& limits);

// Whether the device has what one value of a parameter asks for, whatever the other parameters
// are: false for a value that needs instructions the device lacks (blocked's ASYNC_COPY = 1 and
// STAGES above 2 need cp.async, NVIDIA compute capability 8.0). The tuner leaves such values
// out of its space. Throws Error(UnknownKernel) or Error(InvalidOption) for an unknown kernel
// or parameter.
CLGEMM_API bool parameter_value_runs_on(const std::string& kernel, const std::string& parameter,
                                        long value, const DeviceLimits& limits);

// The kernel's model, for a complete set of its parameters (e.g. from resolve_options): the
// work-group (x, y) it launches with, the bytes of local memory it declares, and the block one
// work-group covers (rows and columns of C, and the depth of one K step). Each throws
// Error(UnknownKernel) or Error(InvalidOption) for an unknown kernel or a missing parameter.
CLGEMM_API std::array<std::size_t, 2> kernel_work_group(const std::string& kernel,
                                                        const KernelOptions& options);
CLGEMM_API std::size_t kernel_local_memory_bytes(const std::string& kernel,
                                                 const KernelOptions& options);
CLGEMM_API std::array<std::int64_t, 3> kernel_block(const std::string& kernel,
                                                    const KernelOptions& options);
// Outputs of C one work-item accumulates at once (1 for the kernels without a block of their
// own, ITEM_M * ITEM_N or ITEM^2 for the blocked ones, a warp tile's share for tensorcore), and
// the floats it keeps in registers: those accumulators, its share of a local page staged
// through registers (not with blocked's ASYNC_COPY = 1), a private array (PRIVATE_K),
// blocked's second set of fragments (FRAG_PREFETCH = 1: ITEM_M + ITEM_N) and wgmma's slices of
// A in registers (A_REGISTERS). A GPU work-item has at most 255 32-bit registers; a model
// above that spills. With a precision, also what the kernel keeps in that precision alone
// (wgmma's 3xTF32 sums each slice apart: as many floats again as its accumulators).
CLGEMM_API long kernel_outputs_per_work_item(const std::string& kernel,
                                             const KernelOptions& options);
CLGEMM_API long kernel_registers_per_work_item(const std::string& kernel,
                                               const KernelOptions& options);
CLGEMM_API long kernel_registers_per_work_item(const std::string& kernel,
                                               const KernelOptions& options, Precision precision);

// Where kernel sources are looked for, in order: $CLGEMM_KERNEL_DIR, the directory named by
// set_kernel_directory(), share/clgemm/kernels beside the installed library, then (unless
// built with CLGEMM_KERNEL_DIR_FALLBACKS=OFF, as the Python wheel is) the source tree's
// kernels/ and the configured install prefix.
CLGEMM_API std::vector<std::string> kernel_search_path();
// Names a directory of kernel sources for the whole process, searched after $CLGEMM_KERNEL_DIR
// and before the others: for a program that ships the kernels in a place of its own (the
// Python package keeps them inside itself). The shipped tuning files are looked for beside it
// (its parent's tuning/), as beside every kernel directory. Applies to kernels loaded and
// tuning databases read afterwards; an empty string removes it. Safe to call from any thread.
CLGEMM_API void set_kernel_directory(const std::string& directory);
// The file `name` (e.g. "tile.cl") is loaded from: the first regular file of that name on the
// search path. Throws Error(KernelSourceNotFound) listing every place it looked.
CLGEMM_API std::string kernel_source_path(const std::string& name);

// "-D NAME=value ..." as passed to the OpenCL compiler.
CLGEMM_API std::string format_build_options(const KernelOptions& options);

// One parameter as users write it: "NAME=value", NAME an identifier and value a decimal
// integer (optional sign) that fits a long, with nothing after it; spaces around either are
// ignored. Throws Error(InvalidOption) quoting the text and saying what is wrong.
CLGEMM_API std::pair<std::string, long> parse_option_assignment(const std::string& text);

// A kernel and its parameter overrides as users write them: "tile" or
// "coarsened:TILE=16,ITEM=4" (the C API's kernel argument). An empty name means the default
// ("auto"). Throws Error(InvalidOption) for a malformed override or one given twice; the names
// themselves are checked when the kernel is prepared.
struct CLGEMM_API KernelSelection {
  std::string kernel = "auto";
  KernelOptions overrides;
};
CLGEMM_API KernelSelection parse_kernel_selection(const std::string& text);

// The kernel's traffic model: bytes it moves to and from global memory for a row-major
// M x N x K problem with these parameters. A and B count as the work-items load them (e.g.
// base: 2*M*N*K floats, no reuse; tile: M*N*K*(2/TILE)), C is written once and, when `reads_c`
// (beta != 0), read once. Caches are not modelled: this is what the kernel asks of memory.
CLGEMM_API double global_traffic_bytes(const std::string& kernel, const KernelOptions& options,
                                       std::int64_t m, std::int64_t n, std::int64_t k,
                                       bool reads_c);
// FLOP per byte of that traffic: 2*M*N*K / global_traffic_bytes(...). With a device's peak
// FLOP/s P and bandwidth B, the kernel cannot exceed min(P, B * intensity) (the roofline).
CLGEMM_API double arithmetic_intensity(const std::string& kernel, const KernelOptions& options,
                                       std::int64_t m, std::int64_t n, std::int64_t k,
                                       bool reads_c);

}  // namespace clgemm
