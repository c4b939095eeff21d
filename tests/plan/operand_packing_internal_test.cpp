// The wgmma kernel's packs as the host plans them (plan/operand_packing.hpp) and the builds
// they go with (launch/build_options.hpp): with A_REGISTERS 2 the kernel reads A as stored, so
// only B is packed, in the paired column order, and A's transpose is part of the build; with
// A_REGISTERS 0 or 1 both are packed and no transpose is.
#include <gtest/gtest.h>

#include "catalog/kernel_spec.hpp"
#include "launch/build_options.hpp"
#include "plan/operand_packing.hpp"

namespace clgemm::detail {
namespace {

KernelOptions wgmma_options(long a_registers) {
  return {{"TILE_M", 128},
          {"WARPGROUPS", 0},
          {"TILE_N", 128},
          {"TILE_K", 24},
          {"A_REGISTERS", a_registers},
          {"STAGES", 3},
          {"LAST_WARP_REFILLS", 0}};
}

KernelCall call_of(std::int64_t m, std::int64_t n, std::int64_t k, bool trans_a, bool trans_b,
                   std::int64_t batch) {
  KernelCall call;
  call.m = m, call.n = n, call.k = k;
  call.a.transposed = trans_a, call.b.transposed = trans_b;
  call.batch = batch;
  return call;
}

TEST(OperandPacking, AReadAsStoredLeavesOnlyBPackedAndPaired) {
  const KernelSpec& spec = find_spec("wgmma");
  const KernelCall call = call_of(1000, 700, 300, true, false, 3);
  // 1000 rows in 8 blocks of 128, 300 deep in 13 slices of 24: 8 * 13 * 128 * 24 floats.
  const std::size_t a_floats = 8 * 13 * 128 * 24, b_floats = 6 * 13 * 128 * 24;
  for (long a_registers : {0L, 1L}) {
    SCOPED_TRACE(a_registers);
    const Packing packed = packing(spec, call, wgmma_options(a_registers), Precision::TF32);
    EXPECT_TRUE(packed.a_packed);
    EXPECT_EQ(packed.a_bytes, 3 * a_floats * sizeof(float));
    EXPECT_EQ(packed.b_bytes, 3 * b_floats * sizeof(float));
    EXPECT_FALSE(packed.b.paired_k);
    EXPECT_EQ(packed.a.fragments, a_registers == 1);
    EXPECT_NE(packed.b.build_options(1).find("-D PAIRED_K=0"), std::string::npos);
  }
  KernelOptions options = wgmma_options(2);
  options["TILE_K"] = 32;
  const Packing stored = packing(spec, call, options, Precision::TF32x3);
  EXPECT_FALSE(stored.a_packed);
  EXPECT_EQ(stored.a_bytes, 0u);
  // 3xTF32: TILE_K 32 holds both parts of 16 columns, so 19 slices.
  EXPECT_EQ(stored.b_bytes, 3 * std::size_t(6 * 19 * 128 * 32) * sizeof(float));
  EXPECT_TRUE(stored.b.paired_k);
  EXPECT_NE(stored.b.build_options(2).find("-D PAIRED_K=1"), std::string::npos);
  // The workspace limit counts B alone.
  EXPECT_TRUE(stored.fits(stored.b_bytes));
  EXPECT_FALSE(stored.fits(stored.b_bytes - 1));
}

TEST(OperandPacking, AReadAsStoredIsBuiltWithItsTranspose) {
  const KernelSpec& spec = find_spec("wgmma");
  const KernelCall tt = call_of(64, 64, 64, true, true, 1);
  for (long a_registers : {0L, 1L, 2L}) {
    SCOPED_TRACE(a_registers);
    const KernelOptions options = wgmma_options(a_registers);
    const BuildVariant variant = build_variant(spec, options, &tt, false);
    EXPECT_EQ(variant.trans_a, a_registers == 2);
    EXPECT_FALSE(variant.trans_b);  // B is packed K-major whatever its transpose
    // Unsplit and split (SLICED_K), each with both transposes of A where A is read as stored.
    const auto variants = build_variants(spec, options);
    ASSERT_EQ(variants.size(), a_registers == 2 ? 4u : 2u);
    EXPECT_FALSE(variants.front().trans_a);
    EXPECT_FALSE(variants.front().sliced_k);
    EXPECT_TRUE(variants.back().sliced_k);
    const std::string built = variant_build_options(spec, options, variant, Precision::TF32);
    EXPECT_NE(built.find(std::string("-D TRANS_A=") + (a_registers == 2 ? "1" : "0")),
              std::string::npos)
        << built;
  }
  // Other kernels read both operands as stored, so both transposes vary.
  EXPECT_EQ(build_variants(find_spec("tile"), {}).size(), 4u);
}

}  // namespace
}  // namespace clgemm::detail
