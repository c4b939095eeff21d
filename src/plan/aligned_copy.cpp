// Deciding which operands of a GEMM are copied to aligned storage first, and where the copies lie
// in the workspace (see aligned_copy.hpp).
#include "plan/aligned_copy.hpp"

#include <cmath>
#include <cstdio>

#include "clgemm/errors.hpp"
#include "plan/workspace_limit.hpp"

namespace clgemm::detail {

StoredShape stored_a(const KernelCall& call) {
  return call.a.transposed ? StoredShape{call.k, call.m} : StoredShape{call.m, call.k};
}

StoredShape stored_b(const KernelCall& call) {
  return call.b.transposed ? StoredShape{call.n, call.k} : StoredShape{call.k, call.n};
}

std::int64_t padded_ld(std::int64_t length, long vec) {
  const std::int64_t v = vec > 0 ? vec : 1;
  return (length + v - 1) / v * v;
}

bool lines_share_cache_sets(std::int64_t ld) {
  const std::int64_t line = kCacheLineFloats * std::int64_t(sizeof(float));
  const std::int64_t apart = ld * std::int64_t(sizeof(float)) % kCacheAliasBytes;
  return apart < line || apart > kCacheAliasBytes - line;
}

std::int64_t copy_ld(std::int64_t length, long vec, DeviceType device) {
  std::int64_t ld = padded_ld(length, vec);
  while (device == DeviceType::CPU && lines_share_cache_sets(ld))
    ld += padded_ld(kCacheLineFloats, vec);
  return ld;
}

namespace {

// The problem's names of the row-major call's operands: a column-major problem's A is the
// call's B.
const char* problem_name_of_a(const KernelCall& call) {
  return call.column_major ? "B" : "A";
}
const char* problem_name_of_b(const KernelCall& call) {
  return call.column_major ? "A" : "B";
}

// The bytes a copy of `shape` reads and writes.
double copy_traffic(StoredShape shape) {
  return 8.0 * double(shape.lines) * double(shape.length);
}

// The call's FLOP per byte its copies read and write (`copied`), which kCopyMinimumIntensity
// bounds.
double flop_per_byte_copied(const KernelCall& call, double copied) {
  return 2.0 * double(call.m) * double(call.n) * double(call.k) / copied;
}

std::string unaligned_text(const char* name, const Operand& x) {
  return std::string(name) + " (ld " + std::to_string(x.ld) + ", offset " +
         std::to_string(x.offset) + ")";
}

}  // namespace

double copy_minimum_volume(DeviceType type) {
  return type == DeviceType::CPU ? kCopyMinimumVolumeCpu : kCopyMinimumVolumeGpu;
}

CopyChoice choose_copies(const KernelCall& call, long vec, long mode, bool a_aligned,
                         bool b_aligned, DeviceType device) {
  CopyChoice choice;
  if (vec <= 1 || (a_aligned && b_aligned)) return choice;
  const char* a_name = problem_name_of_a(call);
  const char* b_name = problem_name_of_b(call);
  std::string unaligned;
  if (!a_aligned) unaligned = unaligned_text(a_name, call.a);
  if (!b_aligned) unaligned += (unaligned.empty() ? "" : " and ") + unaligned_text(b_name, call.b);
  const double copied = (a_aligned ? 0.0 : copy_traffic(stored_a(call))) +
                        (b_aligned ? 0.0 : copy_traffic(stored_b(call)));
  const double volume = double(call.m) * double(call.n) * double(call.k);
  const double intensity = flop_per_byte_copied(call, copied);
  char numbers[160];
  std::snprintf(numbers, sizeof numbers,
                "%.3g MB read and written against %.3g GFLOP, %.0f FLOP per byte copied",
                copied / 1e6, 2.0 * volume / 1e9, intensity);
  bool copy = false;
  std::string why;
  if (mode == 0) {
    why = "ALIGN_COPY = 0";
  } else if (mode == 2) {
    copy = true, why = "ALIGN_COPY = 2";
  } else if (const double minimum = copy_minimum_volume(device); volume < minimum) {
    why = "M*N*K below " + std::to_string(std::lround(std::cbrt(minimum))) + "^3 (on " +
          device_type_name(device) + " devices), where the copies cost more than they save";
  } else if (intensity < kCopyMinimumIntensity) {
    why = std::string(numbers) + ", below 64";
  } else {
    copy = true, why = numbers;
  }
  choice.a = copy && !a_aligned;
  choice.b = copy && !b_aligned;
  if (choice.a) choice.a_ld = copy_ld(stored_a(call).length, vec, device);
  if (choice.b) choice.b_ld = copy_ld(stored_b(call).length, vec, device);
  choice.reason =
      "unaligned " + unaligned +
      (copy ? ": copied to aligned storage first (" : ": loaded element by element, not copied (") +
      why + ")";
  return choice;
}

std::size_t workspace_region(std::size_t floats) {
  return (floats + 63) / 64 * 64;
}

std::string transposing_copy_options() {
  return " -D TRANSPOSE=1 -D TRANSPOSE_BLOCK=" + std::to_string(kTransposeBlock);
}

StoredShape copied_a(const KernelCall& call, const CopyChoice& copies) {
  return copies.a_transposed ? StoredShape{call.m, call.k} : stored_a(call);
}

StoredShape copied_b(const KernelCall& call, const CopyChoice& copies) {
  return copies.b_transposed ? StoredShape{call.k, call.n} : stored_b(call);
}

CopyLayout lay_out_copies(const KernelCall& call, const CopyChoice& copies) {
  CopyLayout layout;
  const auto lay_out = [&](StoredShape shape, std::int64_t copy_ld, bool& copied, std::int64_t& ld,
                           std::size_t& at) {
    copied = true;
    ld = copy_ld;
    at = layout.floats;
    layout.floats += workspace_region(std::size_t(shape.lines) * std::size_t(ld));
  };
  if (copies.a) lay_out(copied_a(call, copies), copies.a_ld, layout.a, layout.a_ld, layout.a_at);
  if (copies.b) lay_out(copied_b(call, copies), copies.b_ld, layout.b, layout.b_ld, layout.b_at);
  return layout;
}

namespace {

// B's transposed copy where the kernel reads one (KernelSpec::reads_b_transposed_copy) and it
// fits the workspace; else none, with the reason.
CopyChoice plan_transposed_copy_of_b(const KernelCall& call, long vec, const DeviceLimits& limits) {
  CopyChoice choice;
  const std::int64_t ld = copy_ld(call.n, vec, limits.type);
  const auto bytes = float_bytes(std::uint64_t(call.k), std::uint64_t(ld));
  const std::size_t limit = workspace_limit(limits);
  if (bytes && *bytes <= limit) {
    choice.b = choice.b_transposed = true;
    choice.b_ld = ld;
    choice.reason =
        "both operands transposed: op(B) copied first (copy_padded, TRANSPOSE), so "
        "that the outer products read its rows as stored";
  } else {
    choice.reason =
        "both operands transposed: op(B) not copied, its copy needs more than the "
        "workspace limit of " +
        std::to_string(limit) + " bytes; read element by element";
  }
  return choice;
}

// Whether the copies of `choice` fit the workspace (their bytes, each counted overflow-checked).
bool copies_fit(const KernelCall& call, const CopyChoice& choice, const DeviceLimits& limits) {
  const auto copy_bytes = [](StoredShape s, std::int64_t ld) {
    return float_bytes(std::uint64_t(s.lines), std::uint64_t(ld));
  };
  const auto a =
      choice.a ? copy_bytes(copied_a(call, choice), choice.a_ld) : std::optional<std::size_t>(0);
  const auto b =
      choice.b ? copy_bytes(copied_b(call, choice), choice.b_ld) : std::optional<std::size_t>(0);
  const std::size_t limit = workspace_limit(limits);
  return a && b && *a <= limit && *b <= limit - *a;
}

std::string workspace_limit_text(const DeviceLimits& limits) {
  return "the copies need more than the workspace limit of " +
         std::to_string(workspace_limit(limits)) +
         " bytes (a quarter of CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
         std::to_string(limits.max_allocation_bytes) + ")";
}

// A's transposed copy where the kernel reads one (KernelSpec::reads_a_transposed_copy), it is
// small next to the product (kCopyMinimumIntensity) and fits the workspace; else none, with the
// reason.
CopyChoice plan_transposed_copy_of_a(const KernelCall& call, long vec, const DeviceLimits& limits) {
  CopyChoice choice;
  choice.a = choice.a_transposed = true;
  choice.a_ld = copy_ld(call.k, vec, limits.type);
  const double intensity = flop_per_byte_copied(call, copy_traffic(copied_a(call, choice)));
  char numbers[96];
  std::snprintf(numbers, sizeof numbers, "%.0f FLOP per byte copied", intensity);
  const std::string what = "both operands transposed, on the inner products: op(A) ";
  if (intensity < kCopyMinimumIntensity) {
    choice = {};
    choice.reason = what + "read element by element (" + numbers + ", below 64)";
  } else if (!copies_fit(call, choice, limits)) {
    choice = {};
    choice.reason = what + "read element by element (" + workspace_limit_text(limits) + ")";
  } else {
    choice.reason = what + "copied first (copy_padded, TRANSPOSE; " + numbers +
                    "), so that its rows are read as vectors";
  }
  return choice;
}

// The aligned copies of a kernel that takes alignment hints (choose_copies).
CopyChoice plan_aligned_copies(const KernelOptions& options, const KernelCall& call,
                               const DeviceLimits& limits) {
  const long vec = options.at("VEC");
  const auto mode = options.find("ALIGN_COPY");
  CopyChoice choice =
      choose_copies(call, vec, mode == options.end() ? 1 : mode->second,
                    operand_aligned(call.a, vec), operand_aligned(call.b, vec), limits.type);
  if ((!choice.a && !choice.b) || copies_fit(call, choice, limits)) return choice;
  if (mode != options.end() && mode->second == 2)
    throw Error(ErrorCode::AllocationTooLarge, "ALIGN_COPY = 2: " + workspace_limit_text(limits));
  choice.a = choice.b = false;
  choice.reason += "; not copied after all: " + workspace_limit_text(limits);
  return choice;
}

// On a CPU, the operands not copied yet whose lines share the caches' sets, or, for B read as
// whole vectors along its lines (b_read_as_vectors), whose vectors straddle cache lines, copied
// (one cache line wider, or aligned) where the copies are small next to the product and fit the
// workspace.
void add_cache_line_copies(CopyChoice& choice, const KernelCall& call, long vec,
                           bool b_read_as_vectors, const DeviceLimits& limits) {
  CopyChoice wider = choice;
  std::string named;
  double copied = 0;
  const auto consider = [&](bool& copy, std::int64_t& ld, const Operand& x, StoredShape stored,
                            const char* name, bool read_as_vectors) {
    if (copy || stored.lines < kCacheAliasMinimumLines) return;
    const bool aliases = lines_share_cache_sets(x.ld);
    const bool straddles = read_as_vectors && (x.ld % vec != 0 || x.offset % vec != 0);
    if (!aliases && !straddles) return;
    copy = true;
    ld = copy_ld(stored.length, vec, limits.type);
    copied += copy_traffic(stored);
    named += (named.empty() ? "" : "; ") + std::string(name) + " (ld " + std::to_string(x.ld) +
             " -> " + std::to_string(ld) + ", " +
             (aliases ? "its lines within a cache line of a multiple of " +
                            std::to_string(kCacheAliasBytes) + " bytes apart share the caches' sets"
                      : "its vectors of " + std::to_string(vec) + " floats straddle cache lines") +
             ")";
  };
  consider(wider.a, wider.a_ld, call.a, stored_a(call), problem_name_of_a(call), false);
  consider(wider.b, wider.b_ld, call.b, stored_b(call), problem_name_of_b(call),
           b_read_as_vectors && !call.b.transposed);
  if (named.empty()) return;
  const double intensity = flop_per_byte_copied(call, copied);
  char numbers[160];
  std::snprintf(numbers, sizeof numbers, "%.3g MB read and written, %.0f FLOP per byte copied",
                copied / 1e6, intensity);
  std::string text = "on a CPU, " + named + ": ";
  if (intensity < kCopyMinimumIntensity) {
    text += std::string("read as stored (") + numbers + ", below 64)";
  } else if (!copies_fit(call, wider, limits)) {
    text += "read as stored (" + workspace_limit_text(limits) + ")";
  } else {
    text += std::string("copied first (") + numbers + ")";
    wider.reason = choice.reason;
    choice = wider;
  }
  choice.reason += (choice.reason.empty() ? "" : "; ") + text;
}

}  // namespace

CopyChoice plan_copies(const KernelSpec& spec, const KernelOptions& options, const KernelCall& call,
                       const DeviceLimits& limits) {
  // A copy is of one matrix: batches read their operands where they are.
  if (call.batched()) return {};
  const long vec = options.count("VEC") ? options.at("VEC") : 1;
  CopyChoice choice;
  if (spec.reads_a_transposed_copy && spec.reads_a_transposed_copy(options, call_layout(call)))
    choice = plan_transposed_copy_of_a(call, vec, limits);
  else if (spec.reads_b_transposed_copy && spec.reads_b_transposed_copy(options, call_layout(call)))
    choice = plan_transposed_copy_of_b(call, vec, limits);
  else if (may_copy_operands(spec))
    choice = plan_aligned_copies(options, call, limits);
  if (spec.reads_through_caches && limits.type == DeviceType::CPU)
    add_cache_line_copies(choice, call, vec,
                          spec.reads_b_lines_as_vectors && spec.reads_b_lines_as_vectors(options),
                          limits);
  return choice;
}

KernelCall copied_call(const KernelCall& call, const CopyChoice& copies,
                       const DeviceLimits& limits) {
  KernelCall effective = call;
  const std::size_t alignment = limits.base_address_align_bits / 8;
  if (copies.a)
    effective.a = {nullptr, 0, copies.a_ld, call.a.transposed && !copies.a_transposed, alignment};
  if (copies.b)
    effective.b = {nullptr, 0, copies.b_ld, call.b.transposed && !copies.b_transposed, alignment};
  return effective;
}

}  // namespace clgemm::detail
