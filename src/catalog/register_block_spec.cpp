// The register-blocked CPU kernel as data: one work-item per work-group, a ROWS x (VEC *
// VECTORS) block of C in vector registers (ROW_BLOCKS of them in turns along K), or with
// INNER_PRODUCTS ROWS x VECTORS outputs as VEC partial sums along K, operands read from global
// memory (the CPU's caches).
#include <algorithm>

#include "catalog/kernel_spec.hpp"

namespace clgemm::detail {

namespace {
long columns(const KernelOptions& o) {
  return opt(o, "INNER_PRODUCTS") ? opt(o, "VECTORS") : opt(o, "VEC") * opt(o, "VECTORS");
}
// The rows of C a work-item computes.
long group_rows(const KernelOptions& o) {
  return opt(o, "ROWS") * opt(o, "ROW_BLOCKS");
}
}  // namespace

// The inner products read A's rows as vectors where op(A) = A, op(B)'s columns where op(B) =
// B^T, and the other operand element by element. Besides op(A) = A with op(B) = B^T (fit_to_call
// below), on PoCL (2-core EPYC, GFLOP/s, outer products as auto fitted them against
// 4 x min(8, n) inner ones): both transposed, where B^T is the long operand, 1 x 4096 x 4096 5.5
// against 20.0, 8 x 4096 x 4096 4.9 (gemv) against 30.4, 64 x 4096 x 4096 14.0 against 29.7; but
// from 32 rows on the outer products on a transposed copy of B (reads_b_transposed_copy below) beat
// both: m x 4096 x 4096 for m = 8, 16, 32, 64, 256 inner products 30.1, 30.6, 30.0, 29.1,
// 24.2 against 19.1, 30.1, 46.2, 54.5, 75.4 with the copy (2048 rows: 131); untransposed, where A
// is the long operand and B has few columns, 4096 x n x 4096 for n = 1, 2, 3, 4, 6: 4.5, 2.7,
// 9.0, 6.3, 18.1 against 17.4, 24.9, 20.6, 19.0, 25.9, and n = 8: 24.8-40 against 17.9-25.3;
// but not at short K, where each output's sum and store outweigh its products: m x 4 x k for
// k = 64, 256, 1024 (m x k = 4 Mi, 4 Mi, 8 Mi): 42.4, 12.5, 16.0 against 5.2, 17.6, 22.0;
// 32768 x 2 x 128 6.9 against 4.4.
bool register_block_inner_products(const CallLayout& call) {
  if (call.b_transposed && call.batched)
    return !call.a_transposed || call.m <= kInnerProductRowsBothTransposed;
  if (call.b_transposed)
    return call.a_transposed ? call.m <= kInnerProductRowsCopiedA
                             : call.m < kOuterProductRowsCopiedB;
  return !call.a_transposed && call.n < kInnerProductColumns && call.k >= kInnerProductMinDepth;
}

KernelSpec register_block_spec() {
  KernelSpec s;
  s.description = {
      "register_block",
      "register_block.cl",
      "for CPUs: one work-item per work-group keeps ROWS x (VEC * VECTORS) outputs in vector "
      "registers and reads A and B from global memory through the caches, with no local "
      "memory and no barrier",
      {{"ROWS", "rows of C per block of accumulators", 1, 64, {4, 6, 8, 12, 16}},
       {"VEC", "floats per vector (1, 2, 4, 8 or 16)", 1, 16, {8, 16}},
       {"VECTORS",
        "vectors per row of C (1, 2 or 4); with INNER_PRODUCTS, columns of C (1 to 8)",
        1,
        8,
        {1, 2, 4}},
       {"DOWN_ROWS_FIRST",
        "1: the work-groups go down C's rows first (a panel of B shared by consecutive ones), "
        "0: along them first (A's rows shared)",
        0,
        1,
        {0, 1}},
       {"ROW_BLOCKS",
        "blocks of ROWS rows per work-item, taken in turns K_CHUNK deep so that they share each "
        "slab of B from the caches (products of few rows and long K)",
        1,
        16,
        {1, 2, 4, 8}},
       {"K_CHUNK", "depth of K per turn where ROW_BLOCKS > 1", 1, 65536, {128, 256, 512}},
       {"INNER_PRODUCTS",
        "1: each output kept as VEC partial sums along K, A's rows and op(B)'s columns read as "
        "vectors (op(A) = A, op(B) = B^T); 0: outer products along op(B)'s rows",
        0,
        1,
        {0, 1}}}};
  s.entry_point = "gemm_register_block";
  // The accumulators in registers: the blocks parked between turns (ROW_BLOCKS > 1) live in
  // private memory, the L1 cache.
  s.outputs_per_work_item = [](const KernelOptions& o) { return opt(o, "ROWS") * columns(o); };
  // The accumulators fill about three quarters of the vector registers. PoCL names its CPU
  // device after the LLVM target (pthread-skylake-avx512-..., pthread-haswell-...): with
  // AVX-512, 32 registers of 16 floats, 12 rows of two float16 (85-110 GFLOP/s at 768^3 on the
  // 2-core Xeon, where blocked's local-memory tiles reach 45-53; docs/PERFORMANCE.md); else
  // 16 registers of 8 floats (AVX2), 6 rows of two float8, not measured.
  s.derive = [](const DeviceLimits& d) {
    if (d.name.find("avx512") != std::string::npos)
      return KernelOptions{{"ROWS", 12},           {"VEC", 16},       {"VECTORS", 2},
                           {"DOWN_ROWS_FIRST", 0}, {"ROW_BLOCKS", 1}, {"K_CHUNK", 256},
                           {"INNER_PRODUCTS", 0}};
    return KernelOptions{
        {"ROWS", 6},       {"VEC", 8},       {"VECTORS", 2},       {"DOWN_ROWS_FIRST", 0},
        {"ROW_BLOCKS", 1}, {"K_CHUNK", 256}, {"INNER_PRODUCTS", 0}};
  };
  // No more rows per block, and no more blocks, than C has rows, and no more vectors, or wider
  // ones, than C's columns need: a work-item computes every output of its blocks, those past
  // C included, so the blocks of the Xeon's `thin` entry (four of 16 rows, 32 columns) would
  // do 64 times the work of a 1 x n product (on PoCL, 8 x 4096 x 4096 on 8-row blocks: 43.6
  // GFLOP/s, on four of 16 rows: 12.0; 4096 x 8 x 4096 on 8 columns: 79, on 32: 12.5).
  // The registers fewer rows free widen the rows, up to four vectors (on PoCL, 1 x 4096 x 4096
  // and 1 x 11008 x 4096 on one row of four float16: 1.3-1.7x as fast as on two).
  //
  // A call with op(A) = A and op(B) = B^T runs the inner products, on blocks of up to 4 rows x
  // 8 columns, along C's rows first (the turns along K as tuned): the outer products read such
  // a B element by element (on PoCL, 64 x 4096 x 4096 at 11.5 GFLOP/s, 1024^3 at 25.6,
  // 1 x 4096 x 4096 on gemv at 3.1), the inner ones as vectors (by hand: 92-114, 85-124,
  // 16-27; of the blocks tried, 1, 2 and 4 rows by 2, 4 and 8 columns, 4 x 8 was best or within
  // the noise of it from 8 rows on, 1 x 8 below; down C's rows first 0.72-0.87x as fast on
  // 8192 x 8192 x 64, 1024^3, 2048^3 and 128 x 11008 x 4096). The other calls whose long
  // operand runs along K take them too (register_block_inner_products).
  //
  // With A transposed the outer products read ROWS consecutive floats of each line of A as
  // stored, and the EPYC's entries, tuned on untransposed products, have 6 rows of four
  // float16: at least 12 rows (kTransposedARows) from 64 rows of C on (PoCL, 2-core EPYC,
  // GFLOP/s, the entry against 12 rows: 2048^3 A transposed 86 against 145, 1280^3 124 against
  // 157, 64 x 8192 x 8192 105 against 138, 1024^3 both transposed 145 against 148; but
  // 16 x 4096 x 4096 98 against 55 and 32 x 4096 x 11008 108 against 101, where 12-row blocks
  // overshoot C).
  //
  // A block's slab of B, its columns over all of K, stays in the caches for the next block down
  // C's rows only while it is small: beyond kDeepSlabBytes the rows are taken in at least
  // kDeepRowBlocks turns of K_CHUNK (PoCL, 2-core EPYC, GFLOP/s, the tuned entries' single turn
  // against 8: 512 x 4096 x 4096 97 against 135, 2048 x 2048 x 4096 89 against 139, 512 x 4096 x
  // 2048 99 against 141, 768 x 768 x 4096 111 against 150; 512 x 4096 x 1024, a slab of 256 KiB,
  // 139 in one turn).
  s.fit_to_call = [](KernelOptions o, const CallLayout& call) {
    const long rows = long(std::clamp<std::int64_t>(call.m, 1, 65536));
    const long columns = long(std::clamp<std::int64_t>(call.n, 1, 65536));
    const long depth = long(std::clamp<std::int64_t>(call.k, 1, 65536));
    o["INNER_PRODUCTS"] = register_block_inner_products(call);
    if (o["INNER_PRODUCTS"]) {
      o["ROWS"] = std::min(4L, rows);
      o["VECTORS"] = std::min(8L, columns);
      o["DOWN_ROWS_FIRST"] = 0;
      while (o.at("VEC") > 1 && o["VEC"] / 2 >= depth) o["VEC"] /= 2;
    } else {
      const long accumulators = o.at("ROWS") * o.at("VECTORS");
      if (call.a_transposed && call.m >= kTransposedAMinimumRows)
        o["ROWS"] = std::max(o["ROWS"], kTransposedARows);
      o["ROWS"] = std::min(o["ROWS"], rows);
      while (o["VECTORS"] < 4 && 2 * o["ROWS"] * o["VECTORS"] <= accumulators) o["VECTORS"] *= 2;
      while (o.at("VECTORS") > 1 && o["VEC"] * (o["VECTORS"] / 2) >= columns) o["VECTORS"] /= 2;
      while (o.at("VEC") > 1 && o["VEC"] / 2 >= columns) o["VEC"] /= 2;
      const long slab_bytes = o["VEC"] * o["VECTORS"] * depth * long(sizeof(float));
      if (slab_bytes > kDeepSlabBytes)
        o["ROW_BLOCKS"] = std::max(o.at("ROW_BLOCKS"), kDeepRowBlocks);
    }
    o["ROW_BLOCKS"] = std::min(o.at("ROW_BLOCKS"), (rows + o["ROWS"] - 1) / o["ROWS"]);
    return o;
  };
  // With both operands transposed the outer products would read B element by element, 4-8x
  // slower than op(B) as stored (PoCL: 2048^3 14 GFLOP/s against A alone transposed 66), and
  // the inner products pay only up to kInnerProductRowsBothTransposed rows; beyond them the
  // call reads a copy of op(B) made first, one pass over B (2048^3: 65 GFLOP/s; above).
  // With op(A) = A the inner products top out near 90-120 GFLOP/s on the EPYC, where the outer
  // products reach 140-150: from kOuterProductRowsCopiedB rows (n / 4 FLOP per byte copied, 64
  // at 256) a single product copies op(B) first too (EPYC, auto, B transposed, GFLOP/s, inner
  // products against the copy: 256 x 4096 x 4096 109 -> 120, 1024^3 116 -> 153, 2048^3 113 ->
  // 140, 2048 x 6144 x 4096 104 -> 154, 8192 x 8192 x 64 46 -> 110, 8192 x 64 x 8192 91 -> 173).
  s.reads_b_transposed_copy = [](const KernelOptions& o, const CallLayout& call) {
    return !opt(o, "INNER_PRODUCTS") && call.b_transposed;
  };
  // On the inner products with both transposed, A^T would be read element by element (PoCL,
  // 2-core EPYC, m x 4096 x 4096, GFLOP/s: 29 at 8 rows, 30 at 16), where the same products with
  // op(A) = A read it as vectors (65 and 88; 92 at 32 rows, 88 at 64, against 45 and 73 on
  // B's transposed copy). So a single product of at most kInnerProductRowsCopiedA rows copies
  // op(A) (M lines of K, small) transposed first; from 96 rows B's copy is as fast (89 against
  // 93) and faster from 256 (115 against 93).
  s.reads_a_transposed_copy = [](const KernelOptions& o, const CallLayout& call) {
    return opt(o, "INNER_PRODUCTS") && call.a_transposed && call.b_transposed;
  };
  s.reads_through_caches = true;
  s.reads_b_lines_as_vectors = [](const KernelOptions& o) { return !opt(o, "INNER_PRODUCTS"); };
  s.constraints = {
      vector_width_constraint(),
      {"VECTORS is 1, 2 or 4 (any of 1 to 8 with INNER_PRODUCTS)",
       [](const KernelOptions& o) {
         const long v = opt(o, "VECTORS");
         return v == 1 || v == 2 || v == 4 || (opt(o, "INNER_PRODUCTS") && v <= 8);
       }},
  };
  s.work_group = [](const KernelOptions&) { return std::array<std::size_t, 2>{1, 1}; };
  s.local_memory_bytes = [](const KernelOptions&) { return std::size_t(0); };
  s.geometry = [](const KernelOptions& o, std::int64_t m, std::int64_t n) {
    return LaunchGeometry{
        {groups(n, std::size_t(columns(o))), groups(m, std::size_t(group_rows(o)))}, {1, 1}};
  };
  s.block = [](const KernelOptions& o) {
    return std::array<std::int64_t, 3>{group_rows(o), columns(o), 1};
  };
  // Each work-item reads its rows of A and COLUMNS columns of B over all of K.
  s.operand_loads = [](const KernelOptions& o, std::int64_t m, std::int64_t n, std::int64_t k) {
    return tiled_loads(m, n, k, group_rows(o), columns(o));
  };
  return s;
}

}  // namespace clgemm::detail
