// The pure planning functions of multi-launch calls: the split factor (choose_split, slice_k),
// the aligned-copy decision (choose_copies), on the H200's numbers and edge cases, when a
// planned split holds beside the operands' copies (holds_for), and the last wave's split.
#include <gtest/gtest.h>

#include <cmath>

#include "plan/aligned_copy.hpp"
#include "plan/device_fill.hpp"
#include "plan/last_wave.hpp"
#include "plan/split_k.hpp"
#include "plan/split_plan.hpp"
#include "plan/wave_plan.hpp"
#include "plan/workspace_limit.hpp"

namespace clgemm::detail {
namespace {

TEST(ChooseSplit, TwoWavesOverTheComputeUnits) {
  const std::array<std::int64_t, 3> h200_tile{128, 256, 8};
  // 8 work-groups of 132 SMs: 33 slices for 264 groups, 1985 deep each.
  EXPECT_EQ(choose_split(512, 512, 65536, h200_tile, 132), 33);
  // 2 work-groups: 132 wanted, but slices stay kMinSliceDepth = 1024 deep: 16.
  EXPECT_EQ(choose_split(256, 256, 16384, h200_tile, 132), 16);
  EXPECT_EQ(choose_split(64, 64, 100000, h200_tile, 132), 97);
  // A shallower minimum allows more slices.
  EXPECT_EQ(choose_split(256, 256, 16384, h200_tile, 132, 256), 64);
  // Enough work-groups already, or too little K.
  EXPECT_EQ(choose_split(4096, 4096, 4096, h200_tile, 132), 1);
  EXPECT_EQ(choose_split(512, 512, 300, h200_tile, 132), 1);
  EXPECT_EQ(choose_split(512, 512, 512, {64, 64, 16}, 132), 1);  // 64 groups, but K too short
  EXPECT_EQ(choose_split(1, 1, 1, h200_tile, 132), 1);
  EXPECT_EQ(choose_split(0, 5, 5, h200_tile, 132), 1);
}

TEST(ChooseSplit, OneSliceFewerWhereTheWavesWouldBeRagged) {
  // 64 tiles of 64 x 128: 5 slices are 320 groups, a third on 56 of 132 units; 4 are 256.
  EXPECT_EQ(choose_split(64, 8192, 8192, {64, 128, 8}, 132), 4);
  // 128 tiles of 64 x 64: 3 slices (384 groups, 2.9 per unit) spread as evenly as 2 would.
  EXPECT_EQ(choose_split(8192, 64, 8192, {64, 64, 16}, 132), 3);
  // 172 tiles: one slice fewer is no split, 2 groups on 40 units and 1 on the rest.
  EXPECT_EQ(choose_split(128, 11008, 4096, {64, 128, 16}, 132), 2);
  // 100 tiles: 3 slices (300 groups) against 2 (200) by less than 5%, so 3 stand.
  EXPECT_EQ(choose_split(640, 1280, 8192, {64, 128, 16}, 132), 3);
  // Where K caps the slices below two waves, the cap stands.
  EXPECT_EQ(choose_split(64, 8192, 3072, {64, 128, 16}, 132), 3);
  // Over every tile count below two waves: the slices for two waves or one fewer, and every
  // unit has a group.
  for (std::int64_t tiles = 1; tiles < 264; ++tiles) {
    const long s = choose_split(64, 128 * tiles, 1 << 20, {64, 128, 16}, 132);
    const std::int64_t two_waves = (264 + tiles - 1) / tiles;
    EXPECT_TRUE(s == two_waves || s == two_waves - 1) << tiles << " tiles: " << s;
    EXPECT_GE(tiles * s, 132) << tiles << " tiles: " << s;
  }
}

TEST(SliceK, WholeStepsNoEmptySlice) {
  EXPECT_EQ(slice_k(5000, 7, 16).slices, 7);
  EXPECT_EQ(slice_k(5000, 7, 16).k_slice, 720);
  EXPECT_EQ(slice_k(20000, 8, 16).slices, 8);
  EXPECT_EQ(slice_k(20000, 8, 16).k_slice, 2512);
  EXPECT_EQ(slice_k(5000, 65536, 16).slices, 313);  // clamped to steps of 16
  EXPECT_EQ(slice_k(1, 4, 16).slices, 1);
  EXPECT_EQ(slice_k(100, 0, 16).slices, 1);
  for (long s = 1; s < 50; ++s) {
    const auto slices = slice_k(1000, s, 8);
    EXPECT_LE(slices.slices, s);
    EXPECT_LT((slices.slices - 1) * slices.k_slice, 1000);  // the last slice is not empty
    EXPECT_GE(slices.slices * slices.k_slice, 1000);
  }
}

TEST(WorkspaceBytes, OverflowChecked) {
  EXPECT_EQ(float_bytes(3, 5, 7), std::optional<std::size_t>(420));
  EXPECT_FALSE(float_bytes(std::uint64_t(1) << 40, std::uint64_t(1) << 30).has_value());
  DeviceLimits limits;
  limits.max_allocation_bytes = 1000;
  EXPECT_EQ(workspace_limit(limits), 250u);
}

KernelCall call_of(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda) {
  GemmProblem p = GemmProblem::packed(m, n, k);
  p.lda = lda;
  KernelCall call = row_major_call(p);
  call.a.base_alignment = call.b.base_alignment = 128;
  return call;
}

TEST(ChooseCopies, VolumeAndIntensity) {
  const auto gpu = DeviceType::GPU, cpu = DeviceType::CPU;
  const KernelCall big = call_of(6145, 6144, 6145, 6145);
  const bool a_ok = operand_aligned(big.a, 4), b_ok = operand_aligned(big.b, 4);
  EXPECT_FALSE(a_ok);
  EXPECT_TRUE(b_ok);
  const auto copy = choose_copies(big, 4, 1, a_ok, b_ok, gpu);
  EXPECT_TRUE(copy.a);
  EXPECT_FALSE(copy.b);
  EXPECT_NE(copy.reason.find("copied to aligned storage"), std::string::npos) << copy.reason;
  const KernelCall small = call_of(129, 131, 133, 136 + 1);
  const auto skipped = choose_copies(small, 4, 1, false, false, cpu);
  EXPECT_FALSE(skipped.a || skipped.b);
  EXPECT_NE(skipped.reason.find("below 2048^3 (on CPU devices)"), std::string::npos)
      << skipped.reason;
  // Just below the device's volume, however intense: not copied; just above: copied.
  EXPECT_FALSE(choose_copies(call_of(2047, 2047, 2047, 2047), 4, 1, false, false, cpu).a);
  EXPECT_TRUE(choose_copies(call_of(2049, 2049, 2049, 2049), 4, 1, false, false, cpu).a);
  const auto gpu_4097 = choose_copies(call_of(4097, 4097, 4097, 4097), 4, 1, false, false, gpu);
  EXPECT_FALSE(gpu_4097.a);
  EXPECT_NE(gpu_4097.reason.find("below 5120^3 (on GPU devices)"), std::string::npos)
      << gpu_4097.reason;
  EXPECT_FALSE(choose_copies(call_of(5119, 5119, 5119, 5119), 4, 1, false, false, gpu).a);
  EXPECT_TRUE(choose_copies(call_of(5121, 5121, 5121, 5121), 4, 1, false, false, gpu).a);
  EXPECT_TRUE(choose_copies(small, 4, 2, false, true, gpu).a);
  EXPECT_FALSE(choose_copies(big, 4, 0, false, true, gpu).a);
  EXPECT_TRUE(choose_copies(big, 4, 1, true, true, gpu).reason.empty());
  EXPECT_EQ(stored_a(big).lines, 6145);
  EXPECT_EQ(padded_ld(4097, 4), 4100);
}

// register_block with both operands transposed reads op(B) from a transposed copy: K lines of
// N, padded to its VEC, read untransposed; not for a batch, not on the inner products, and not
// where the padded copy exceeds the workspace limit (a quarter of the largest allocation),
// which the reason names.
TEST(ChooseCopies, TransposedCopyOfBForRegisterBlock) {
  const KernelSpec& spec = find_spec("register_block");
  const KernelOptions outer{{"ROWS", 12},         {"VEC", 16},       {"VECTORS", 2},
                            {"K_CHUNK", 256},     {"ROW_BLOCKS", 1}, {"DOWN_ROWS_FIRST", 0},
                            {"INNER_PRODUCTS", 0}};
  GemmProblem p = GemmProblem::packed(300, 1001, 70);
  p.trans_a = p.trans_b = Transpose::Trans, p.lda = 300, p.ldb = 70;
  const KernelCall call = row_major_call(p);
  DeviceLimits cpu;
  cpu.type = DeviceType::CPU, cpu.max_allocation_bytes = std::size_t(1) << 30;
  const CopyChoice copy = plan_copies(spec, outer, call, cpu);
  EXPECT_TRUE(copy.b && copy.b_transposed);
  EXPECT_FALSE(copy.a);
  EXPECT_NE(copy.reason.find("op(B) copied first"), std::string::npos) << copy.reason;
  const CopyLayout layout = lay_out_copies(call, copy);
  EXPECT_EQ(layout.b_ld, 1008);  // N = 1001 padded to whole float16s
  EXPECT_EQ(layout.floats, workspace_region(70 * 1008));
  const KernelCall reads = copied_call(call, copy, cpu);
  EXPECT_FALSE(reads.b.transposed);
  EXPECT_TRUE(reads.a.transposed);
  EXPECT_EQ(reads.b.ld, 1008);
  // The padded copy is 282,240 bytes: a limit of 282,236 refuses it.
  cpu.max_allocation_bytes = 4 * std::size_t(70 * 1008 * 4) - 16;
  const CopyChoice refused = plan_copies(spec, outer, call, cpu);
  EXPECT_FALSE(refused.b || refused.b_transposed);
  EXPECT_NE(refused.reason.find("workspace limit"), std::string::npos) << refused.reason;
  cpu.max_allocation_bytes = std::size_t(1) << 30;
  KernelOptions inner = outer;
  inner["INNER_PRODUCTS"] = 1, inner["VECTORS"] = 8;
  EXPECT_FALSE(plan_copies(spec, inner, call, cpu).b);
  GemmProblem batch = p;
  batch.batch = 2;
  EXPECT_FALSE(plan_copies(spec, outer, row_major_call(batch), cpu).b);
  GemmProblem a_only = p;
  a_only.trans_b = Transpose::NoTrans, a_only.ldb = 1001;
  EXPECT_FALSE(plan_copies(spec, outer, row_major_call(a_only), cpu).b);
  // B alone transposed on the outer products (auto's fit takes them from 256 rows): the same
  // copy.
  GemmProblem b_only = p;
  b_only.trans_a = Transpose::NoTrans, b_only.lda = 70;
  const CopyChoice b_copy = plan_copies(spec, outer, row_major_call(b_only), cpu);
  EXPECT_TRUE(b_copy.b && b_copy.b_transposed && !b_copy.a);
  EXPECT_FALSE(copied_call(row_major_call(b_only), b_copy, cpu).b.transposed);
}

// Where register_block computes inner products with op(B) = B^T: beside op(A) = A below 256
// rows (from 256, the outer products on B's transposed copy), beside op(A) = A^T up to 64 rows
// (on A's transposed copy); a batch, whose operands are not copied, beside op(A) = A always and
// beside op(A) = A^T up to 16 rows.
TEST(ChooseCopies, InnerProductsWithBTransposed) {
  const auto inner = [](std::int64_t m, bool a_transposed, bool batched) {
    return register_block_inner_products(CallLayout{m, 1001, 70, a_transposed, true, batched});
  };
  EXPECT_TRUE(inner(255, false, false));
  EXPECT_FALSE(inner(256, false, false));
  EXPECT_TRUE(inner(4096, false, true));
  EXPECT_TRUE(inner(64, true, false));
  EXPECT_FALSE(inner(65, true, false));
  EXPECT_TRUE(inner(16, true, true));
  EXPECT_FALSE(inner(17, true, true));
  EXPECT_FALSE(register_block_inner_products(CallLayout{8, 1001, 70, true, false, false}));
}

// register_block's inner products with both operands transposed read op(A) from a transposed
// copy: M lines of K, its ld from copy_ld, read untransposed; not below 64 FLOP per byte copied,
// not for a batch, not on the outer products, and not past the workspace limit.
TEST(ChooseCopies, TransposedCopyOfAForRegisterBlock) {
  const KernelSpec& spec = find_spec("register_block");
  const KernelOptions inner{{"ROWS", 4},          {"VEC", 16},       {"VECTORS", 8},
                            {"K_CHUNK", 256},     {"ROW_BLOCKS", 1}, {"DOWN_ROWS_FIRST", 0},
                            {"INNER_PRODUCTS", 1}};
  GemmProblem p = GemmProblem::packed(20, 1001, 70);
  p.trans_a = p.trans_b = Transpose::Trans, p.lda = 20, p.ldb = 70;
  const KernelCall call = row_major_call(p);
  DeviceLimits cpu;
  cpu.type = DeviceType::CPU, cpu.max_allocation_bytes = std::size_t(1) << 30;
  const CopyChoice copy = plan_copies(spec, inner, call, cpu);
  EXPECT_TRUE(copy.a && copy.a_transposed);
  EXPECT_FALSE(copy.b || copy.b_transposed);
  EXPECT_NE(copy.reason.find("op(A) copied first"), std::string::npos) << copy.reason;
  const CopyLayout layout = lay_out_copies(call, copy);
  EXPECT_EQ(layout.a_ld, 80);  // K = 70 padded to whole float16s
  EXPECT_EQ(layout.floats, workspace_region(20 * 80));
  const KernelCall reads = copied_call(call, copy, cpu);
  EXPECT_FALSE(reads.a.transposed);
  EXPECT_TRUE(reads.b.transposed);
  EXPECT_EQ(reads.a.ld, 80);
  // The copy is 6,400 bytes: a limit of 6,396 refuses it.
  cpu.max_allocation_bytes = 4 * std::size_t(20 * 80 * 4) - 16;
  const CopyChoice refused = plan_copies(spec, inner, call, cpu);
  EXPECT_FALSE(refused.a || refused.a_transposed);
  EXPECT_NE(refused.reason.find("workspace limit"), std::string::npos) << refused.reason;
  cpu.max_allocation_bytes = std::size_t(1) << 30;
  GemmProblem narrow = p;
  narrow.n = 255;  // 2 * 20 * 255 * 70 FLOP against 8 * 20 * 70 bytes: 63.75 per byte
  const CopyChoice below = plan_copies(spec, inner, row_major_call(narrow), cpu);
  EXPECT_FALSE(below.a);
  EXPECT_NE(below.reason.find("below 64"), std::string::npos) << below.reason;
  KernelOptions outer = inner;
  outer["INNER_PRODUCTS"] = 0, outer["VECTORS"] = 2;
  EXPECT_FALSE(plan_copies(spec, outer, call, cpu).a);
  GemmProblem batch = p;
  batch.batch = 2;
  EXPECT_FALSE(plan_copies(spec, inner, row_major_call(batch), cpu).a);
  GemmProblem b_only = p;
  b_only.trans_a = Transpose::NoTrans, b_only.lda = 70;
  EXPECT_FALSE(plan_copies(spec, inner, row_major_call(b_only), cpu).a);
}

// On a CPU, register_block reads an operand whose lines lie a multiple of kCacheAliasBytes
// apart from a copy one cache line wider (copy_ld), from kCacheAliasMinimumLines lines on and
// where the copies are small next to the product; never on a GPU, never for a batch, never
// past the workspace limit, and B's transposed copy gets a wider line too.
TEST(ChooseCopies, CacheAliasingOperandsOnCpus) {
  EXPECT_EQ(copy_ld(1024, 16, DeviceType::CPU), 1040);
  EXPECT_EQ(copy_ld(1024, 16, DeviceType::GPU), 1024);
  EXPECT_EQ(copy_ld(1000, 16, DeviceType::CPU), 1008);
  EXPECT_EQ(copy_ld(1020, 4, DeviceType::GPU), 1020);
  EXPECT_EQ(copy_ld(2044, 8, DeviceType::CPU), 2064);  // 2048 after the padding to float8s
  const KernelSpec& spec = find_spec("register_block");
  const KernelOptions outer{{"ROWS", 12},         {"VEC", 16},       {"VECTORS", 2},
                            {"K_CHUNK", 256},     {"ROW_BLOCKS", 1}, {"DOWN_ROWS_FIRST", 0},
                            {"INNER_PRODUCTS", 0}};
  DeviceLimits cpu;
  cpu.type = DeviceType::CPU, cpu.max_allocation_bytes = std::size_t(1) << 30;
  const KernelCall square = row_major_call(GemmProblem::packed(1024, 1024, 1024));
  const CopyChoice both = plan_copies(spec, outer, square, cpu);
  EXPECT_TRUE(both.a && both.b && !both.b_transposed);
  EXPECT_EQ(both.a_ld, 1040);
  EXPECT_EQ(both.b_ld, 1040);
  EXPECT_NE(both.reason.find("share the caches' sets"), std::string::npos) << both.reason;
  EXPECT_NE(both.reason.find("copied first"), std::string::npos) << both.reason;
  // 3000 floats: B's vectors of 16 straddle cache lines (12,000 bytes a line), so B is copied
  // aligned (ld 3008); A, read a float at a time, is not; on the inner products, neither.
  const KernelCall odd = row_major_call(GemmProblem::packed(3000, 3000, 3000));
  const CopyChoice aligned = plan_copies(spec, outer, odd, cpu);
  EXPECT_TRUE(aligned.b && !aligned.a) << aligned.reason;
  EXPECT_EQ(aligned.b_ld, 3008);
  EXPECT_NE(aligned.reason.find("straddle cache lines"), std::string::npos) << aligned.reason;
  KernelOptions inner_products = outer;
  inner_products["INNER_PRODUCTS"] = 1, inner_products["VECTORS"] = 8;
  EXPECT_FALSE(plan_copies(spec, inner_products, odd, cpu).b);
  const CopyLayout layout = lay_out_copies(square, both);
  EXPECT_EQ(layout.b_at, workspace_region(1024 * 1040));
  EXPECT_EQ(copied_call(square, both, cpu).a.ld, 1040);
  // 1008 floats (4,032 bytes, a line clear of 4,096, whole float16s): nothing copied, nothing
  // said; 1023 floats (4,092 bytes, within a line of 4,096): copied with ld 1040.
  const CopyChoice none =
      plan_copies(spec, outer, row_major_call(GemmProblem::packed(1008, 1008, 1008)), cpu);
  EXPECT_FALSE(none.a || none.b);
  EXPECT_TRUE(none.reason.empty()) << none.reason;
  EXPECT_EQ(
      plan_copies(spec, outer, row_major_call(GemmProblem::packed(1023, 1023, 1023)), cpu).a_ld,
      1040);
  EXPECT_TRUE(lines_share_cache_sets(2047) && lines_share_cache_sets(1025));
  EXPECT_FALSE(lines_share_cache_sets(1008) || lines_share_cache_sets(1040));
  EXPECT_EQ(copy_ld(1028, 4, DeviceType::CPU), 1044);  // 1028: 16 bytes past 4,096
  // K = 256: B's 256 lines stay as stored, A (ld 256, 1,024 bytes) does not alias.
  EXPECT_FALSE(
      plan_copies(spec, outer, row_major_call(GemmProblem::packed(1024, 1024, 256)), cpu).b);
  // 128 x 1024 x 1024: only B aliases (A has 128 lines), 32 FLOP per byte of its copy.
  const CopyChoice thin =
      plan_copies(spec, outer, row_major_call(GemmProblem::packed(128, 1024, 1024)), cpu);
  EXPECT_FALSE(thin.a || thin.b);
  EXPECT_NE(thin.reason.find("below 64"), std::string::npos) << thin.reason;
  DeviceLimits gpu = cpu;
  gpu.type = DeviceType::GPU;
  EXPECT_FALSE(plan_copies(spec, outer, square, gpu).a);
  GemmProblem batch = GemmProblem::packed(1024, 1024, 1024);
  batch.batch = 2;
  EXPECT_FALSE(plan_copies(spec, outer, row_major_call(batch), cpu).a);
  // Both transposed: B's transposed copy (N = 1024 floats wide, so 1040) and A's wider copy.
  GemmProblem tt = GemmProblem::packed(1024, 1024, 1024);
  tt.trans_a = tt.trans_b = Transpose::Trans;
  const CopyChoice transposed = plan_copies(spec, outer, row_major_call(tt), cpu);
  EXPECT_TRUE(transposed.a && transposed.b && transposed.b_transposed);
  EXPECT_EQ(transposed.b_ld, 1040);
  EXPECT_EQ(transposed.a_ld, 1040);
  // Two copies of 1024 x 1040 floats need 8,519,680 bytes: a limit 4 bytes short refuses them.
  DeviceLimits small = cpu;
  small.max_allocation_bytes = 4 * (2 * std::size_t(1024 * 1040 * 4) - 4);
  const CopyChoice refused = plan_copies(spec, outer, square, small);
  EXPECT_FALSE(refused.a || refused.b);
  EXPECT_NE(refused.reason.find("workspace limit"), std::string::npos) << refused.reason;
}

// A split planned with no workspace used (as a call's plan decides it) holds beside copies
// exactly when plan_split() decides the same there: while its partial products fit what the
// copies leave; past that, an automatic split is reduced and the plan's no longer holds.
TEST(PlanSplit, PlannedSplitHoldsWhereTheCopiesChangeNothing) {
  DeviceLimits limits;
  limits.compute_units = 132;
  limits.max_allocation_bytes = std::size_t(16) << 20;  // a workspace limit of 4 MiB
  const KernelSpec& spec = find_spec("blocked");
  ASSERT_TRUE(spec.slices_k);
  const KernelOptions options = resolve_options("blocked", limits, {});
  const KernelCall call = call_of(64, 64, 200000, 200000);
  const SplitPlan planned = plan_split(spec, options, call, 0, limits);
  ASSERT_GT(planned.slices.slices, 1);
  ASSERT_GT(planned.requested_bytes, 0u);
  const std::size_t limit = workspace_limit(limits);
  bool held = false, reduced = false;
  for (std::size_t used = 0; used <= limit; used += limit / 64) {
    const SplitPlan again = plan_split(spec, options, call, used, limits);
    const bool same = again.slices.slices == planned.slices.slices &&
                      again.slices.k_slice == planned.slices.k_slice &&
                      again.reason == planned.reason;
    EXPECT_EQ(holds_for(planned, options, call, used, limits), same) << used;
    held = held || same;
    reduced = reduced || !same;
  }
  EXPECT_TRUE(held);
  EXPECT_TRUE(reduced);
  // Other parameters (a build under a lower work-group limit) or another shape: planned again.
  KernelOptions other = options;
  other["TILE_K"] = options.at("TILE_K") * 2;
  EXPECT_FALSE(holds_for(planned, other, call, 0, limits));
  EXPECT_FALSE(holds_for(planned, options, call_of(64, 64, 100000, 100000), 0, limits));
}

// The tensor-core kernels slice K as blocked does: a product whose tiles leave most of the
// H200's units idle is split into slices of whole TILE_K steps (of whole packed blocks for
// wgmma, whose 3xTF32 blocks are TILE_K / 2 deep), a batch or a product that fills the device
// is not, and SPLIT_K forces a split.
TEST(PlanSplit, TensorCoreKernelsSplitProductsThatLeaveTheDeviceIdle) {
  DeviceLimits h200;
  h200.compute_units = 132;
  h200.max_allocation_bytes = std::size_t(35) << 30;
  h200.max_work_group_size = 1024;
  h200.local_memory_bytes = 48 * 1024;
  for (const char* kernel : {"tensorcore", "wgmma"}) {
    SCOPED_TRACE(kernel);
    const KernelSpec& spec = find_spec(kernel);
    ASSERT_TRUE(spec.slices_k);
    KernelOptions options = resolve_options(kernel, h200, {});
    const std::int64_t step = spec.block(options)[2];
    // One work-group's tile of C, K = 8192: 8 slices of kMinSliceDepth = 1024.
    const SplitPlan thin = plan_split(spec, options, call_of(64, 64, 8192, 8192), 0, h200);
    EXPECT_EQ(thin.slices.slices, 8);
    EXPECT_EQ(thin.slices.k_slice % step, 0);
    EXPECT_NE(thin.reason.find("split-K into 8 slices"), std::string::npos) << thin.reason;
    // A batch of the same products, and a product of many tiles: not split.
    KernelCall batch = call_of(64, 64, 8192, 8192);
    batch.batch = 4;
    EXPECT_EQ(plan_split(spec, options, batch, 0, h200).slices.slices, 1);
    EXPECT_EQ(plan_split(spec, options, call_of(4096, 4096, 4096, 4096), 0, h200).slices.slices, 1);
    // Forced, even where the tiles fill the device; K not a multiple of the slices.
    options["SPLIT_K"] = 3;
    const SplitPlan forced = plan_split(spec, options, call_of(4096, 4096, 1000, 1000), 0, h200);
    EXPECT_EQ(forced.slices.slices, 3);
    EXPECT_EQ(forced.slices.k_slice % step, 0);
    EXPECT_GE(forced.slices.k_slice * 3, 1000);
  }
}

// The wave model (plan/wave_plan.hpp) on the H200's large tiles (128 x 256, one work-group per
// SM: 132 at once) chooses the splits that measured fastest there.
TEST(WaveModel, ChoosesTheSplitsMeasuredFastestOnTheH200) {
  const auto choose = [](std::int64_t m, std::int64_t n, std::int64_t k) {
    return choose_waves({m, n, k, {128, 256, 8}, 132});
  };
  // 24 groups: 11 slices are 264 groups, two full waves (measured 33.7 TFLOP/s; 4 slices 27.3,
  // 8 slices 26.2, 16 slices 30.6).
  EXPECT_EQ(choose(128, 6144, 4096).slices, 11);
  // 224 groups: 4 slices are 896 groups, 6.8 waves (42.4; unsplit 39.6, 2 slices 39.0, 3 38.4).
  EXPECT_EQ(choose(512, 14336, 4096).slices, 4);
  // 72 groups: 5 slices, 2.7 waves (30.3; unsplit 23.9, 3 slices 27.5, 6 slices 27.3).
  EXPECT_EQ(choose(1536, 1536, 1536).slices, 5);
  // 43 groups: 6 slices (258 groups, 37.9) beat 4 and 8 (27.3, 33.2) but not 3 (129 groups).
  const WaveChoice wide = choose(128, 11008, 4096);
  EXPECT_EQ(wide.slices, 3);
  const WaveGeometry g{128, 11008, 4096, {128, 256, 8}, 132};
  EXPECT_LT(whole_split_time(g, 6), whole_split_time(g, 4));
  EXPECT_LT(whole_split_time(g, 6), whole_split_time(g, 8));
  // 325 groups (2.5 waves): the whole call in 2 slices (41.8 against 37.1 unsplit) or the last
  // wave's 65 groups in 2 slices, which the model has a little faster.
  const WaveChoice ragged = choose(3200, 3200, 3200);
  ASSERT_TRUE(ragged.last_wave);
  EXPECT_EQ(ragged.last_wave->slices, 2);
  EXPECT_EQ(ragged.slices, 1);
  // Whole waves, or too little to gain: unsplit.
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
           {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}, {2048, 13824, 5120}}) {
    const WaveChoice none = choose(m, n, k);
    EXPECT_EQ(none.slices, 1) << m << "x" << n << "x" << k;
    EXPECT_FALSE(none.last_wave) << m << "x" << n << "x" << k;
  }
  // The model's figures: 2048^3 unsplit is one wave of 2048 + 32; work / time its share.
  const WaveChoice square = choose(2048, 2048, 2048);
  EXPECT_DOUBLE_EQ(square.time, 2048 + kGroupFixedDepth);
  EXPECT_DOUBLE_EQ(square.work, 128.0 * 2048 / 132);
  // Without a known wave, choose_split()'s two-wave rule: 264 / 24 wanted, K / 1024 allowed.
  EXPECT_EQ(choose_split(128, 6144, 4096, {128, 256, 8}, 132), 4);
}

// choose_waves weighs only the deepest split of each count of waves; weighing every split from 2
// to K / kMinSplitSliceDepth (up to 1024) finds no faster one, over a grid of shapes, tiles and
// wave sizes.
TEST(WaveModel, TheDeepestSplitOfEachWaveCountIsTheFastest) {
  const std::array<std::array<std::int64_t, 3>, 3> blocks{
      {{128, 256, 8}, {32, 128, 32}, {64, 64, 16}}};
  int compared = 0;
  for (const auto& block : blocks)
    for (std::int64_t units : {8, 132, 264})
      for (std::int64_t m : {1, 64, 300, 1000, 3000})
        for (std::int64_t n : {7, 128, 2048, 5000})
          for (std::int64_t k : {256, 1000, 4096, 65536, 300000}) {
            const WaveGeometry g{m, n, k, block, units};
            const double unsplit = whole_split_time(g, 1);
            double best = unsplit;
            for (long s = 2; s <= std::min<std::int64_t>(k / kMinSplitSliceDepth, 1024); ++s) {
              const double time = whole_split_time(g, s);
              if (time * kMinSplitGain <= unsplit) best = std::min(best, time);
            }
            if (auto split = split_last_wave(block, units, m, n, k)) {
              const double time = last_wave_time(g, *split);
              if (time * kMinSplitGain <= unsplit) best = std::min(best, time);
            }
            EXPECT_NEAR(choose_waves(g).time, best, 1e-9 * best)
                << m << "x" << n << "x" << k << " on " << block[0] << "x" << block[1] << ", "
                << units << " at once";
            ++compared;
          }
  EXPECT_EQ(compared, 3 * 3 * 5 * 4 * 5);
}

TEST(WaveModel, ForcedSplitsAndEdgeCases) {
  const WaveGeometry g{3000, 3000, 3000, {128, 256, 8}, 132};
  // SPLIT_K given: that split, timed; 1 weighs the last wave's split alone.
  const WaveChoice four = choose_waves(g, 4);
  EXPECT_EQ(four.slices, 4);
  EXPECT_FALSE(four.last_wave);
  EXPECT_DOUBLE_EQ(four.time, whole_split_time(g, 4));
  const WaveChoice one = choose_waves(g, 1);
  EXPECT_EQ(one.slices, 1);
  ASSERT_TRUE(one.last_wave);
  EXPECT_EQ(one.last_wave->slices, 5);
  // The request clamps to whole TILE_K steps and to K: 3 deep in 5 slices is one.
  EXPECT_EQ(choose_waves({8, 8, 3, {128, 256, 8}, 132}, 5).slices, 1);
  // Slices keep kMinSplitSliceDepth: K = 255 is never split, however few the groups.
  EXPECT_EQ(choose_waves({128, 256, 255, {128, 256, 8}, 132}).slices, 1);
  EXPECT_EQ(choose_waves({128, 256, 256, {128, 256, 8}, 132}).slices, 2);
  // No wave known, or nothing to compute: no split and no time.
  for (const WaveGeometry& empty : {WaveGeometry{128, 256, 4096, {128, 256, 8}, 0},
                                    WaveGeometry{0, 256, 4096, {128, 256, 8}, 132},
                                    WaveGeometry{128, 256, 0, {128, 256, 8}, 132}}) {
    const WaveChoice none = choose_waves(empty);
    EXPECT_EQ(none.slices, 1);
    EXPECT_FALSE(none.last_wave);
    EXPECT_EQ(none.time, 0);
  }
  // Sizes whose groups of every slice pass 64 bits are counted without overflow (the sanitized
  // build checks): 2^54 groups of 16 x 16 are whole waves already.
  const WaveChoice huge = choose_waves(
      {std::int64_t(1) << 31, std::int64_t(1) << 31, std::int64_t(1) << 20, {16, 16, 8}, 132});
  EXPECT_EQ(huge.slices, 1);
  EXPECT_FALSE(huge.last_wave);
  EXPECT_GT(huge.time, 0);
  EXPECT_TRUE(std::isfinite(whole_split_time(
      {std::int64_t(1) << 31, std::int64_t(1) << 31, std::int64_t(1) << 20, {16, 16, 8}, 132},
      1024)));
  // Huge K on a handful of groups: about two waves, as the rule without a known wave chose.
  EXPECT_EQ(choose_waves({512, 512, 65536, {128, 256, 8}, 132}).slices, 33);
}

// The planner takes the wave model's split where the options give the wave, and says so; a
// split the caller forces is only that.
TEST(WaveModel, ThePlannerTakesItsSplitAndSaysSo) {
  DeviceLimits h200;
  h200.compute_units = 132;
  h200.max_allocation_bytes = std::size_t(35) << 30;
  KernelOptions large{{"TILE_M", 128},  {"TILE_N", 256},     {"TILE_K", 8},
                      {"ITEM_M", 16},   {"ITEM_N", 8},       {"VEC", 4},
                      {"UNROLL", 1},    {"LANES_N", 0},      {"FRAG_PREFETCH", 0},
                      {"LOCAL_PAD", 4}, {"WAVE_UNITS", 132}, {"ASYNC_COPY", 0},
                      {"STAGES", 2},    {"STORE_VEC4", 1},   {"K_GROUPS", 1}};
  const KernelSpec& spec = find_spec("blocked");
  const KernelCall call = call_of(128, 6144, 4096, 4096);
  const SplitPlan chosen = plan_split(spec, large, call, 0, h200);
  EXPECT_EQ(chosen.slices.slices, 11);
  EXPECT_NE(chosen.reason.find("WAVE_UNITS = 132 at once, by the wave model"), std::string::npos)
      << chosen.reason;
  large["SPLIT_K"] = 4;
  const SplitPlan forced = plan_split(spec, large, call, 0, h200);
  EXPECT_EQ(forced.slices.slices, 4);
  EXPECT_NE(forced.reason.find("SPLIT_K = 4: split-K into 4 slices"), std::string::npos)
      << forced.reason;
  EXPECT_EQ(forced.reason.find("wave model"), std::string::npos) << forced.reason;
}

// The last wave's split of blocked with these options, its WAVE_UNITS the units.
std::optional<LastWaveSplit> last_wave_of(const KernelOptions& options, std::int64_t m,
                                          std::int64_t n, std::int64_t k) {
  const WaveGeometry g = wave_geometry("blocked", options, m, n, k);
  return split_last_wave(g.block, g.units, m, n, k);
}

// On the H200's numbers: 3000^3 on the large entry's 128 x 256 tiles, one work-group per SM,
// and on the medium-large entry's 64 x 128 tiles, four per SM.
TEST(LastWave, H200Shapes) {
  KernelOptions large{{"TILE_M", 128},  {"TILE_N", 256},     {"TILE_K", 8},
                      {"ITEM_M", 16},   {"ITEM_N", 8},       {"VEC", 4},
                      {"UNROLL", 1},    {"LANES_N", 0},      {"FRAG_PREFETCH", 0},
                      {"LOCAL_PAD", 4}, {"WAVE_UNITS", 132}, {"ASYNC_COPY", 0},
                      {"STAGES", 2},    {"STORE_VEC4", 1},   {"K_GROUPS", 1}};
  // 24 x 12 = 288 work-groups: 2 waves and 24 more, 2 rows of tiles; 132 / 24 = 5 slices.
  auto split = last_wave_of(large, 3000, 3000, 3000);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->whole_waves.rows, 22 * 128);
  EXPECT_EQ(split->last_rows.row0, 22 * 128);
  EXPECT_EQ(split->last_rows.rows, 3000 - 22 * 128);
  EXPECT_EQ(split->last_rows.cols, 3000);
  EXPECT_EQ(split->slices, 5);
  // 4096^3: 32 x 16 = 512 groups, 3 waves and 116 more: 8 rows of tiles are 128 groups, so one
  // slice each fills the wave: no split.
  EXPECT_FALSE(last_wave_of(large, 4096, 4096, 4096));
  // The fill model is the wave model's for the split the planner takes: 288 groups' work of
  // 3000 deep over 132 units, in 2 whole waves of 3000 + 32, one wave of the strip's slices of
  // 600 + 32, and the strip's reduction (5 partial products of 184 x 3000 read and C written, at
  // 16 flops a byte over 132 groups of 2 x 128 x 256 flops per depth).
  DeviceLimits h200;
  h200.compute_units = 132;
  const double inside = 3000.0 * 3000.0 / (3072.0 * 3072.0);
  const double reduction = 4.0 * 6 * 184 * 3000 * 16 / (132.0 * 2 * 128 * 256);
  EXPECT_NEAR(device_fill("blocked", large, 3000, 3000, 3000, 1, h200),
              inside * (288.0 * 3000 / 132) / (2 * 3032 + 632 + reduction), 1e-9);
  // Without WAVE_UNITS: one group per compute unit, 288 groups in 3 waves.
  large.erase("WAVE_UNITS");
  EXPECT_NEAR(device_fill("blocked", large, 3000, 3000, 3000, 1, h200), inside * 288 / (3 * 132),
              1e-9);
  large["WAVE_UNITS"] = 132;
  KernelOptions medium{{"TILE_M", 64},   {"TILE_N", 128},     {"TILE_K", 8},
                       {"ITEM_M", 8},    {"ITEM_N", 8},       {"VEC", 4},
                       {"UNROLL", 1},    {"LANES_N", 8},      {"FRAG_PREFETCH", 1},
                       {"LOCAL_PAD", 4}, {"WAVE_UNITS", 528}, {"ASYNC_COPY", 0},
                       {"STAGES", 2},    {"STORE_VEC4", 1},   {"K_GROUPS", 1}};
  // 47 x 24 = 1128 groups: 2 waves and 72 more, 3 rows of tiles; 528 / 72 = 7 slices.
  split = last_wave_of(medium, 3000, 3000, 3000);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->last_rows.rows, 3000 - 44 * 64);
  EXPECT_EQ(split->slices, 7);
  // K caps the slices at 256 deep: 1024 / 256 = 4.
  split = last_wave_of(medium, 3000, 3000, 1024);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->slices, 4);
  medium.erase("WAVE_UNITS");
  EXPECT_FALSE(last_wave_of(medium, 3000, 3000, 3000));
}

}  // namespace
}  // namespace clgemm::detail
