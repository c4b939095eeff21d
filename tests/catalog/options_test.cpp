// Deriving kernel parameters from device limits, checked on invented devices, and rejecting
// invalid combinations before anything is built.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "clgemm/clgemm.hpp"
#include "test_support.hpp"

namespace clgemm {
namespace {

DeviceLimits fake_device(DeviceType type, std::size_t max_work_group, std::size_t local_bytes) {
  DeviceLimits d;
  d.name = "fake";
  d.type = type;
  d.max_work_group_size = max_work_group;
  d.max_work_item_sizes[0] = d.max_work_item_sizes[1] = d.max_work_item_sizes[2] = max_work_group;
  d.local_memory_bytes = local_bytes;
  return d;
}

TEST(Options, TileFollowsMaxWorkGroupSize) {
  EXPECT_EQ(derive_options("tile", fake_device(DeviceType::GPU, 256, 32768)).at("TILE"), 16);
  EXPECT_EQ(derive_options("tile", fake_device(DeviceType::GPU, 1024, 49152)).at("TILE"), 32);
  EXPECT_EQ(derive_options("tile", fake_device(DeviceType::GPU, 64, 32768)).at("TILE"), 8);
  EXPECT_EQ(derive_options("tile", fake_device(DeviceType::GPU, 128, 32768)).at("TILE"), 8);
}

TEST(Options, TileShrinksToFitLocalMemory) {
  // 2 * 32 * 32 * 4 = 8 KiB does not fit 4 KiB; 16 x 16 tiles (2 KiB) do.
  EXPECT_EQ(derive_options("tile", fake_device(DeviceType::GPU, 1024, 4096)).at("TILE"), 16);
}

TEST(Options, CpuWithHugeWorkGroupsGetsBoundedTiles) {
  const auto cpu = fake_device(DeviceType::CPU, 4096, 4 << 20);
  EXPECT_LE(derive_options("tile", cpu).at("TILE"), 32);
  for (const auto& kernel : kernel_catalog())
    EXPECT_NO_THROW(resolve_options(kernel.name, cpu, {}));
}

// A device that could have tensor cores: an NVIDIA GPU of compute capability 8.0 or newer,
// all of which take work-groups of 1024 (the H200's limits).
DeviceLimits fake_tensor_core_device() {
  DeviceLimits d = fake_device(DeviceType::GPU, 1024, 49152);
  d.vendor = "NVIDIA Corporation";
  d.compute_capability = 90;
  return d;
}

// Every kernel's derived parameters satisfy its own constraints on a range of devices. A
// kernel that needs tensor cores is only ever built on a device that has them (elsewhere the
// call fails with UnsupportedPrecision first), so it is checked on such devices only.
TEST(Options, DerivedOptionsAreValidEverywhere) {
  for (const auto& device :
       {fake_device(DeviceType::GPU, 64, 16384), fake_device(DeviceType::GPU, 256, 32768),
        fake_device(DeviceType::GPU, 1024, 49152), fake_device(DeviceType::Accelerator, 512, 65536),
        fake_device(DeviceType::CPU, 4096, 4 << 20), fake_device(DeviceType::CPU, 8192, 32768),
        fake_tensor_core_device()}) {
    for (const auto& kernel : kernel_catalog()) {
      if (kernel.needs_tensor_cores && device.compute_capability < 80) continue;
      EXPECT_NO_THROW(validate_options(kernel.name, derive_options(kernel.name, device), device))
          << kernel.name << " on a device with work-groups of " << device.max_work_group_size;
    }
  }
}

// register_block's parameters out of their range or rule are refused before any build, naming
// the parameter.
TEST(Options, RegisterBlockParametersAreChecked) {
  const auto cpu = fake_device(DeviceType::CPU, 4096, 4 << 20);
  for (const KernelOptions& bad :
       {KernelOptions{{"VEC", 3}}, KernelOptions{{"VECTORS", 3}}, KernelOptions{{"ROWS", 0}},
        KernelOptions{{"ROWS", 65}}, KernelOptions{{"DOWN_ROWS_FIRST", 2}},
        KernelOptions{{"ROW_BLOCKS", 0}}, KernelOptions{{"ROW_BLOCKS", 17}},
        KernelOptions{{"K_CHUNK", 0}}, KernelOptions{{"INNER_PRODUCTS", 2}},
        KernelOptions{{"VECTORS", 9}, {"INNER_PRODUCTS", 1}}}) {
    const std::string name = bad.begin()->first;
    try {
      resolve_options("register_block", cpu, bad);
      ADD_FAILURE() << name << " = " << bad.begin()->second << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidOption) << e.what();
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

TEST(Options, VectorizedUsesLargeBlocksOnBigGpus) {
  const auto o = derive_options("vectorized", fake_device(DeviceType::GPU, 1024, 49152));
  EXPECT_EQ(o.at("TILE_M"), 128);
  EXPECT_EQ(o.at("ITEM_M") * o.at("ITEM_N"), 64);
}

TEST(Options, OverridesReplaceDerivedValues) {
  const auto o = resolve_options("tile", fake_device(DeviceType::GPU, 1024, 49152), {{"TILE", 8}});
  EXPECT_EQ(o.at("TILE"), 8);
}

TEST(Options, UnknownParameterIsRejectedWithTheValidNames) {
  try {
    resolve_options("tile", fake_device(DeviceType::GPU, 256, 32768), {{"TILES", 8}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidOption);
    EXPECT_NE(std::string(e.what()).find("TILES"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("TILE"), std::string::npos);
  }
}

// Each message must name the constraint that failed.
void expect_invalid(const std::string& kernel, const KernelOptions& overrides,
                    const std::string& constraint, const DeviceLimits& device) {
  try {
    resolve_options(kernel, device, overrides);
    FAIL() << "expected " << constraint << " to be reported";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidOption);
    EXPECT_NE(std::string(e.what()).find(constraint), std::string::npos) << e.what();
  }
}

TEST(Options, InvalidCombinationsNameTheConstraint) {
  const auto gpu = fake_device(DeviceType::GPU, 256, 32768);
  expect_invalid("tile", {{"TILE", 32}}, "CL_DEVICE_MAX_WORK_GROUP_SIZE = 256", gpu);
  expect_invalid("tile", {{"TILE", 0}}, "TILE = 0 is outside", gpu);
  expect_invalid("coarsened", {{"TILE", 30}, {"ITEM", 4}}, "TILE % ITEM == 0", gpu);
  expect_invalid("coarsened", {{"TILE", 128}, {"ITEM", 8}}, "CL_DEVICE_LOCAL_MEM_SIZE", gpu);
  expect_invalid("vectorized", {{"VEC", 3}}, "VEC is 1, 2, 4, 8 or 16", gpu);
  expect_invalid("vectorized", {{"ITEM_M", 3}}, "TILE_M % ITEM_M == 0", gpu);
  expect_invalid("vectorized", {{"TILE_K", 2}}, "TILE_K % VEC == 0", gpu);
  expect_invalid("vectorized", {{"TILE_M", 8}, {"ITEM_M", 1}, {"TILE_K", 4}},
                 "each work-item loads whole vectors of A", gpu);
  expect_invalid("private", {{"PRIVATE_K", 5000}}, "PRIVATE_K <= 4096", gpu);
  // wgmma's warpgroups: whole blocks of 64 rows each, and with four (512 work-items) at most
  // 96 registers of accumulators and A's fragments.
  const auto hopper = fake_device(DeviceType::GPU, 1024, 49152);
  expect_invalid("wgmma", {{"TILE_M", 128}, {"WARPGROUPS", 4}}, "TILE_M % (64 * warpgroups)",
                 hopper);
  expect_invalid("wgmma", {{"TILE_M", 256}, {"WARPGROUPS", 3}}, "WARPGROUPS is 0, 1, 2 or 4",
                 hopper);
  // The wgmma's N: 64, 128, 192 or 256; 256 x 192 would need 192 accumulators per work-item.
  expect_invalid("wgmma", {{"TILE_N", 160}}, "TILE_N is 64, 128, 192 or 256", hopper);
  expect_invalid("wgmma", {{"TILE_M", 256}, {"TILE_N", 192}, {"A_REGISTERS", 0}},
                 "<= 128 (accumulators per work-item)", hopper);
  expect_invalid("wgmma",
                 {{"TILE_M", 256},
                  {"WARPGROUPS", 4},
                  {"TILE_N", 128},
                  {"TILE_K", 32},
                  {"A_REGISTERS", 1},
                  {"STAGES", 2}},
                 "<= 65536 / 512 - 32 = 96", hopper);
  EXPECT_NO_THROW(resolve_options("wgmma", hopper,
                                  {{"TILE_M", 256},
                                   {"WARPGROUPS", 4},
                                   {"TILE_N", 128},
                                   {"TILE_K", 16},
                                   {"A_REGISTERS", 1},
                                   {"STAGES", 4}}));
  DeviceLimits narrow = gpu;
  narrow.max_work_item_sizes[1] = 4;
  expect_invalid("base", {}, "CL_DEVICE_MAX_WORK_ITEM_SIZES[1] = 4", narrow);
}

// blocked's inner-loop options: derived off (the layout tuned entries were measured with),
// each bad combination refused with its constraint, the padding counted in local memory.
TEST(Options, BlockedInnerLoopOptions) {
  const auto gpu = fake_device(DeviceType::GPU, 1024, 49152);
  const auto derived = derive_options("blocked", gpu);
  EXPECT_EQ(derived.at("LANES_N"), 0);
  EXPECT_EQ(derived.at("FRAG_PREFETCH"), 0);
  EXPECT_EQ(derived.at("LOCAL_PAD"), 0);
  // 16-byte stores of C on GPUs, a float at a time on CPUs (PoCL ran blocked at half speed).
  EXPECT_EQ(derived.at("STORE_VEC4"), 1);
  EXPECT_EQ(derive_options("blocked", fake_device(DeviceType::CPU, 4096, 4 << 20)).at("STORE_VEC4"),
            0);
  expect_invalid("blocked", {{"STORE_VEC4", 2}}, "STORE_VEC4 = 2 is outside", gpu);
  // K split inside the work-group: one k-group derived; two of 64 x 128 tiles with 8 x 8 per
  // work-item are 16 x 8 work-items each, stacked along dimension 1, with pages of their own
  // (2 x 2 x 8 x 192 floats) under the 64 x 128 sums they reuse; the same registers each.
  EXPECT_EQ(derived.at("K_GROUPS"), 1);
  const KernelOptions mid{{"TILE_M", 64}, {"TILE_N", 128}, {"TILE_K", 8},
                          {"ITEM_M", 8},  {"ITEM_N", 8},   {"K_GROUPS", 2}};
  const auto two_groups = resolve_options("blocked", gpu, mid);
  EXPECT_EQ(kernel_work_group("blocked", two_groups), (std::array<std::size_t, 2>{16, 16}));
  EXPECT_EQ(kernel_local_memory_bytes("blocked", two_groups), std::size_t(64 * 128 * 4));
  auto one_group = two_groups;
  one_group["K_GROUPS"] = 1;
  EXPECT_EQ(kernel_work_group("blocked", one_group), (std::array<std::size_t, 2>{16, 8}));
  EXPECT_EQ(kernel_local_memory_bytes("blocked", one_group), std::size_t(2 * 8 * 192 * 4));
  EXPECT_EQ(kernel_registers_per_work_item("blocked", two_groups),
            kernel_registers_per_work_item("blocked", one_group));
  auto four_groups = two_groups;
  four_groups["K_GROUPS"] = 4;
  four_groups["TILE_K"] = 16;  // 4 x 2 x 16 x 192 floats: 96 KiB
  expect_invalid("blocked", four_groups, "CL_DEVICE_LOCAL_MEM_SIZE", gpu);
  expect_invalid("blocked", {{"K_GROUPS", 5}}, "K_GROUPS = 5 is outside", gpu);
  // The derived tiles (128 x 256 x 8, 16 x 8 per work-item: 32 x 8 work-items) as 64 x 64 warp
  // tiles, with the fragments prefetched and the pages padded.
  const KernelOptions warp_tiles{{"LANES_N", 8}, {"FRAG_PREFETCH", 1}, {"LOCAL_PAD", 4}};
  const auto resolved = resolve_options("blocked", gpu, warp_tiles);
  EXPECT_EQ(kernel_local_memory_bytes("blocked", resolved), 2u * 8 * (128 + 256 + 2 * 4) * 4);
  EXPECT_EQ(kernel_local_memory_bytes("blocked", derived), 2u * 8 * (128 + 256) * 4);

  expect_invalid("blocked", {{"LANES_N", 3}}, "32 % LANES_N == 0", gpu);
  expect_invalid("blocked", {{"LANES_N", 64}}, "LANES_N = 64 is outside", gpu);
  expect_invalid("blocked", {{"LANES_N", -1}}, "LANES_N = -1 is outside", gpu);
  // 16 work-items: no whole warp.
  expect_invalid("blocked",
                 {{"TILE_M", 16}, {"TILE_N", 16}, {"ITEM_M", 4}, {"ITEM_N", 4}, {"LANES_N", 4}},
                 "work-items % 32 == 0 when LANES_N > 0", gpu);
  // 16 work-items along N cannot hold rows of 32 lanes.
  expect_invalid("blocked", {{"ITEM_N", 16}, {"LANES_N", 32}}, "WG_N % LANES_N == 0", gpu);
  // 8 work-items along M cannot hold the 16 rows of lanes that LANES_N = 2 makes.
  expect_invalid("blocked", {{"LANES_N", 2}}, "WG_M % LANES_M == 0", gpu);
  expect_invalid("blocked",
                 {{"TILE_M", 64},
                  {"TILE_N", 64},
                  {"ITEM_M", 8},
                  {"ITEM_N", 8},
                  {"VEC", 1},
                  {"TILE_K", 3},
                  {"FRAG_PREFETCH", 1}},
                 "TILE_K % 2 == 0 when FRAG_PREFETCH = 1", gpu);
  expect_invalid("blocked", {{"FRAG_PREFETCH", 2}}, "FRAG_PREFETCH = 2 is outside", gpu);
  expect_invalid("blocked", {{"LOCAL_PAD", 2}}, "LOCAL_PAD % 4 == 0", gpu);
  expect_invalid("blocked", {{"LOCAL_PAD", 68}}, "LOCAL_PAD = 68 is outside", gpu);
  // Padding counts against the device's local memory: 2 * 8 * (384 + 128) floats = 32 KiB.
  expect_invalid("blocked", testing::blocked_gpu_tiles({{"LOCAL_PAD", 64}}),
                 "CL_DEVICE_LOCAL_MEM_SIZE", fake_device(DeviceType::GPU, 1024, 32767));
  // Every lane count that divides 32 and the work-group's shape is accepted.
  for (long lanes : {4L, 8L, 16L, 32L})
    EXPECT_NO_THROW(resolve_options("blocked", gpu, {{"LANES_N", lanes}})) << lanes;
}

// blocked's asynchronous copies: off where derived, accepted only on NVIDIA devices of compute
// capability 8.0 or newer (the ones with cp.async), with whole 16-byte copies, and STAGES pages
// of each operand counted in local memory.
TEST(Options, BlockedAsyncCopyOptions) {
  const auto nvidia = fake_tensor_core_device();
  const auto derived = derive_options("blocked", nvidia);
  EXPECT_EQ(derived.at("ASYNC_COPY"), 0);
  EXPECT_EQ(derived.at("STAGES"), 2);
  const KernelOptions async{{"ASYNC_COPY", 1}, {"STAGES", 3}, {"LOCAL_PAD", 4}};
  const auto resolved = resolve_options("blocked", nvidia, async);
  EXPECT_EQ(kernel_local_memory_bytes("blocked", resolved), 3u * 8 * (128 + 256 + 2 * 4) * 4);
  // No operand passes through registers: only the accumulators count.
  EXPECT_EQ(kernel_registers_per_work_item("blocked", resolved), 16 * 8);
  EXPECT_GT(kernel_registers_per_work_item("blocked", derived), 16 * 8);

  auto ampere = nvidia;
  ampere.compute_capability = 80;
  EXPECT_NO_THROW(resolve_options("blocked", ampere, async));
  auto turing = nvidia;
  turing.compute_capability = 75;
  expect_invalid("blocked", async, "ASYNC_COPY = 1 needs cp.async", turing);
  expect_invalid("blocked", async, "not on device 'fake'",
                 fake_device(DeviceType::GPU, 1024, 49152));
  expect_invalid("blocked", {{"STAGES", 3}}, "STAGES == 2 when ASYNC_COPY = 0", nvidia);
  // What one value needs, whatever the others (the tuner leaves the rest out of its space).
  const auto gpu = fake_device(DeviceType::GPU, 1024, 49152);
  for (const auto& [device, runs] :
       {std::pair{nvidia, true}, {ampere, true}, {turing, false}, {gpu, false}}) {
    EXPECT_EQ(parameter_value_runs_on("blocked", "ASYNC_COPY", 1, device), runs);
    EXPECT_EQ(parameter_value_runs_on("blocked", "STAGES", 3, device), runs);
    EXPECT_TRUE(parameter_value_runs_on("blocked", "ASYNC_COPY", 0, device));
    EXPECT_TRUE(parameter_value_runs_on("blocked", "STAGES", 2, device));
    EXPECT_TRUE(parameter_value_runs_on("blocked", "TILE_M", 64, device));
  }
  EXPECT_THROW(parameter_value_runs_on("blocked", "STAGE", 3, nvidia), Error);
  EXPECT_THROW(parameter_value_runs_on("no-such-kernel", "STAGES", 3, nvidia), Error);
  expect_invalid("blocked", {{"ASYNC_COPY", 1}, {"VEC", 2}}, "VEC % 4 == 0 when ASYNC_COPY = 1",
                 nvidia);
  expect_invalid("blocked", {{"ASYNC_COPY", 1}, {"STAGES", 5}}, "STAGES = 5 is outside", nvidia);
  // Four stages of the derived tiles, 4 * 8 * 384 floats = 48 KiB, do not fit 48 KiB with the
  // padding.
  expect_invalid("blocked", {{"ASYNC_COPY", 1}, {"STAGES", 4}, {"LOCAL_PAD", 4}},
                 "CL_DEVICE_LOCAL_MEM_SIZE", nvidia);
}

TEST(Options, BuildOptionStringListsEveryParameter) {
  EXPECT_EQ(format_build_options({{"TILE", 16}, {"ITEM", 4}}), "-D ITEM=4 -D TILE=16");
}

TEST(Catalog, LadderOrderAndUnknownKernel) {
  const auto& catalog = kernel_catalog();
  ASSERT_EQ(catalog.size(), 11u);
  const char* order[] = {"base",    "row",        "private", "tile", "coarsened",     "vectorized",
                         "blocked", "tensorcore", "wgmma",   "gemv", "register_block"};
  for (std::size_t i = 0; i < catalog.size(); ++i) EXPECT_EQ(catalog[i].name, order[i]);
  try {
    find_kernel("tiled");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::UnknownKernel);
    for (const auto& k : catalog) EXPECT_NE(std::string(e.what()).find(k.name), std::string::npos);
  }
}

// What each kernel computes: the ladder and register_block FP32 only, blocked and gemv every
// precision (TF32 and 3xTF32 portably), tensorcore and wgmma only the TF32 modes and only on
// tensor cores (wgmma only where the wgmma probe passed).
TEST(Catalog, PrecisionsOfEachKernel) {
  const std::vector<Precision> fp32_only = {Precision::FP32};
  const std::vector<Precision> all = {Precision::FP32, Precision::TF32, Precision::TF32x3};
  for (const auto& kernel : kernel_catalog()) {
    if (kernel.name == "blocked" || kernel.name == "gemv") {
      EXPECT_EQ(kernel.precisions, all) << kernel.name;
    } else if (kernel.name == "tensorcore" || kernel.name == "wgmma") {
      EXPECT_EQ(kernel.precisions, (std::vector<Precision>{Precision::TF32, Precision::TF32x3}));
    } else {
      EXPECT_EQ(kernel.precisions, fp32_only) << kernel.name;
    }
    EXPECT_EQ(kernel.needs_tensor_cores, kernel.name == "tensorcore" || kernel.name == "wgmma")
        << kernel.name;
    EXPECT_EQ(kernel.needs_wgmma, kernel.name == "wgmma") << kernel.name;
  }
}

}  // namespace
}  // namespace clgemm

namespace clgemm::testing {
namespace {

// The catalogue's model of each kernel agrees with what the built kernel reports: the bytes of
// local memory it declares (CL_KERNEL_LOCAL_MEM_SIZE: at least the model, and at most a few
// bytes of the driver's own more; NVIDIA's reports 1 for a kernel without local memory) and,
// where the kernel fixes it with reqd_work_group_size, its work-group
// (CL_KERNEL_COMPILE_WORK_GROUP_SIZE).
TEST(KernelModel, MatchesWhatTheBuiltKernelReports) {
  int compared = 0, unreported = 0;
  for (const auto& name : fp32_kernel_names()) {
    SCOPED_TRACE(name);
    const GemmRecord record = shared_context().build(name);
    const auto wg = kernel_work_group(name, record.options);
    const auto& compiled = record.kernel_compile_work_group;
    if (compiled[0] != 0) {
      EXPECT_EQ(compiled[0], wg[0]);
      EXPECT_EQ(compiled[1], wg[1]);
      EXPECT_EQ(compiled[2], 1u);
    }
    const std::size_t model = kernel_local_memory_bytes(name, record.options);
    if (record.kernel_local_memory_bytes == 0 && model > 0) {
      ++unreported;  // PoCL 5.0 reports 0 for static __local arrays (it places them itself)
    } else {
      EXPECT_GE(record.kernel_local_memory_bytes, model);
      EXPECT_LE(record.kernel_local_memory_bytes, model + 64);
      ++compared;
    }
    const auto block = kernel_block(name, record.options);
    for (auto extent : block) EXPECT_GE(extent, 1);
  }
  EXPECT_THROW(kernel_work_group("tile", {}), Error);  // a parameter missing
  EXPECT_GT(compared, 0);
  if (unreported > 0)
    std::cout << "note: " << unreported << " kernels' local memory is not reported by '"
              << shared_context().device().platform_version << "' (CL_KERNEL_LOCAL_MEM_SIZE = 0)\n";
  EXPECT_THROW(kernel_local_memory_bytes("nope", {}), Error);
}

// The registers model counts a work-item's accumulators, its share of a staged page and a
// private array: checked against the kernels' own parameters, and every catalogue candidate
// lies inside its parameter's range, ascending.
TEST(KernelModel, RegistersAndCandidates) {
  const KernelOptions coarsened{{"TILE", 64}, {"ITEM", 4}};
  EXPECT_EQ(kernel_outputs_per_work_item("coarsened", coarsened), 16);
  // 16 accumulators + one 64 x 65 page over 16 x 16 work-items = 16 + 16.
  EXPECT_EQ(kernel_registers_per_work_item("coarsened", coarsened), 16 + 64 * 65 / 256);
  EXPECT_EQ(kernel_registers_per_work_item("private", {{"WG", 64}, {"PRIVATE_K", 128}}), 1 + 128);
  // blocked's fragment prefetch adds a second set of ITEM_M + ITEM_N fragments.
  KernelOptions blocked{{"TILE_M", 64},    {"TILE_N", 128},      {"TILE_K", 8},     {"ITEM_M", 8},
                        {"ITEM_N", 8},     {"VEC", 4},           {"UNROLL", 1},     {"LANES_N", 8},
                        {"LOCAL_PAD", 4},  {"FRAG_PREFETCH", 0}, {"ASYNC_COPY", 0}, {"STAGES", 2},
                        {"STORE_VEC4", 1}, {"K_GROUPS", 1}};
  const long one_set = kernel_registers_per_work_item("blocked", blocked);
  blocked["FRAG_PREFETCH"] = 1;
  EXPECT_EQ(kernel_registers_per_work_item("blocked", blocked), one_set + 8 + 8);
  EXPECT_EQ(kernel_outputs_per_work_item("base", {{"WG_X", 8}, {"WG_Y", 8}}), 1);
  const KernelOptions tensorcore{{"TILE_M", 128}, {"TILE_N", 128}, {"TILE_K", 16}, {"WARP_M", 64},
                                 {"WARP_N", 64},  {"STAGES", 3},   {"VEC", 4}};
  EXPECT_EQ(kernel_outputs_per_work_item("tensorcore", tensorcore), 64 * 64 / 32);
  // wgmma: a warpgroup's 64 x TILE_N accumulators over 128 work-items; two warpgroups; two
  // pages of 128 + 128 rows of 16 floats, each with an 8-byte barrier.
  const KernelOptions wgmma{{"TILE_M", 128},         {"WARPGROUPS", 0}, {"TILE_N", 128},
                            {"TILE_K", 16},          {"STAGES", 2},     {"A_REGISTERS", 0},
                            {"LAST_WARP_REFILLS", 0}};
  EXPECT_EQ(kernel_outputs_per_work_item("wgmma", wgmma), 64);
  EXPECT_EQ(kernel_work_group("wgmma", wgmma), (std::array<std::size_t, 2>{2 * 128, 1}));
  EXPECT_EQ(kernel_local_memory_bytes("wgmma", wgmma), std::size_t(2 * (256 * 16 * 4 + 8)));
  // With A in registers and 256 rows: two warpgroups of two 64 x 128 blocks each, and pages
  // of B only (128 rows of 16 floats).
  const KernelOptions wgmma_registers{
      {"TILE_M", 256}, {"WARPGROUPS", 0},  {"TILE_N", 128},         {"TILE_K", 16},
      {"STAGES", 4},   {"A_REGISTERS", 1}, {"LAST_WARP_REFILLS", 1}};
  EXPECT_EQ(kernel_outputs_per_work_item("wgmma", wgmma_registers), 128);
  // Beside them, three slices of A's fragments: 4 floats per 64 x 8 step, two blocks, 16 deep.
  EXPECT_EQ(kernel_registers_per_work_item("wgmma", wgmma_registers), 128 + 3 * 2 * 16 / 2);
  EXPECT_EQ(kernel_registers_per_work_item("wgmma", wgmma), 64);  // A through the pages
  // 3xTF32 sums each slice apart: a second set of accumulators; TF32 keeps none.
  EXPECT_EQ(kernel_registers_per_work_item("wgmma", wgmma, Precision::TF32), 64);
  EXPECT_EQ(kernel_registers_per_work_item("wgmma", wgmma, Precision::TF32x3), 64 + 64);
  EXPECT_EQ(kernel_registers_per_work_item("wgmma", wgmma_registers, Precision::TF32x3),
            128 + 3 * 2 * 16 / 2 + 128);
  EXPECT_EQ(kernel_registers_per_work_item("blocked", blocked, Precision::TF32x3),
            kernel_registers_per_work_item("blocked", blocked));
  EXPECT_EQ(kernel_work_group("wgmma", wgmma_registers), (std::array<std::size_t, 2>{2 * 128, 1}));
  EXPECT_EQ(kernel_local_memory_bytes("wgmma", wgmma_registers),
            std::size_t(4 * (128 * 16 * 4 + 8)));
  // Four warpgroups of one 64 x 128 block each: 512 work-items.
  KernelOptions four = wgmma_registers;
  four["WARPGROUPS"] = 4;
  EXPECT_EQ(kernel_outputs_per_work_item("wgmma", four), 64);
  EXPECT_EQ(kernel_work_group("wgmma", four), (std::array<std::size_t, 2>{4 * 128, 1}));
  // 192 columns: 96 accumulators, pages of 128 + 192 rows.
  KernelOptions wide = wgmma;
  wide["TILE_N"] = 192;
  EXPECT_EQ(kernel_outputs_per_work_item("wgmma", wide), 96);
  EXPECT_EQ(kernel_local_memory_bytes("wgmma", wide), std::size_t(2 * (320 * 16 * 4 + 8)));
  // One warpgroup of two blocks of 64 rows.
  KernelOptions one = wgmma;
  one["WARPGROUPS"] = 1;
  EXPECT_EQ(kernel_outputs_per_work_item("wgmma", one), 128);
  EXPECT_EQ(kernel_work_group("wgmma", one), (std::array<std::size_t, 2>{128, 1}));
  EXPECT_THROW(kernel_registers_per_work_item("tile", {}), Error);
  for (const auto& kernel : kernel_catalog())
    for (const auto& parameter : kernel.parameters) {
      SCOPED_TRACE(kernel.name + " " + parameter.name);
      EXPECT_TRUE(std::is_sorted(parameter.candidates.begin(), parameter.candidates.end()));
      for (long value : parameter.candidates) {
        EXPECT_GE(value, parameter.minimum);
        EXPECT_LE(value, parameter.maximum);
      }
    }
}

}  // namespace
}  // namespace clgemm::testing
