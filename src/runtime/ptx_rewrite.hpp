// Internal: the PTX rewrite that lets OpenCL C kernels use sm_90a-only instructions (Hopper's
// wgmma). NVIDIA's OpenCL compiler emits PTX for `.target sm_90`, and ptxas refuses wgmma
// there, whatever option is given. So a kernel writes each such instruction inside an inline
// asm statement as a marked PTX comment; the compiler substitutes the asm's operands inside
// the comment too and accepts the program; the build then rewrites the program's PTX (its
// CL_PROGRAM_BINARIES) and builds it again from that text (program_cache.cpp).
//
// The marker syntax. A marker is a line of PTX whose first characters after blanks (spaces,
// tabs) are "//@", followed by at least one blank and then one PTX statement ending in ';':
//
//     asm volatile("//@ wgmma.fence.sync.aligned;\n" ::: "memory");
//     asm volatile("//@ wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 "
//                  "{%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, p, 1, 1;\n" : "+f"(d0), ...);
//
// (the "\n" ends the comment, so any asm text after it stays code). The rewrite to sm_90a
// deletes "//@" and the blanks after it, keeping the line's indentation, and changes the one
// `.target sm_90` directive to `.target sm_90a`, keeping its other entries (texmode_*). It
// refuses, with Error(BuildFailed) naming the line and what is wrong:
//   - a marker with nothing after it, or no blank between "//@" and the statement;
//   - a marked statement that does not end in ';' or holds "/*";
//   - an operand left as written ("%0", "%[name]"): the marker was not in an asm string
//     whose operands the compiler substituted;
//   - "//@" anywhere but at the start of a line: after code or inside another comment (the
//     marker would not turn into code), or inside a /* */ comment;
//   - PTX with no `.target` directive, or more than one; a `.target` naming no sm_ target,
//     another one than sm_90 (or sm_90a: already rewritten PTX passes through unchanged, so
//     the rewrite is idempotent), or an entry PTX does not define;
//   - PTX with no `.version` directive, or one below 8.0 (sm_90a needs PTX ISA 8.0).
// Without the rewrite (PtxRewrite::None) PTX passes unchanged, but a line beginning with "//@"
// (after blanks) is refused: the marker would silently stay a comment and its statement would
// be missing. ("//@" elsewhere is left alone there: it is no marker, and plain builds of every
// kernel pass through this check.)
#pragma once

#include <cstddef>
#include <string>

#include "clgemm/device.hpp"

namespace clgemm::detail {

// What the build does to a program's PTX after compiling it (NVIDIA devices, whose program
// binaries are PTX text).
enum class PtxRewrite {
  None,   // built as compiled; PTX holding a marker is refused
  Sm90a,  // markers removed and the target changed to sm_90a, then built again from the PTX
};

// "none" or "sm_90a".
const char* ptx_rewrite_name(PtxRewrite rewrite);

// The marker that begins a PTX line holding a statement only the rewritten target accepts.
inline constexpr const char* kPtxMarker = "//@";

// Changes whenever the rewrite's output would; part of the disk cache key of rewritten
// programs (BinaryCache::key), so a binary made by an older rewrite is never loaded.
inline constexpr int kPtxRewriteVersion = 1;

// Whether the device runs PTX rewritten to sm_90a: an NVIDIA device (CL_DEVICE_VENDOR) of
// compute capability exactly 9.0 (sm_90a code runs on no other, newer ones included).
bool runs_sm90a(const DeviceLimits& device);

struct RewrittenPtx {
  std::string text;
  std::size_t markers = 0;  // marked statements turned into code
};

// The PTX as the build asks for it (see the top of this file). Deterministic: the same text
// gives the same result; rewriting a result again returns it unchanged. Trailing NUL bytes
// (drivers count one in a binary's size) are kept as they were.
RewrittenPtx rewrite_ptx(const std::string& ptx, PtxRewrite rewrite);

}  // namespace clgemm::detail
