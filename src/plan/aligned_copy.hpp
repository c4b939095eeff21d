// Internal: whether a GEMM reads an unaligned operand from an aligned copy, and where the copies
// lie in the workspace. A kernel that
// loads VEC floats at once can use aligned vector loads only when every row of an operand
// starts VEC-aligned (A_ALIGNED / B_ALIGNED); otherwise it loads element by element (blocked at
// 4097^3 on the H200: 0.78 of the aligned speed). Copying the operand into a workspace with a
// padded leading dimension costs one read and one write of it at memory bandwidth.
#pragma once

#include <cstdint>
#include <string>

#include "catalog/kernel_spec.hpp"
#include "clgemm/device.hpp"
#include "plan/kernel_call.hpp"

namespace clgemm::detail {

// Problems below this many multiply-adds lose more to the copies' launches and passes than
// element-by-element loads cost them (copy_minimum_volume). Measured with `auto`, per call,
// copies (ALIGN_COPY=2) against none (tools/device/h200_align_copy.sh): on an H100, timed as a
// caller makes the calls, 767^3, 1023^3, 1025^3, 1535^3, 2047^3 and 3071^3 ran 6-16% faster
// without; earlier the same day (the tools' timing then added to each launch) 4095^3 and 4097^3
// 3% faster without and 6143^3 1-2% slower. On PoCL (2 cores) 767^3 ran 20% faster without
// and 2047^3 3% slower.
constexpr double kCopyMinimumVolumeCpu = 2048.0 * 2048.0 * 2048.0;
constexpr double kCopyMinimumVolumeGpu = 5120.0 * 5120.0 * 5120.0;
double copy_minimum_volume(DeviceType type);

// FLOP per byte copied above which a copy pays: the aligned product saves 28% of its time
// (1 / 0.78 - 1), the copy moves its bytes at bandwidth B, and a GPU with peak P at about
// 13 FLOP per byte of bandwidth (the H200: ~47 TFLOP/s in this kernel, 4.8 TB/s) needs
// 2mnk / bytes > 13 / 0.28 ~ 47; rounded up to 64.
constexpr double kCopyMinimumIntensity = 64.0;

// One operand of the row-major call as stored: `lines` lines of `length` floats.
struct StoredShape {
  std::int64_t lines = 0, length = 0;
};
StoredShape stored_a(const KernelCall& call);
StoredShape stored_b(const KernelCall& call);

// The leading dimension of an aligned copy: length rounded up to whole vectors.
std::int64_t padded_ld(std::int64_t length, long vec);

// On a CPU, the lines of a matrix whose leading dimension is a multiple of this many bytes fall
// into the same few sets of each cache, which then holds only a handful of them (an L1 of 32
// KiB in 8 ways maps addresses 4,096 bytes apart to one set); so do runs of consecutive lines
// whose distance is within a cache line of such a multiple (2047 floats: 16 lines to a set).
// register_block, whose work-items read a block of A's rows and op(B)'s rows K deep, ran such
// operands at 0.5-0.8x the speed of the same operands one cache line wider (PoCL 3.1, 2-core
// EPYC, auto, GFLOP/s, ld as given against ld + 16 floats: 1024^3 106 against 129, 2048^3 82
// against 124, 3072^3 85 against 133, 4096^3 81 against 133, 2048^3 with A transposed 65
// against 107, B transposed 94 against 113; 2047^3 with A transposed 55-58 against 79-87 with
// ld 2064; a multiple of 2,048 bytes only, 512^3 and 1536^3, ran the same either way).
constexpr std::int64_t kCacheAliasBytes = 4096;
constexpr std::int64_t kCacheLineFloats = 16;
// Copied only from this many lines: 1024 x 1024 x 256, B of 256 lines, ran 0.92-0.96x as fast
// with its copy as without (2048 x 2048 x 256 the same either way), 2048 x 2048 x 512 with B
// one line wider 1.14x.
constexpr std::int64_t kCacheAliasMinimumLines = 512;

// Whether lines `ld` floats apart fall within a cache line of a multiple of kCacheAliasBytes.
bool lines_share_cache_sets(std::int64_t ld);

// The leading dimension of a copy on `device`: padded_ld(), and on a CPU a cache line more
// while its lines would share the caches' sets.
std::int64_t copy_ld(std::int64_t length, long vec, DeviceType device);

struct CopyChoice {
  bool a = false, b = false;  // the row-major call's operands
  // A's copy is op(A), M lines of K, and B's op(B), K lines of N
  // (KernelSpec::reads_a_transposed_copy, reads_b_transposed_copy).
  bool a_transposed = false, b_transposed = false;
  std::int64_t a_ld = 0, b_ld = 0;  // the copies' leading dimensions (copy_ld)
  std::string reason;  // empty when both operands are aligned and nothing is transposed
};

// mode is ALIGN_COPY: 0 never, 1 when the volume and intensity above say it pays on a device
// of this type, 2 every unaligned operand. a_aligned / b_aligned: whether the kernel may
// already load aligned.
CopyChoice choose_copies(const KernelCall& call, long vec, long mode, bool a_aligned,
                         bool b_aligned, DeviceType device);

// Each region of a call's workspace starts at a multiple of 64 floats (256 bytes).
std::size_t workspace_region(std::size_t floats);

// copy_padded's build options for a transposed copy: blocks of kTransposeBlock x
// kTransposeBlock floats per work-item.
constexpr int kTransposeBlock = 8;
std::string transposing_copy_options();

// The shape of each copy: the operand as stored, or op(A) (M lines of K) and op(B) (K lines of
// N) for a transposed copy.
StoredShape copied_a(const KernelCall& call, const CopyChoice& copies);
StoredShape copied_b(const KernelCall& call, const CopyChoice& copies);

// Where the copies go: at the start of the workspace, [copy of A][copy of B], each with its
// leading dimension from `copies` and a region of its own; `floats` is what they take together.
struct CopyLayout {
  bool a = false, b = false;
  std::int64_t a_ld = 0, b_ld = 0;
  std::size_t a_at = 0, b_at = 0;
  std::size_t floats = 0;
};
CopyLayout lay_out_copies(const KernelCall& call, const CopyChoice& copies);

// Which operands of `call` the kernel `spec` with these (resolved) options reads from copies:
// aligned ones (choose_copies, its options' VEC and ALIGN_COPY, the operands' base
// alignments), A or B transposed (KernelSpec::reads_a_transposed_copy, reads_b_transposed_copy;
// A's only where the copy is small next to the product), and on a CPU, for a kernel
// that reads through the caches, an operand whose lines share the caches' sets
// (lines_share_cache_sets), or B read as vectors along its lines whose vectors straddle cache
// lines (its ld or offset no multiple of VEC), where the copy is small next to the product
// (kCopyMinimumIntensity). None for a batch,
// and none when the copies would not fit workspace_limit() (Error AllocationTooLarge under
// ALIGN_COPY = 2).
CopyChoice plan_copies(const KernelSpec& spec, const KernelOptions& options, const KernelCall& call,
                       const DeviceLimits& limits);
// The call as the kernel reads it once `copies` are made: a copied operand from the workspace,
// with the copy's leading dimension and the device's base alignment (a transposed copy read
// untransposed).
KernelCall copied_call(const KernelCall& call, const CopyChoice& copies,
                       const DeviceLimits& limits);

}  // namespace clgemm::detail
