// The tuning database and `auto`: shape classes, file round trips and overrides, malformed
// files, and what a Context runs for `auto` with and without an entry for its device.
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "support/files.hpp"
#include "test_support.hpp"

namespace clgemm::testing {
namespace {

namespace fs = std::filesystem;

TEST(Tuning, ShapeClasses) {
  EXPECT_EQ(shape_class(GemmProblem::packed(512, 512, 512)), "small");
  EXPECT_EQ(shape_class(GemmProblem::packed(256, 256, 256)), "tiny");
  EXPECT_EQ(shape_class(GemmProblem::packed(1, 4096, 4096)), "gemv");
  EXPECT_EQ(shape_class(GemmProblem::packed(4096, 8, 4096)), "gemv");
  EXPECT_EQ(shape_class(GemmProblem::packed(8, 4096, 255)), "tiny");
  EXPECT_EQ(shape_class(GemmProblem::packed(9, 4096, 4096)), "thin");
  EXPECT_EQ(shape_class(GemmProblem::packed(32, 4096, 11008)), "thin");
  EXPECT_EQ(shape_class(GemmProblem::packed(4096, 16, 4096)), "thin");
  EXPECT_EQ(shape_class(GemmProblem::packed(8192, 128, 8192)), "skinny");
  EXPECT_EQ(shape_class(GemmProblem::packed(256, 8192, 8192)), "skinny");
  EXPECT_EQ(shape_class(GemmProblem::packed(8192, 8192, 256)), "small-k");
  EXPECT_EQ(shape_class(GemmProblem::packed(1024, 1024, 1024)), "medium");
  EXPECT_EQ(shape_class(GemmProblem::packed(1025, 1025, 1025)), "medium-large");
  EXPECT_EQ(shape_class(GemmProblem::packed(2560, 2560, 2560)), "medium-large");
  EXPECT_EQ(shape_class(GemmProblem::packed(3073, 3073, 3073)), "large");
  EXPECT_EQ(shape_class(GemmProblem::packed(4097, 4097, 4097)), "large");
  for (const auto& cls : shape_classes()) EXPECT_EQ(shape_class(representative_problem(cls)), cls);
}

TunedEntry entry(const std::string& device, const std::string& cls, long tile) {
  TunedEntry e;
  e.device = device, e.platform = "P", e.shape_class = cls, e.kernel = "tile";
  e.options = {{"TILE", tile}};
  e.gflops = 12.5, e.m = e.n = e.k = 64, e.tuned = "2026-11-29";
  return e;
}

// A GPU of 132 compute units, 1024 work-items and 48 KiB of local memory (an H100 or H200 as
// OpenCL describes it), named "G" on platform "P".
DeviceLimits gpu_of_132_units() {
  DeviceLimits gpu;
  gpu.name = "G", gpu.platform_name = "P", gpu.type = DeviceType::GPU;
  gpu.compute_units = 132, gpu.max_work_group_size = 1024, gpu.local_memory_bytes = 48 * 1024;
  return gpu;
}

class TuningFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("clgemm-tuning-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    unsetenv("CLGEMM_TUNING_FILE");
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(TuningFiles, SaveLoadAndOverlay) {
  TuningDatabase db;
  db.put(entry("D", "large", 16));
  db.put(entry("D", "small", 8));
  db.put(entry("D", "large", 32));  // replaces the first
  ASSERT_EQ(db.entries().size(), 2u);
  const auto path = (dir_ / "db.json").string();
  db.save(path);
  const auto loaded = TuningDatabase::load_file(path);
  ASSERT_EQ(loaded.entries().size(), 2u);
  DeviceLimits device;
  device.name = "D", device.platform_name = "P";
  EXPECT_EQ(loaded.find(device, "large")->options.at("TILE"), 32);
  TuningDatabase user;
  user.put(entry("D", "small", 4));
  auto merged = loaded;
  merged.overlay(user);
  EXPECT_EQ(merged.find(device, "small")->options.at("TILE"), 4);
  device.platform_name = "other platform";
  EXPECT_FALSE(merged.find(device, "small").has_value());
}

TEST_F(TuningFiles, MalformedFileNamesItself) {
  const auto path = (dir_ / "bad.json").string();
  std::ofstream(path) << "{\"format\": 1, \"entries\": [{\"device\": 3}]}";
  try {
    TuningDatabase::load_file(path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_TRUE(TuningDatabase::load_file((dir_ / "missing.json").string()).entries().empty());
}

// Entries are kept per precision: "precision" in the file ("fp32" when absent), part of the
// key of put() and find().
TEST_F(TuningFiles, EntriesCarryTheirPrecision) {
  const auto path = (dir_ / "precisions.json").string();
  std::ofstream(path) << R"({"format": 1, "entries": [
      {"device": "D", "platform": "P", "shape_class": "large", "kernel": "blocked",
       "options": {}},
      {"device": "D", "platform": "P", "shape_class": "large", "precision": "tf32",
       "kernel": "tensorcore", "options": {"STAGES": 3}},
      {"device": "D", "platform": "P", "shape_class": "large", "precision": "3xtf32",
       "kernel": "tensorcore", "options": {"STAGES": 4}}]})";
  const auto loaded = TuningDatabase::load_file(path);
  ASSERT_EQ(loaded.entries().size(), 3u);
  DeviceLimits device;
  device.name = "D", device.platform_name = "P";
  EXPECT_EQ(loaded.find(device, "large")->precision, Precision::FP32);
  EXPECT_EQ(loaded.find(device, "large")->kernel, "blocked");
  EXPECT_EQ(loaded.find(device, "large", Precision::TF32)->options.at("STAGES"), 3);
  EXPECT_EQ(loaded.find(device, "large", Precision::TF32x3)->options.at("STAGES"), 4);

  // put() replaces only the entry of the same precision; save() writes the precision.
  auto db = loaded;
  TunedEntry tf32 = *db.find(device, "large", Precision::TF32);
  tf32.options = {{"STAGES", 2}};
  db.put(tf32);
  ASSERT_EQ(db.entries().size(), 3u);
  db.save(path);
  const auto again = TuningDatabase::load_file(path);
  ASSERT_EQ(again.entries().size(), 3u);
  EXPECT_EQ(again.find(device, "large", Precision::TF32)->options.at("STAGES"), 2);
  EXPECT_EQ(again.find(device, "large", Precision::TF32x3)->options.at("STAGES"), 4);
  EXPECT_EQ(again.find(device, "large", Precision::FP32)->kernel, "blocked");
  std::ifstream saved(path);
  const std::string text{std::istreambuf_iterator<char>(saved), std::istreambuf_iterator<char>()};
  EXPECT_NE(text.find("\"precision\": \"3xtf32\""), std::string::npos) << text;

  // An unknown precision is a malformed file, named in the error.
  std::ofstream(path) << R"({"format": 1, "entries": [{"device": "D", "platform": "P",
      "shape_class": "large", "precision": "fp16", "kernel": "blocked", "options": {}}]})";
  try {
    TuningDatabase::load_file(path);
    FAIL() << "an entry of precision fp16 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fp16"), std::string::npos) << e.what();
  }
}

// What `auto` picks for each precision with and without tensor cores, with no entries, with
// fp32 entries only, and with tensorcore entries.
TEST(Tuning, ChoiceFollowsThePrecisionAndTheTensorCores) {
  DeviceLimits device;
  device.name = "D", device.platform_name = "P";
  device.local_memory_bytes = 64 * 1024;  // room for the tensorcore entry's three pages
  const auto problem = GemmProblem::packed(4096, 4096, 4096);
  TuningDatabase empty;
  // No entry: tensorcore (derived) for TF32 modes on tensor cores, blocked otherwise.
  for (Precision p : {Precision::TF32, Precision::TF32x3}) {
    const auto on_tensor_cores = choose_kernel(empty, device, problem, p, TensorCores::MmaSync);
    EXPECT_EQ(on_tensor_cores.kernel, "tensorcore") << precision_name(p);
    EXPECT_TRUE(on_tensor_cores.overrides.empty());
    EXPECT_NE(on_tensor_cores.reason.find("derived"), std::string::npos) << on_tensor_cores.reason;
    EXPECT_EQ(choose_kernel(empty, device, problem, p, TensorCores::None).kernel, "blocked")
        << precision_name(p);
  }
  EXPECT_EQ(choose_kernel(empty, device, problem, Precision::FP32, TensorCores::MmaSync).kernel,
            "blocked");
  EXPECT_EQ(choose_kernel(empty, device, problem, Precision::FP32, TensorCores::None).kernel,
            "blocked");

  // A tuned fp32 entry of a kernel that computes TF32 portably serves TF32 without tensor
  // cores; one of a kernel that does not (tile) is passed over for blocked.
  TuningDatabase fp32_entries;
  TunedEntry blocked = entry("D", "large", 0);
  blocked.kernel = "blocked";
  blocked.options = {{"TILE_M", 32}};
  fp32_entries.put(blocked);
  const auto portable =
      choose_kernel(fp32_entries, device, problem, Precision::TF32, TensorCores::None);
  EXPECT_EQ(portable.kernel, "blocked");
  EXPECT_EQ(portable.overrides.at("TILE_M"), 32);
  EXPECT_EQ(
      choose_kernel(fp32_entries, device, problem, Precision::TF32, TensorCores::MmaSync).kernel,
      "tensorcore");
  TuningDatabase tile_entries;
  tile_entries.put(entry("D", "large", 8));
  EXPECT_EQ(choose_kernel(tile_entries, device, problem, Precision::TF32, TensorCores::None).kernel,
            "blocked");
  EXPECT_TRUE(choose_kernel(tile_entries, device, problem, Precision::TF32, TensorCores::None)
                  .overrides.empty());

  // Tensorcore entries are used for their own precision on tensor cores, never for FP32 and
  // never without tensor cores.
  TuningDatabase tensor_entries = fp32_entries;
  TunedEntry tf32 = entry("D", "large", 0);
  tf32.kernel = "tensorcore", tf32.precision = Precision::TF32;
  tf32.options = {{"STAGES", 3}};
  tensor_entries.put(tf32);
  const auto tuned =
      choose_kernel(tensor_entries, device, problem, Precision::TF32, TensorCores::MmaSync);
  EXPECT_EQ(tuned.kernel, "tensorcore");
  EXPECT_EQ(tuned.overrides.at("STAGES"), 3);
  EXPECT_NE(tuned.reason.find("tuned tf32 entry"), std::string::npos) << tuned.reason;
  EXPECT_TRUE(
      choose_kernel(tensor_entries, device, problem, Precision::TF32x3, TensorCores::MmaSync)
          .overrides.empty())
      << "the tf32 entry must not serve 3xtf32";
  for (TensorCores tensor_cores : {TensorCores::None, TensorCores::MmaSync})
    EXPECT_EQ(choose_kernel(tensor_entries, device, problem, Precision::FP32, tensor_cores).kernel,
              "blocked");
  EXPECT_EQ(
      choose_kernel(tensor_entries, device, problem, Precision::TF32, TensorCores::None).kernel,
      "blocked");
  // Even an fp32 entry naming tensorcore (a hand-edited file) does not put FP32 on it.
  TuningDatabase wrong;
  TunedEntry fp32_tensorcore = entry("D", "large", 0);
  fp32_tensorcore.kernel = "tensorcore", fp32_tensorcore.options = {};
  wrong.put(fp32_tensorcore);
  for (TensorCores tensor_cores : {TensorCores::None, TensorCores::MmaSync})
    EXPECT_EQ(choose_kernel(wrong, device, problem, Precision::FP32, tensor_cores).kernel,
              "blocked");
  // Nor does it put TF32 on tensor cores the device lacks: the portable kernel runs instead.
  EXPECT_EQ(choose_kernel(wrong, device, problem, Precision::TF32, TensorCores::None).kernel,
            "blocked");
}

// wgmma entries serve their precision only where the device runs wgmma (sm_90a, its probe
// passed); elsewhere a device with tensor cores keeps the mma.sync kernel, and one without
// them the portable path.
TEST(Tuning, WgmmaEntriesServeOnlyDevicesThatRunWgmma) {
  DeviceLimits device;
  device.name = "D", device.platform_name = "P";
  device.local_memory_bytes = 48 * 1024;
  const auto problem = GemmProblem::packed(4096, 4096, 4096);
  TuningDatabase database;
  for (Precision p : {Precision::TF32, Precision::TF32x3}) {
    TunedEntry e = entry("D", "large", 0);
    e.kernel = "wgmma", e.precision = p;
    e.options = {{"TILE_M", 128}, {"TILE_N", 64}, {"TILE_K", 16}, {"STAGES", 3}};
    database.put(e);
  }
  for (Precision p : {Precision::TF32, Precision::TF32x3}) {
    SCOPED_TRACE(precision_name(p));
    const auto with_wgmma = choose_kernel(database, device, problem, p, TensorCores::Wgmma);
    EXPECT_EQ(with_wgmma.kernel, "wgmma");
    EXPECT_EQ(with_wgmma.overrides.at("TILE_N"), 64);
    EXPECT_NE(with_wgmma.reason.find("entry 'large' of wgmma"), std::string::npos)
        << with_wgmma.reason;
    EXPECT_EQ(choose_kernel(database, device, problem, p, TensorCores::MmaSync).kernel,
              "tensorcore");
    EXPECT_EQ(choose_kernel(database, device, problem, p, TensorCores::None).kernel, "blocked");
  }
  for (TensorCores tensor_cores : {TensorCores::MmaSync, TensorCores::Wgmma})
    EXPECT_EQ(choose_kernel(database, device, problem, Precision::FP32, tensor_cores).kernel,
              "blocked");
  // Its packed operands must fit the workspace (a quarter of the largest allocation, 256 MiB
  // here): 8192^3 in TF32 packs 2 x 256 MiB, so the entry is skipped, saying why.
  device.max_allocation_bytes = std::size_t(1) << 30;
  EXPECT_EQ(choose_kernel(database, device, problem, Precision::TF32, TensorCores::Wgmma).kernel,
            "wgmma");
  const auto too_large = choose_kernel(database, device, GemmProblem::packed(8192, 8192, 8192),
                                       Precision::TF32, TensorCores::Wgmma);
  EXPECT_EQ(too_large.kernel, "tensorcore");
  EXPECT_NE(too_large.reason.find("workspace limit"), std::string::npos) << too_large.reason;
}

// A choice as its kernel and overrides, "kernel NAME=VALUE ...", the names in order.
std::string kernel_and_options(const KernelChoice& c) {
  std::string text = c.kernel;
  for (const auto& [name, value] : c.overrides) text += " " + name + "=" + std::to_string(value);
  return text;
}

// tensorcore's tiles for small TF32 and 3xTF32 calls where the device runs wgmma, as
// kernel_and_options() writes them.
const char* const kSmallTensorcoreTiles =
    "tensorcore STAGES=2 TILE_K=16 TILE_M=64 TILE_N=64 VEC=4 WARP_M=32 WARP_N=32";

// A tuning file with a medium FP32 entry of blocked on 64-row tiles and large TF32 and 3xTF32
// entries of wgmma, as the H200's.
TuningDatabase blocked_and_wgmma_entries() {
  TuningDatabase database;
  TunedEntry blocked = entry("G", "medium", 0);
  blocked.kernel = "blocked", blocked.options = {{"TILE_M", 64}};
  database.put(blocked);
  for (Precision p : {Precision::TF32, Precision::TF32x3}) {
    TunedEntry e = entry("G", "large", 0);
    e.kernel = "wgmma", e.precision = p;
    e.options = {{"TILE_M", 128}, {"TILE_N", 128}, {"TILE_K", 16}, {"STAGES", 3}};
    database.put(e);
  }
  return database;
}

// TF32 calls of at most 512^3 multiply-adds, or batches of products of at most 128^3 each, leave
// wgmma where the device runs it: for tensorcore's small tiles where both sides of each product
// are at least 64, else for blocked's FP32 entries; devices with mma.sync only keep tensorcore's
// tuned choice.
TEST(Tuning, SmallTf32CallsLeaveWgmma) {
  DeviceLimits gpu = gpu_of_132_units();
  const TuningDatabase database = blocked_and_wgmma_entries();
  const auto choose = [&](const GemmProblem& problem, Precision p, TensorCores cores) {
    return choose_kernel(database, gpu, problem, p, cores);
  };
  for (const auto& small :
       {GemmProblem::packed(64, 64, 64), GemmProblem::packed(128, 128, 128),
        GemmProblem::packed(512, 512, 512), GemmProblem::packed(1024, 1024, 128),
        GemmProblem::packed_batch(128, 128, 128, 1024)}) {
    const auto choice = choose(small, Precision::TF32, TensorCores::Wgmma);
    EXPECT_EQ(kernel_and_options(choice), kSmallTensorcoreTiles) << choice.reason;
    EXPECT_NE(choice.reason.find("small for wgmma's tiles"), std::string::npos) << choice.reason;
    EXPECT_EQ(choose(small, Precision::TF32, TensorCores::MmaSync).reason.find("small for"),
              std::string::npos);
  }
  for (const auto& narrow :
       {GemmProblem::packed(63, 300, 300), GemmProblem::packed(512, 48, 1024),
        GemmProblem::packed_batch(32, 32, 32, 8192), GemmProblem::packed_batch(64, 32, 64, 4096)}) {
    const auto choice = choose(narrow, Precision::TF32, TensorCores::Wgmma);
    EXPECT_EQ(choice.kernel, "blocked") << choice.reason;
    EXPECT_EQ(choice.overrides.at("TILE_M"), 64) << choice.reason;
    EXPECT_NE(choice.reason.find("small for wgmma's tiles"), std::string::npos) << choice.reason;
    EXPECT_EQ(choose(narrow, Precision::TF32, TensorCores::MmaSync).kernel, "tensorcore");
  }
  // 513 x 512 x 512 (one row above 512^3), 768^3, 1024^3, and a batch of 32 products of
  // 512 x 512 x 128 (2^25 each, 2^30 in all) stay on wgmma.
  for (const auto& large :
       {GemmProblem::packed(513, 512, 512), GemmProblem::packed(768, 768, 768),
        GemmProblem::packed(1024, 1024, 1024), GemmProblem::packed_batch(512, 512, 128, 32)}) {
    const auto choice = choose(large, Precision::TF32, TensorCores::Wgmma);
    EXPECT_EQ(choice.kernel, "wgmma") << choice.reason;
    EXPECT_EQ(choice.reason.find("small for wgmma's tiles"), std::string::npos) << choice.reason;
  }
}

// 3xTF32 calls of at most 512^3 multiply-adds, or batches of products of at most 256^3 each,
// run tensorcore on its 64 x 64 tiles where the device runs wgmma; larger calls keep wgmma,
// GEMV-like ones gemv, and devices with mma.sync only their tuned choice.
TEST(Tuning, Small3xTf32CallsRunTensorcoreOnSmallTiles) {
  const DeviceLimits gpu = gpu_of_132_units();
  const TuningDatabase database = blocked_and_wgmma_entries();
  const auto choose = [&](const GemmProblem& problem, TensorCores cores) {
    return choose_kernel(database, gpu, problem, Precision::TF32x3, cores);
  };
  for (const auto& small :
       {GemmProblem::packed(1, 1, 1), GemmProblem::packed(64, 64, 64),
        GemmProblem::packed(128, 128, 128), GemmProblem::packed(384, 384, 384),
        GemmProblem::packed(512, 512, 512), GemmProblem::packed(1024, 1024, 128),
        GemmProblem::packed_batch(32, 32, 32, 8192), GemmProblem::packed_batch(128, 128, 128, 1024),
        GemmProblem::packed_batch(256, 256, 256, 64)}) {
    const auto choice = choose(small, TensorCores::Wgmma);
    EXPECT_EQ(kernel_and_options(choice), kSmallTensorcoreTiles) << choice.reason;
    EXPECT_NE(choice.reason.find("small for wgmma's tiles"), std::string::npos) << choice.reason;
    EXPECT_EQ(choose(small, TensorCores::MmaSync).reason.find("small for wgmma's tiles"),
              std::string::npos);
  }
  // One row above 512^3, 768^3, and batches of products above 256^3 (512 x 512 x 128 x 32 is
  // 2^25 each, 1024^3 x 16 2^30) stay on wgmma.
  for (const auto& large : {GemmProblem::packed(513, 512, 512), GemmProblem::packed(768, 768, 768),
                            GemmProblem::packed_batch(512, 512, 128, 32),
                            GemmProblem::packed_batch(1024, 1024, 1024, 16)}) {
    const auto choice = choose(large, TensorCores::Wgmma);
    EXPECT_EQ(choice.kernel, "wgmma") << choice.reason;
  }
  // A GEMV-like product within 512^3 runs gemv.
  EXPECT_EQ(choose(GemmProblem::packed(4, 4096, 4096), TensorCores::Wgmma).kernel, "gemv");
}

// GEMV-like calls in 3xTF32 on a GPU run gemv on blocks of 4 where its entry has blocks of 8,
// with the entry's lanes and slices (the same work-items per group); FP32 and TF32 keep the
// entry's blocks.
TEST(Tuning, GemvTakesBlocksOfFourIn3xTf32OnGpus) {
  DeviceLimits gpu = gpu_of_132_units();
  TuningDatabase database;
  TunedEntry gemv = entry("G", "gemv", 0);
  gemv.kernel = "gemv";
  gemv.options = {{"SMALL", 8},     {"LANES", 4}, {"SPLIT", 64}, {"VEC", 8},
                  {"PASS_ROWS", 4}, {"AHEAD", 2}, {"UNROLL", 1}};
  gemv.m = 8, gemv.n = gemv.k = 4096;
  database.put(gemv);
  const auto choose = [&](const GemmProblem& problem, Precision p) {
    return choose_kernel(database, gpu, problem, p, TensorCores::Wgmma);
  };
  for (const auto& problem :
       {GemmProblem::packed(8, 4096, 4096), GemmProblem::packed(1, 6144, 4096),
        GemmProblem::packed(4096, 3, 4096)}) {
    const auto choice = choose(problem, Precision::TF32x3);
    EXPECT_EQ(choice.kernel, "gemv") << choice.reason;
    EXPECT_EQ(choice.overrides.at("VEC"), 4) << choice.reason;
    EXPECT_EQ(choice.overrides.at("LANES"), 4) << choice.reason;
    EXPECT_EQ(choice.overrides.at("SPLIT"), 64) << choice.reason;
    EXPECT_NE(choice.reason.find("on blocks of 4 ("), std::string::npos) << choice.reason;
    for (Precision p : {Precision::FP32, Precision::TF32}) {
      const auto kept = choose(problem, p);
      EXPECT_EQ(kept.kernel, "gemv") << kept.reason;
      EXPECT_EQ(kept.overrides.at("VEC"), 8) << kept.reason;
      EXPECT_EQ(kept.overrides.at("LANES"), 4) << kept.reason;
      EXPECT_EQ(kept.overrides.at("SPLIT"), 64) << kept.reason;
    }
  }
}

// Calls of K at most 256 with at least two waves of 64 x 128 tiles run blocked's pipeline of
// three stages of asynchronous copies on devices with cp.async (compute capability 8.0 or
// newer), in FP32; deeper K, too few tiles, other devices and the reduced precisions keep their
// choice.
TEST(Tuning, ShortKCallsRunThePipelineOfCopies) {
  DeviceLimits gpu = gpu_of_132_units();
  gpu.compute_capability = 90;
  TuningDatabase database;
  TunedEntry blocked = entry("G", "large", 0);
  blocked.kernel = "blocked", blocked.options = {{"TILE_M", 128}};
  database.put(blocked);
  const auto choose = [&](const GemmProblem& problem, Precision p, TensorCores cores,
                          const DeviceLimits& device) {
    return choose_kernel(database, device, problem, p, cores);
  };
  const KernelOptions pipeline = {{"TILE_M", 64},    {"TILE_N", 128},      {"TILE_K", 8},
                                  {"ITEM_M", 8},     {"ITEM_N", 8},        {"VEC", 4},
                                  {"LANES_N", 8},    {"FRAG_PREFETCH", 1}, {"LOCAL_PAD", 4},
                                  {"ASYNC_COPY", 1}, {"STAGES", 3},        {"UNROLL", 1}};
  for (const auto& shallow :
       {GemmProblem::packed_batch(128, 128, 128, 1024),
        GemmProblem::packed_batch(512, 512, 128, 32), GemmProblem::packed(8192, 8192, 256),
        GemmProblem::packed(8192, 8192, 64)}) {
    const auto choice = choose(shallow, Precision::FP32, TensorCores::Wgmma, gpu);
    EXPECT_EQ(choice.kernel, "blocked") << choice.reason;
    EXPECT_EQ(choice.overrides, pipeline) << choice.reason;
    EXPECT_NE(choice.reason.find("is short"), std::string::npos) << choice.reason;
  }
  // TF32 small for wgmma runs tensorcore's small tiles (SmallTf32CallsLeaveWgmma), not blocked's
  // pipeline: with its copies the operands would be rounded at every fragment read.
  const auto tf32 = choose(GemmProblem::packed_batch(128, 128, 128, 1024), Precision::TF32,
                           TensorCores::Wgmma, gpu);
  EXPECT_EQ(tf32.kernel, "tensorcore") << tf32.reason;
  EXPECT_EQ(tf32.overrides.count("ASYNC_COPY"), 0u) << tf32.reason;
  EXPECT_NE(tf32.reason.find("small for wgmma's tiles"), std::string::npos) << tf32.reason;
  // On the tensor cores (3xTF32; TF32 beyond wgmma's small calls), K of 257, one wave of tiles
  // (4096 x 512 x 128: 64 x 4 = 256 work-groups, under 2 x 132), or products of fewer than 64
  // rows: the tuned choice.
  EXPECT_NE(choose(GemmProblem::packed(8192, 8192, 128), Precision::TF32x3, TensorCores::Wgmma, gpu)
                .overrides,
            pipeline);
  EXPECT_NE(
      choose(GemmProblem::packed(8192, 8192, 128), Precision::TF32, TensorCores::Wgmma, gpu).kernel,
      "blocked");
  for (const auto& other :
       {GemmProblem::packed(8192, 8192, 257), GemmProblem::packed(4096, 512, 128),
        GemmProblem::packed_batch(48, 4096, 128, 64)}) {
    const auto choice = choose(other, Precision::FP32, TensorCores::Wgmma, gpu);
    EXPECT_EQ(choice.reason.find("is short"), std::string::npos) << choice.reason;
    EXPECT_EQ(choice.overrides.count("ASYNC_COPY"), 0u) << choice.reason;
  }
  // A device without cp.async: compute capability 7.5, or none (not NVIDIA).
  for (int capability : {75, 0}) {
    DeviceLimits older = gpu;
    older.compute_capability = capability;
    const auto choice = choose(GemmProblem::packed_batch(128, 128, 128, 1024), Precision::FP32,
                               TensorCores::None, older);
    EXPECT_EQ(choice.overrides.count("ASYNC_COPY"), 0u) << choice.reason;
  }
}

// On tensor cores an entry carried from a larger problem claims no more than the same kernel
// measured nearer to the call; the FP32 kernels keep the fill model alone.
TEST(Tuning, TensorCoreEntriesAreBoundedByNearerMeasurements) {
  DeviceLimits device;
  device.name = "D", device.platform_name = "P", device.compute_units = 132;
  device.local_memory_bytes = 48 * 1024;
  const auto measured = [](TunedEntry e, std::int64_t n, double gflops) {
    e.m = e.n = e.k = n, e.gflops = gflops;
    return e;
  };
  TuningDatabase database;
  TunedEntry large = entry("D", "large", 0), medium = entry("D", "medium", 0);
  large.kernel = medium.kernel = "wgmma";
  large.precision = medium.precision = Precision::TF32x3;
  large.options = {{"TILE_M", 128}, {"TILE_N", 64}, {"TILE_K", 16}, {"STAGES", 3}};
  medium.options = {{"TILE_M", 64}, {"TILE_N", 64}, {"TILE_K", 32}, {"STAGES", 2}};
  database.put(measured(large, 4096, 78000));
  database.put(measured(medium, 1024, 27000));
  const auto at = [&](std::int64_t n, Precision p) {
    return choose_kernel(database, device, GemmProblem::packed(n, n, n), p, TensorCores::Wgmma);
  };
  EXPECT_EQ(at(1024, Precision::TF32x3).overrides.at("TILE_M"), 64)
      << at(1024, Precision::TF32x3).reason;
  EXPECT_EQ(at(4096, Precision::TF32x3).overrides.at("TILE_M"), 128)
      << at(4096, Precision::TF32x3).reason;

  TuningDatabase fp32;
  TunedEntry big = entry("D", "large", 0), small = entry("D", "medium", 0);
  big.kernel = small.kernel = "blocked";
  big.options = {{"TILE_M", 64}, {"TILE_N", 64}};
  small.options = {{"TILE_M", 32}, {"TILE_N", 32}};
  fp32.put(measured(big, 4096, 46000));
  fp32.put(measured(small, 1024, 20000));
  const auto fp32_1024 = choose_kernel(fp32, device, GemmProblem::packed(1024, 1024, 1024));
  EXPECT_EQ(fp32_1024.overrides.at("TILE_M"), 64) << fp32_1024.reason;
}

// A 2-core CPU device named "C" on platform "P", as PoCL describes one.
DeviceLimits two_core_cpu() {
  DeviceLimits cpu;
  cpu.name = "C", cpu.platform_name = "P", cpu.type = DeviceType::CPU, cpu.compute_units = 2;
  cpu.max_work_group_size = 4096, cpu.local_memory_bytes = 256 * 1024;
  return cpu;
}

// On a CPU every entry fills the device, so the entry measured nearest the call caps the
// kernel's others, and nearness counts the sides as well as the size: 64x8192x8192 is half of
// 2048^3 in volume but nearer to 32x4096x8192 (PoCL: the 2048^3 entry's tiles ran it at 20
// GFLOP/s, the thin entry's row blocks at 42).
TEST(Tuning, CpuEntriesAreNearestBySizeAndAspect) {
  const DeviceLimits cpu = two_core_cpu();
  // Each entry is told by its K_CHUNK (the fit changes ROW_BLOCKS with the call's depth).
  const auto register_block = [](const std::string& cls, std::int64_t m, std::int64_t n,
                                 std::int64_t k, double gflops, long row_blocks, long k_chunk) {
    TunedEntry e = entry("C", cls, 0);
    e.kernel = "register_block", e.m = m, e.n = n, e.k = k, e.gflops = gflops;
    e.options = {{"ROWS", 12}, {"ROW_BLOCKS", row_blocks}, {"K_CHUNK", k_chunk}};
    return e;
  };
  TuningDatabase db;
  db.put(register_block("medium-large", 2048, 2048, 2048, 88, 1, 128));
  db.put(register_block("thin", 32, 4096, 8192, 49, 4, 512));
  const auto chosen = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    const auto choice = choose_kernel(db, cpu, GemmProblem::packed(m, n, k));
    EXPECT_EQ(choice.kernel, "register_block") << choice.reason;
    return std::pair(choice.overrides.at("K_CHUNK"), choice.overrides.at("ROW_BLOCKS"));
  };
  EXPECT_EQ(chosen(64, 8192, 8192).first, 512);
  EXPECT_EQ(chosen(32, 4096, 8192), std::pair(512L, 3L));  // no more blocks than C has rows
  EXPECT_EQ(chosen(2048, 2048, 2048).first, 128);
  EXPECT_EQ(chosen(1024, 1024, 1024).first, 128);
  EXPECT_EQ(chosen(4096, 4096, 4096).first, 128);
}

// A database of one register_block entry for "C" shaped like the EPYC's medium-large one (6 rows
// of four float16, one turn along K), and auto's choice from it on two_core_cpu(), which must be
// register_block.
TuningDatabase epyc_like_register_block_entry() {
  TuningDatabase db;
  TunedEntry e = entry("C", "medium-large", 0);
  e.kernel = "register_block", e.m = e.n = e.k = 2048, e.gflops = 150;
  e.options = {{"ROWS", 6}, {"VEC", 16}, {"VECTORS", 4}, {"ROW_BLOCKS", 1}};
  db.put(e);
  return db;
}

KernelChoice register_block_choice(const TuningDatabase& db, const GemmProblem& problem) {
  const KernelChoice choice = choose_kernel(db, two_core_cpu(), problem);
  EXPECT_EQ(choice.kernel, "register_block") << choice.reason;
  return choice;
}

// register_block with A transposed on the outer products takes blocks of at least 12 rows from
// 64 rows of C on (kTransposedARows): the EPYC's entries of 6 rows read half of each cache line
// of A as stored per step (PoCL: 2048^3 86 GFLOP/s against 145 on 12 rows).
TEST(Tuning, TransposedAOnCpusTakesTwelveRowBlocks) {
  const TuningDatabase db = epyc_like_register_block_entry();
  const auto fitted = [&](std::int64_t m, std::int64_t n, std::int64_t k, Transpose ta) {
    GemmProblem p = GemmProblem::packed(m, n, k);
    p.trans_a = ta, p.lda = p.min_lda();
    const KernelChoice choice = register_block_choice(db, p);
    return std::pair(choice.overrides.at("ROWS"), choice.overrides.at("VECTORS"));
  };
  EXPECT_EQ(fitted(2048, 2048, 2048, Transpose::Trans), std::pair(12L, 4L));
  EXPECT_EQ(fitted(64, 2048, 2048, Transpose::Trans), std::pair(12L, 4L));
  EXPECT_EQ(fitted(2048, 2048, 2048, Transpose::NoTrans), std::pair(6L, 4L));
  EXPECT_EQ(fitted(63, 2048, 2048, Transpose::Trans), std::pair(6L, 4L));
}

// On a CPU, register_block's outer products whose block of columns over all of K (its slab of
// B) is above 256 KiB take its rows in at least 8 turns along K, as many as C's rows allow; a
// slab of 256 KiB exactly (64 columns x 1024 deep), and the inner products, keep one.
TEST(Tuning, DeepProductsOnCpusTakeRowsInTurns) {
  const TuningDatabase db = epyc_like_register_block_entry();
  const auto row_blocks = [&](std::int64_t m, std::int64_t n, std::int64_t k, Transpose tb) {
    GemmProblem p = GemmProblem::packed(m, n, k);
    p.trans_b = tb, p.ldb = p.min_ldb();
    const KernelChoice choice = register_block_choice(db, p);
    const auto at = choice.overrides.find("ROW_BLOCKS");
    return at == choice.overrides.end() ? 1L : at->second;
  };
  EXPECT_EQ(row_blocks(512, 4096, 4096, Transpose::NoTrans), 8);
  EXPECT_EQ(row_blocks(512, 4096, 1025, Transpose::NoTrans), 8);
  EXPECT_EQ(row_blocks(512, 4096, 1024, Transpose::NoTrans), 1);
  EXPECT_EQ(row_blocks(12, 4096, 4096, Transpose::NoTrans), 2);  // 12 rows: two blocks of 6
  EXPECT_EQ(row_blocks(100, 4096, 4096, Transpose::Trans), 1);   // the inner products
  // 16 columns over 8192: 512 KiB, in turns too.
  EXPECT_EQ(row_blocks(8192, 16, 8192, Transpose::NoTrans), 8);
}

// An entry tuned for the call's own class is not capped by a nearer entry of another class:
// on PoCL the `gemv` entry (8x4096x4096, 48 GFLOP/s) held the `thin` one (87) to 48 at
// 16x4096x4096, a `thin` call, where the thin blocks ran 90.
TEST(Tuning, TheCallsOwnClassIsNotCappedByAnother) {
  const DeviceLimits cpu = two_core_cpu();
  TuningDatabase db;
  TunedEntry gemv = entry("C", "gemv", 0);
  gemv.kernel = "register_block", gemv.m = 8, gemv.n = 4096, gemv.k = 4096, gemv.gflops = 48;
  gemv.options = {{"ROWS", 4}};
  db.put(gemv);
  TunedEntry thin = entry("C", "thin", 0);
  thin.kernel = "register_block", thin.m = 32, thin.n = 4096, thin.k = 8192, thin.gflops = 87;
  thin.options = {{"ROWS", 8}};
  db.put(thin);
  const auto rows = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    const auto choice = choose_kernel(db, cpu, GemmProblem::packed(m, n, k));
    EXPECT_EQ(choice.kernel, "register_block") << choice.reason;
    return choice.overrides.at("ROWS");
  };
  EXPECT_EQ(rows(16, 4096, 4096), 8);  // a thin call: the thin entry, uncapped
  EXPECT_EQ(rows(64, 8192, 8192), 8);
  EXPECT_EQ(rows(1000, 1000, 1000), 8);  // neither class's: the nearer (thin) caps the other
}

TEST(Tuning, ChoiceFallsBackToDerivedAndPrefersTheNearestMeasurement) {
  DeviceLimits device;
  device.name = "D", device.platform_name = "P";
  TuningDatabase db;
  EXPECT_EQ(choose_kernel(db, device, GemmProblem::packed(64, 64, 64)).kernel, "blocked");
  EXPECT_TRUE(choose_kernel(db, device, GemmProblem::packed(64, 64, 64)).overrides.empty());
  EXPECT_NE(choose_kernel(db, device, GemmProblem::packed(64, 64, 64)).reason.find("derived"),
            std::string::npos);
  TunedEntry large = entry("D", "large", 8);
  large.m = large.n = large.k = 4096;
  db.put(large);
  const auto only = choose_kernel(db, device, GemmProblem::packed(64, 64, 64));
  EXPECT_EQ(only.kernel, "tile");
  EXPECT_NE(only.reason.find("entry 'large'"), std::string::npos) << only.reason;
  // Two entries that keep the device equally busy here: the one measured nearer in size wins.
  db.put(entry("D", "small", 4));  // measured on 64^3
  EXPECT_EQ(choose_kernel(db, device, GemmProblem::packed(64, 64, 64)).overrides.at("TILE"), 4);
  EXPECT_EQ(choose_kernel(db, device, GemmProblem::packed(4096, 4096, 4096)).overrides.at("TILE"),
            8);
}

// Each entry's measured speed is carried to the shape by how much of the device its launch
// keeps busy: on 132 compute units the 128 x 256 tiles measured at 4096^3 win at 2048^3 and
// 4096^3, the 64 x 64 tiles measured at 1024^3 win at 1024^3 (32 large tiles would fill a
// quarter of the device) and on a skinny 8192 x 128 x 8192.
TEST(Tuning, ChoiceWeighsEntriesByTheShareOfTheDeviceTheyFill) {
  DeviceLimits device;
  device.name = "G", device.platform_name = "P", device.type = DeviceType::GPU;
  device.compute_units = 132, device.max_work_group_size = 1024,
  device.local_memory_bytes = 48 * 1024;
  auto blocked = [](const std::string& cls, long tile_m, long tile_n, long item_m, long item_n,
                    double gflops, std::int64_t size) {
    TunedEntry e;
    e.device = "G", e.platform = "P", e.shape_class = cls, e.kernel = "blocked";
    e.options = {{"TILE_M", tile_m}, {"TILE_N", tile_n}, {"TILE_K", 8}, {"ITEM_M", item_m},
                 {"ITEM_N", item_n}, {"VEC", 4},         {"UNROLL", 1}};
    e.gflops = gflops, e.m = e.n = e.k = size;
    return e;
  };
  TuningDatabase db;
  db.put(blocked("large", 128, 256, 16, 8, 46000, 4096));
  db.put(blocked("medium", 64, 64, 8, 4, 25000, 1024));
  auto tile_m = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    return choose_kernel(db, device, GemmProblem::packed(m, n, k)).overrides.at("TILE_M");
  };
  EXPECT_EQ(tile_m(4096, 4096, 4096), 128);
  EXPECT_EQ(tile_m(2048, 2048, 2048), 128);
  EXPECT_EQ(tile_m(1024, 1024, 1024), 64);
  EXPECT_EQ(tile_m(8192, 128, 8192), 64);
  const auto choice = choose_kernel(db, device, GemmProblem::packed(1024, 1024, 1024));
  EXPECT_NE(choice.reason.find("predicted"), std::string::npos) << choice.reason;
  // An entry measured on a thin problem (32 x 128 tiles at 21 TFLOP/s on 32 x 4096 x 8192)
  // serves thin shapes, but never claims more than it measured on the squares.
  db.put(blocked("thin", 32, 128, 8, 4, 21000, 0));
  TunedEntry& thin = const_cast<TunedEntry&>(db.entries().back());
  thin.m = 32, thin.n = 4096, thin.k = 8192;
  thin.options["TILE_K"] = 32;
  EXPECT_EQ(tile_m(4096, 4096, 4096), 128);
  EXPECT_EQ(tile_m(2048, 2048, 2048), 128);
  EXPECT_EQ(tile_m(16, 4096, 4096), 32);
  EXPECT_EQ(tile_m(32, 4096, 11008), 32);
}

// Entries measured on batches serve batches only: their speed came with one launch for many
// products, which a single product's launch never gets. Batches weigh every product's
// work-groups, so a tile that fits one product wins there.
TEST(Tuning, BatchedEntriesServeBatches) {
  DeviceLimits device;
  device.name = "G", device.platform_name = "P", device.type = DeviceType::GPU;
  device.compute_units = 132, device.max_work_group_size = 1024,
  device.local_memory_bytes = 48 * 1024;
  auto blocked = [](const std::string& cls, long tile, double gflops, std::int64_t size,
                    std::int64_t batch) {
    TunedEntry e;
    e.device = "G", e.platform = "P", e.shape_class = cls, e.kernel = "blocked";
    e.options = {{"TILE_M", tile}, {"TILE_N", tile}, {"TILE_K", 16}, {"ITEM_M", 8},
                 {"ITEM_N", 4},    {"VEC", 4},       {"UNROLL", 1}};
    e.gflops = gflops, e.m = e.n = e.k = size, e.batch = batch;
    return e;
  };
  TuningDatabase db;
  db.put(blocked("tiny", 64, 900, 256, 1));
  db.put(blocked("batched-tiny", 32, 8000, 32, 8192));
  auto choice = [&](std::int64_t size, std::int64_t batch) {
    return choose_kernel(db, device, GemmProblem::packed_batch(size, size, size, batch));
  };
  EXPECT_EQ(choice(100, 1).overrides.at("TILE_M"), 64);
  const auto batched = choice(32, 8192);
  EXPECT_EQ(batched.overrides.at("TILE_M"), 32);
  EXPECT_NE(batched.reason.find("8192 products of 32x32x32"), std::string::npos) << batched.reason;
  EXPECT_EQ(shape_class(GemmProblem::packed_batch(32, 32, 32, 8192)), "batched-tiny");
  EXPECT_EQ(shape_class(GemmProblem::packed_batch(128, 128, 128, 1024)), "batched-small");
  EXPECT_EQ(shape_class(GemmProblem::packed_batch(1024, 1024, 1024, 16)), "medium");
  EXPECT_EQ(representative_problem("batched-tiny").batch, 8192);
}

// GEMV-like shapes run gemv: at most 8 rows on a GPU (measured there: blocked's reuse wins from
// 16), at most 4 on a CPU (PoCL: blocked's tiles of 8-32 rows win from 8); the long side and K
// long. On a CPU, where the long operand is read as stored, register_block's blocks of the
// short side run them (PoCL: 2-4x gemv's speed at 1-4 rows or columns).
TEST(Tuning, GemvLikeShapesRunGemv) {
  DeviceLimits gpu;
  gpu.name = "G", gpu.type = DeviceType::GPU, gpu.compute_units = 132;
  gpu.max_work_group_size = 1024, gpu.local_memory_bytes = 48 * 1024;
  DeviceLimits cpu;
  cpu.name = "C", cpu.type = DeviceType::CPU, cpu.compute_units = 2;
  cpu.max_work_group_size = 4096, cpu.local_memory_bytes = 64 * 1024;
  const TuningDatabase empty;
  auto kernel = [&](const DeviceLimits& d, std::int64_t m, std::int64_t n, std::int64_t k) {
    return choose_kernel(empty, d, GemmProblem::packed(m, n, k)).kernel;
  };
  EXPECT_EQ(kernel(gpu, 1, 4096, 4096), "gemv");
  EXPECT_EQ(kernel(gpu, 8, 4096, 4096), "gemv");
  EXPECT_EQ(kernel(gpu, 4096, 8, 4096), "gemv");
  EXPECT_EQ(kernel(gpu, 16, 4096, 4096), "blocked");
  EXPECT_EQ(kernel(cpu, 4096, 4, 4096), "register_block");  // the long operand as stored
  EXPECT_EQ(kernel(cpu, 4, 4096, 4096), "register_block");
  // op(B) = B^T with op(A) = A: register_block's inner products, both read along K as vectors
  // (PoCL, 4 x 4096 x 4096: 27 GFLOP/s against gemv's 11).
  GemmProblem b_transposed = GemmProblem::packed(4, 4096, 4096);
  b_transposed.trans_b = Transpose::Trans, b_transposed.ldb = 4096;
  const auto inner = choose_kernel(empty, cpu, b_transposed);
  EXPECT_EQ(inner.kernel, "register_block");
  EXPECT_EQ(inner.overrides.at("INNER_PRODUCTS"), 1);
  EXPECT_EQ(inner.overrides.at("ROWS"), 4);
  EXPECT_EQ(inner.overrides.at("VECTORS"), 8);  // columns of C, each VEC partial sums
  // With A transposed too (B^T still the long operand, read along K), the inner products as
  // well (PoCL, 8 x 4096 x 4096: 30 GFLOP/s against gemv's 4.9); the long operand A
  // transposed (few columns), gemv; A as stored with few columns and long K, the inner
  // products, B's columns read element by element.
  GemmProblem both_transposed = b_transposed;
  both_transposed.trans_a = Transpose::Trans, both_transposed.lda = 4;
  const auto both = choose_kernel(empty, cpu, both_transposed);
  EXPECT_EQ(both.kernel, "register_block");
  EXPECT_EQ(both.overrides.at("INNER_PRODUCTS"), 1);
  EXPECT_NE(both.reason.find("along K"), std::string::npos) << both.reason;
  GemmProblem a_transposed = GemmProblem::packed(4096, 4, 4096);
  a_transposed.trans_a = Transpose::Trans, a_transposed.lda = 4096;
  EXPECT_EQ(choose_kernel(empty, cpu, a_transposed).kernel, "gemv");
  const auto few_columns = choose_kernel(empty, cpu, GemmProblem::packed(4096, 4, 4096));
  EXPECT_EQ(few_columns.overrides.at("INNER_PRODUCTS"), 1);
  EXPECT_EQ(few_columns.overrides.at("VECTORS"), 4);
  // At short K the outer products (PoCL, 65536 x 4 x 64: 42 GFLOP/s against 5.2).
  const auto short_k = choose_kernel(empty, cpu, GemmProblem::packed(65536, 4, 64));
  EXPECT_EQ(short_k.kernel, "register_block");
  EXPECT_EQ(short_k.overrides.count("INNER_PRODUCTS"), 0u);  // the derived outer products
  EXPECT_NE(short_k.reason.find("read as stored"), std::string::npos) << short_k.reason;
  EXPECT_EQ(choose_kernel(empty, gpu, b_transposed).kernel, "gemv");
  // In the fit, a 1-row product on 1-row blocks, whatever the derived block, and the registers
  // of the rows it lost on wider rows (6 rows of two vectors derived: one row of four).
  const auto one_row = choose_kernel(empty, cpu, GemmProblem::packed(1, 4096, 4096));
  EXPECT_EQ(one_row.overrides.at("ROWS"), 1);
  EXPECT_EQ(one_row.overrides.at("VECTORS"), 4);
  EXPECT_EQ(kernel(cpu, 8, 4096, 4096), "blocked");
  EXPECT_EQ(kernel(cpu, 16, 4096, 4096), "blocked");
  EXPECT_EQ(kernel(cpu, 32, 32, 256), "blocked");  // both sides short: not GEMV-like
  EXPECT_EQ(kernel(cpu, 1, 4096, 16), "blocked");  // K too short to stream
  const auto choice = choose_kernel(empty, gpu, GemmProblem::packed(1, 4096, 4096));
  EXPECT_NE(choice.reason.find("GEMV-like"), std::string::npos) << choice.reason;
}

// In the reduced precisions a GEMV-like product leaves the tensor cores for gemv on its FP32
// entries. On a device that runs wgmma (which packs all of B for such products and tiles them
// 128 rows deep: 0.33-0.43x cuBLAS TF32 at 1-32 rows on the H100) a product of at most
// kTensorCoreMinRows rows runs tensorcore's thin tiles, and in TF32 one of as few columns leaves
// for blocked. Wider products, and short K, keep the tensor cores and their own precision's
// entries; a device without them is unchanged.
TEST(Tuning, ThinProductsLeaveTheTensorCores) {
  DeviceLimits gpu = gpu_of_132_units();
  TuningDatabase database;
  TunedEntry gemv = entry("G", "gemv", 0);
  gemv.kernel = "gemv", gemv.m = 8, gemv.n = 4096, gemv.k = 4096;
  gemv.options = {{"SPLIT", 64}};
  database.put(gemv);
  TunedEntry thin = entry("G", "thin", 0);
  thin.kernel = "blocked", thin.m = 32, thin.n = 4096, thin.k = 8192;
  thin.options = {{"TILE_M", 32}};
  database.put(thin);
  TunedEntry tensor = entry("G", "large", 0);
  tensor.kernel = "tensorcore", tensor.precision = Precision::TF32;
  tensor.options = {{"STAGES", 2}};
  database.put(tensor);
  for (Precision p : {Precision::TF32, Precision::TF32x3})
    for (TensorCores cores : {TensorCores::MmaSync, TensorCores::Wgmma, TensorCores::None}) {
      const bool on_cores = cores != TensorCores::None;
      const std::string where =
          std::string(precision_name(p)) + (on_cores ? " cores" : " portable");
      const auto choose = [&](const GemmProblem& shape) {
        return choose_kernel(database, gpu, shape, p, cores);
      };
      for (const auto& shape :
           {GemmProblem::packed(1, 6144, 4096), GemmProblem::packed(4096, 8, 4096),
            GemmProblem::packed_batch(8, 4096, 4096, 3)}) {
        const auto choice = choose(shape);
        EXPECT_EQ(choice.kernel, "gemv") << where << ": " << choice.reason;
        EXPECT_NE(choice.reason.find("GEMV-like"), std::string::npos) << choice.reason;
        // 3xTF32 on blocks of 4 (GemvTakesBlocksOfFourIn3xTf32OnGpus).
        if (shape.batch == 1)
          EXPECT_EQ(kernel_and_options(choice),
                    p == Precision::TF32x3 ? "gemv SPLIT=64 VEC=4" : "gemv SPLIT=64")
              << where << ": " << choice.reason;
      }
      // 16-32 rows where the tensor cores are wgmma's: tensorcore's thin tiles in both
      // precisions (on the H100 3.6x wgmma's speed in 3xTF32, 1.13x blocked's in TF32).
      const auto thin_rows = choose(GemmProblem::packed(16, 28672, 4096));
      if (cores == TensorCores::Wgmma) {
        EXPECT_EQ(kernel_and_options(thin_rows),
                  "tensorcore STAGES=2 TILE_K=32 TILE_M=32 TILE_N=128 VEC=4 WARP_M=16 WARP_N=64")
            << where << ": " << thin_rows.reason;
        EXPECT_NE(thin_rows.reason.find("thin for wgmma's tiles"), std::string::npos)
            << thin_rows.reason;
      } else {
        EXPECT_EQ(thin_rows.kernel, on_cores ? "tensorcore" : "blocked") << thin_rows.reason;
        EXPECT_EQ(thin_rows.reason.find("thin for wgmma's tiles"), std::string::npos)
            << thin_rows.reason;
      }
      // 16-32 columns: off the tensor cores in TF32 where they are wgmma's (not measured on
      // mma.sync; in 3xTF32 the FMA kernels' three products made them slower on the H100).
      const bool leaves = cores == TensorCores::Wgmma && p == Precision::TF32;
      const auto thin_columns = choose(GemmProblem::packed(6144, 32, 6144));
      if (on_cores && !leaves)
        EXPECT_EQ(thin_columns.kernel, "tensorcore") << where << ": " << thin_columns.reason;
      else
        EXPECT_EQ(kernel_and_options(thin_columns), "blocked TILE_M=32")
            << where << ": " << thin_columns.reason;
      EXPECT_EQ(thin_columns.reason.find("thin for the tensor cores") != std::string::npos, leaves)
          << thin_columns.reason;
      // 33-128 rows where the tensor cores are wgmma's: tensorcore's 64-row tiles (on the H100
      // 1.4x wgmma's speed at 96 and 128 rows in TF32, 1.5-2.5x at 64-128 in 3xTF32); from 129
      // rows, not.
      for (std::int64_t rows : {33, 96, 128, 129}) {
        const auto mid = choose(GemmProblem::packed(rows, 12288, 3072));
        const bool tiles = cores == TensorCores::Wgmma && rows <= 128;
        if (tiles)
          EXPECT_EQ(kernel_and_options(mid),
                    "tensorcore STAGES=3 TILE_K=16 TILE_M=64 TILE_N=128 VEC=4 WARP_M=32 WARP_N=64")
              << where << " " << rows << ": " << mid.reason;
        EXPECT_EQ(mid.reason.find("thin for wgmma's tiles") != std::string::npos, tiles)
            << where << " " << rows << ": " << mid.reason;
      }
      // 33 rows, or a short K, or a short long side: the tensor cores where there are some,
      // except for calls small for wgmma's tiles in TF32 (small_for_wgmma).
      for (const auto& shape :
           {GemmProblem::packed(33, 4096, 4096), GemmProblem::packed(16, 4096, 128),
            GemmProblem::packed(32, 200, 4096)}) {
        const auto choice = choose(shape);
        const bool small = shape.m != 33 && leaves;
        EXPECT_EQ(choice.kernel, on_cores && !small ? "tensorcore" : "blocked")
            << where << " " << shape.m << "x" << shape.n << "x" << shape.k << ": " << choice.reason;
      }
    }
}

// On a CPU a long operand of a million floats or more is streamed whatever K: auto sent
// 16777216 x 1 x 2 to blocked, 9x slower on PoCL (6.5 s against gemv's 0.72 s). Read as stored,
// register_block's blocks of the short side stream it (PoCL: 3-6x gemv), and so do its inner
// products a B read transposed (1 x 16777216 x 2: 1.4 GFLOP/s against gemv's 0.36); an A read
// transposed, gemv. Small ones and GPUs keep their choice.
TEST(Tuning, LongOperandsAreStreamedOnCpus) {
  DeviceLimits gpu;
  gpu.name = "G", gpu.type = DeviceType::GPU, gpu.compute_units = 132;
  gpu.max_work_group_size = 1024, gpu.local_memory_bytes = 48 * 1024;
  DeviceLimits cpu;
  cpu.name = "C", cpu.type = DeviceType::CPU, cpu.compute_units = 2;
  cpu.max_work_group_size = 4096, cpu.local_memory_bytes = 64 * 1024;
  const TuningDatabase empty;
  auto choose = [&](const DeviceLimits& d, std::int64_t m, std::int64_t n, std::int64_t k,
                    bool transposed = false) {
    GemmProblem p = GemmProblem::packed(m, n, k);
    if (transposed && m > n) p.trans_a = Transpose::Trans, p.lda = m;
    if (transposed && m <= n) p.trans_b = Transpose::Trans, p.ldb = k;
    return choose_kernel(empty, d, p);
  };
  auto kernel = [&](const DeviceLimits& d, std::int64_t m, std::int64_t n, std::int64_t k,
                    bool transposed = false) { return choose(d, m, n, k, transposed).kernel; };
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
           {16777216, 1, 2}, {1, 16777216, 2}, {1048576, 1, 2}, {65536, 1, 16}, {262144, 4, 8}}) {
    EXPECT_EQ(kernel(cpu, m, n, k), "register_block") << m << "x" << n << "x" << k;
    EXPECT_EQ(kernel(cpu, m, n, k, true), m > n ? "gemv" : "register_block")
        << m << "x" << n << "x" << k << " transposed";
  }
  // The block shrunk to C's short side: one column of one float, not 32 of which 31 are lost.
  const auto one_column = choose(cpu, 16777216, 1, 2);
  EXPECT_EQ(one_column.overrides.at("VEC"), 1);
  EXPECT_EQ(one_column.overrides.at("VECTORS"), 1);
  EXPECT_NE(one_column.reason.find("GEMV-like"), std::string::npos) << one_column.reason;
  EXPECT_EQ(kernel(cpu, 1, 4096, 16), "blocked");     // 64 Ki floats: both well under a millisecond
  EXPECT_EQ(kernel(gpu, 16777216, 1, 2), "blocked");  // not measured on GPUs: unchanged
}

// A device without entries of its own uses those of its architecture, then of its vendor and
// type, then of its type; never another type's.
TEST(Tuning, EntriesFallBackThroughTheDeviceLevels) {
  DeviceLimits h200;
  h200.name = "NVIDIA H200", h200.platform_name = "NVIDIA CUDA", h200.vendor = "NVIDIA Corporation";
  h200.type = DeviceType::GPU, h200.compute_capability = 90;
  DeviceLimits h100 = h200, l40 = h200, cpu;
  h100.name = "NVIDIA H100 80GB HBM3";
  l40.name = "NVIDIA L40", l40.compute_capability = 89;
  cpu.name = "pthread-skylake-avx512-Intel(R) Xeon(R) Gold 6148", cpu.vendor = "GenuineIntel";
  cpu.type = DeviceType::CPU, cpu.platform_name = "Portable Computing Language";
  EXPECT_EQ(device_architecture(h200), "sm_90");
  EXPECT_EQ(device_architecture(cpu), "skylake-avx512");
  DeviceLimits epyc = cpu;
  epyc.name = "pthread-x86-64-v3-AMD EPYC 7B13", epyc.vendor = "AuthenticAMD";
  EXPECT_EQ(device_architecture(epyc), "x86-64-v3");
  DeviceLimits other_intel = cpu;
  other_intel.name = "cpu-haswell-Intel(R) Core(TM) i7-4770";
  EXPECT_EQ(device_architecture(other_intel), "haswell");

  TuningDatabase db;
  TunedEntry gpu = TunedEntry::for_device(h200);
  gpu.shape_class = "large", gpu.kernel = "tile", gpu.options = {{"TILE", 16}};
  db.put(gpu);
  TunedEntry host = TunedEntry::for_device(cpu);
  host.shape_class = "large", host.kernel = "tile", host.options = {{"TILE", 8}};
  db.put(host);
  auto level_of = [&](const DeviceLimits& d) {
    const auto [entries, level] = db.entries_for(d, Precision::FP32);
    return entries.empty() ? std::string("none")
                           : std::string(match_level_name(level)) + " " + entries[0].device;
  };
  EXPECT_EQ(level_of(h200), "device NVIDIA H200");
  EXPECT_EQ(level_of(h100), "architecture NVIDIA H200");
  EXPECT_EQ(level_of(l40), "vendor NVIDIA H200");
  EXPECT_EQ(level_of(cpu), "device " + cpu.name);
  EXPECT_EQ(level_of(other_intel), "vendor " + cpu.name);
  EXPECT_EQ(level_of(epyc), "device type " + cpu.name);
  DeviceLimits accelerator;
  accelerator.type = DeviceType::Accelerator;
  EXPECT_EQ(level_of(accelerator), "none");
  const auto choice = choose_kernel(db, h100, GemmProblem::packed(512, 512, 512));
  EXPECT_EQ(choice.kernel, "tile");
  EXPECT_NE(choice.reason.find("architecture level"), std::string::npos) << choice.reason;
  EXPECT_NE(choice.reason.find("measured on NVIDIA H200"), std::string::npos) << choice.reason;

  // A device's own entry that cannot serve a call (measured on a batch, or gemv's) does not
  // hide its kind's entries that can: a single product falls through to the next level.
  TunedEntry batched = TunedEntry::for_device(epyc);
  batched.shape_class = "batched-tiny", batched.kernel = "blocked", batched.batch = 8192;
  batched.m = batched.n = batched.k = 32, batched.gflops = 12;
  db.put(batched);
  const auto single = choose_kernel(db, epyc, GemmProblem::packed(512, 512, 512));
  EXPECT_EQ(single.kernel, "tile") << single.reason;
  EXPECT_NE(single.reason.find("device type level"), std::string::npos) << single.reason;
  GemmProblem batch = GemmProblem::packed(32, 32, 32);
  batch.batch = 8192;
  batch.stride_a = batch.stride_b = batch.stride_c = 32 * 32;
  const auto many = choose_kernel(db, epyc, batch);
  EXPECT_EQ(many.kernel, "blocked") << many.reason;
  EXPECT_NE(many.reason.find("at the device level"), std::string::npos) << many.reason;
}

// A user file (CLGEMM_TUNING_FILE) steers what a new Context runs for `auto`, and an entry the
// device cannot run falls back to derived parameters instead of failing.
TEST_F(TuningFiles, AutoFollowsTheUserFile) {
  const auto& device = shared_context().device();
  TuningDatabase db;
  // The user's entries replace the shipped ones of the same device, platform, class and
  // precision; a device with shipped entries (the H200 has one for every class) gets the
  // good entry in each of its single-product FP32 classes but medium.
  std::set<std::string> classes = {"small"};
  const TuningDatabase shipped = TuningDatabase::load_default();
  for (const auto& e : shipped.entries())
    if (e.device == device.name && e.precision == Precision::FP32 && e.batch <= 1)
      classes.insert(e.shape_class);
  classes.erase("medium");
  for (const auto& shape_class : classes) {
    TunedEntry good = entry(device.name, shape_class, 8);
    good.platform = device.platform_name;
    db.put(good);
  }
  TunedEntry invalid = entry(device.name, "medium", 3000);  // 3000^2 work-items: impossible
  invalid.platform = device.platform_name;
  db.put(invalid);
  const auto path = (dir_ / "user.json").string();
  db.save(path);
  ASSERT_EQ(setenv("CLGEMM_TUNING_FILE", path.c_str(), 1), 0);

  Context context;
  auto run = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    const auto p = GemmProblem::packed(m, n, k, 1.0f, 0.0f);
    const auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
    std::vector<float> c(p.c_elements()), c_before = c;
    const auto timing = context.sgemm(p, a.data(), b.data(), c.data());
    EXPECT_TRUE(verify_gemm(p, a.data(), b.data(), c_before.data(), c.data()).passed);
    return timing;
  };
  const auto small = run(100, 100, 100);
  EXPECT_EQ(small.kernel, "tile");
  EXPECT_EQ(small.options.at("TILE"), 8);
  EXPECT_NE(small.kernel_choice.find("tuned fp32 entry"), std::string::npos) << small.kernel_choice;
  const auto medium = run(300, 300, 1500);  // just above 512^3: medium
  EXPECT_EQ(medium.kernel, "tile");
  EXPECT_NE(medium.kernel_choice.find("invalid here"), std::string::npos) << medium.kernel_choice;
  EXPECT_EQ(medium.options.at("TILE"), 8) << "the valid entry serves every shape";
}

// What `auto` cannot use in the user's file is skipped, never fatal: an entry naming an unknown
// kernel, a malformed file, a FIFO where the file should be. Each call still runs (derived
// parameters) and its reason says why.
TEST_F(TuningFiles, AutoSkipsWhatItCannotUse) {
  const auto& device = shared_context().device();
  const std::string unknown_kernel = "{\"format\": 1, \"entries\": [{\"device\": \"" + device.name +
                                     "\", \"platform\": \"" + device.platform_name +
                                     "\", \"shape_class\": \"small\", \"kernel\": \"nope\", "
                                     "\"options\": {}}]}";
  const auto fifo = (dir_ / "fifo.json").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  struct Case {
    std::string path, text, why;
  };
  for (const Case& c :
       {Case{(dir_ / "unknown.json").string(), unknown_kernel, "unknown kernel 'nope'"},
        Case{(dir_ / "bad.json").string(), "{\"format\": 1, \"entries\": [", "not valid JSON"},
        Case{fifo, "", "not a regular file"}}) {
    if (!c.text.empty()) std::ofstream(c.path) << c.text;
    ASSERT_EQ(setenv("CLGEMM_TUNING_FILE", c.path.c_str(), 1), 0);
    Context context;
    const auto p = GemmProblem::packed(20, 20, 20);
    const auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
    std::vector<float> c_out(p.c_elements()), c_before = c_out;
    const auto timing = context.sgemm(p, a.data(), b.data(), c_out.data());
    EXPECT_TRUE(verify_gemm(p, a.data(), b.data(), c_before.data(), c_out.data()).passed);
    EXPECT_NE(timing.kernel_choice.find("problem(s), skipped"), std::string::npos)
        << timing.kernel_choice;
    EXPECT_NE(timing.kernel_choice.find(c.why), std::string::npos) << timing.kernel_choice;
    // The strict reader and the check name the same problem.
    const auto problems = TuningDatabase::check_file(c.path);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find(c.why), std::string::npos) << problems[0];
    EXPECT_THROW(TuningDatabase::load_file(c.path), Error);
  }
}

// Entries the library cannot use are kept, untouched, when a writer updates the file.
TEST_F(TuningFiles, UpdateKeepsUnusableEntries) {
  const auto path = (dir_ / "db.json").string();
  std::ofstream(path) << "{\"format\": 1, \"entries\": [{\"device\": \"D\", \"shape_class\": "
                         "\"small\", \"kernel\": \"future-kernel\", \"options\": {\"X\": 1}}]}";
  TuningDatabase::update_file(path, [](TuningDatabase& db) { db.put(entry("D", "large", 16)); });
  const auto again = TuningDatabase::parse(*read_regular_file(path), path);
  EXPECT_EQ(again.entries().size(), 1u);
  ASSERT_EQ(again.problems().size(), 1u);
  EXPECT_NE(again.problems()[0].find("future-kernel"), std::string::npos);
  // A file that is not a tuning file at all is refused, not replaced.
  std::ofstream(path) << "not json";
  EXPECT_THROW(TuningDatabase::update_file(path, [](TuningDatabase&) {}), Error);
  EXPECT_EQ(*read_regular_file(path), "not json");
}

// Values that do not fit their field are problems of their entry, never undefined conversions.
TEST(Tuning, OutOfRangeValuesAreProblems) {
  for (const char* options :
       {"{\"TILE\": 1e30}", "{\"TILE\": -5}", "{\"TILE\": 0}", "{\"TILE\": 8.5}",
        "{\"TILE\": \"8\"}", "{\"TILE\": 18446744073709551615}", "[]"}) {
    const std::string text =
        std::string(
            "{\"format\": 1, \"entries\": [{\"device\": \"D\", "
            "\"shape_class\": \"small\", \"kernel\": \"tile\", \"options\": ") +
        options + "}]}";
    const auto db = TuningDatabase::parse(text, "test");
    EXPECT_TRUE(db.entries().empty()) << options;
    EXPECT_EQ(db.problems().size(), 1u) << options;
  }
}

// A host parameter (blocked's WAVE_UNITS, the work-groups the device runs at once) is an
// option an entry may carry, within its range like any other; a name no kernel has is not.
TEST(Tuning, EntriesMayCarryHostParameters) {
  const auto parse = [](const std::string& options) {
    return TuningDatabase::parse(
        "{\"format\": 1, \"entries\": [{\"device\": \"D\", \"shape_class\": \"large\", "
        "\"kernel\": \"blocked\", \"options\": " +
            options + "}]}",
        "test");
  };
  const auto with_units = parse("{\"WAVE_UNITS\": 132}");
  ASSERT_EQ(with_units.entries().size(), 1u);
  EXPECT_EQ(with_units.entries()[0].options.at("WAVE_UNITS"), 132);
  const auto too_many = parse("{\"WAVE_UNITS\": 2000000}");
  EXPECT_TRUE(too_many.entries().empty());
  ASSERT_EQ(too_many.problems().size(), 1u);
  EXPECT_NE(too_many.problems()[0].find("WAVE_UNITS"), std::string::npos) << too_many.problems()[0];
  const auto unknown = parse("{\"WAVE_UNIT\": 132}");
  ASSERT_EQ(unknown.problems().size(), 1u);
  EXPECT_NE(unknown.problems()[0].find("has no parameter 'WAVE_UNIT'"), std::string::npos);
}

// The device levels' fields: a device type other than CPU, GPU, accelerator or other, or a
// level field that is not a string, is a problem of its entry; written entries keep them.
TEST(Tuning, DeviceLevelFieldsAreChecked) {
  for (const char* fields : {"\"device_type\": \"TPU\"", "\"architecture\": 90",
                             "\"vendor\": [\"NVIDIA\"]", "\"device_type\": \"gpu\""}) {
    const std::string text = std::string(
                                 "{\"format\": 1, \"entries\": [{\"device\": \"D\", "
                                 "\"shape_class\": \"small\", \"kernel\": \"tile\", "
                                 "\"options\": {\"TILE\": 8}, ") +
                             fields + "}]}";
    const auto db = TuningDatabase::parse(text, "test");
    EXPECT_TRUE(db.entries().empty()) << fields;
    EXPECT_EQ(db.problems().size(), 1u) << fields;
  }
  const std::string good =
      R"({"format": 1, "entries": [{"device": "D", "shape_class": "small", "kernel": "tile",
          "options": {"TILE": 8}, "architecture": "sm_90", "vendor": "V", "device_type": "GPU"}]})";
  const auto db = TuningDatabase::parse(good, "test");
  ASSERT_EQ(db.entries().size(), 1u);
  const auto again = TuningDatabase::parse(db.to_json_text(), "again");
  ASSERT_EQ(again.entries().size(), 1u);
  EXPECT_EQ(again.entries()[0].architecture, "sm_90");
  EXPECT_EQ(again.entries()[0].vendor, "V");
  EXPECT_EQ(again.entries()[0].device_type, "GPU");
}

// Files written before the per-work-item block was renamed (BATCH_M, BATCH_N, coarsened's
// BATCH) are read under the new names (ITEM_M, ITEM_N, ITEM) and written back under them.
TEST_F(TuningFiles, OldParameterNamesAreReadAsTheNewOnes) {
  const auto path = (dir_ / "old.json").string();
  std::ofstream(path) << R"({"format": 1, "entries": [
      {"device": "D", "platform": "P", "shape_class": "large", "kernel": "blocked",
       "options": {"BATCH_M": 16, "BATCH_N": 8, "TILE_K": 8, "TILE_M": 128, "TILE_N": 256,
                   "UNROLL": 1, "VEC": 4}},
      {"device": "D", "platform": "P", "shape_class": "small", "kernel": "coarsened",
       "options": {"TILE": 16, "BATCH": 4}}]})";
  const auto loaded = TuningDatabase::load_file(path);
  ASSERT_EQ(loaded.entries().size(), 2u);
  DeviceLimits device;
  device.name = "D", device.platform_name = "P";
  const KernelOptions blocked = loaded.find(device, "large")->options;
  // Every option, under the names blocked.cl and coarsened.cl read.
  EXPECT_EQ(
      format_build_options(blocked),
      "-D ITEM_M=16 -D ITEM_N=8 -D TILE_K=8 -D TILE_M=128 -D TILE_N=256 -D UNROLL=1 -D VEC=4");
  EXPECT_EQ(loaded.find(device, "small")->options, (KernelOptions{{"TILE", 16}, {"ITEM", 4}}));

  loaded.save(path);
  const std::string text = *read_regular_file(path);
  EXPECT_EQ(text.find("BATCH"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ITEM_M\": 16"), std::string::npos) << text;

  // The old and the new name of one parameter together are a problem of that entry.
  const auto both = TuningDatabase::parse(
      R"({"format": 1, "entries": [{"device": "D", "shape_class": "small", "kernel": "coarsened",
          "options": {"TILE": 16, "BATCH": 4, "ITEM": 2}}]})",
      "test");
  EXPECT_TRUE(both.entries().empty());
  ASSERT_EQ(both.problems().size(), 1u);
  EXPECT_NE(both.problems()[0].find("'ITEM' twice"), std::string::npos) << both.problems()[0];
}

// A user file nested 85,000 levels deep (170 KB) is skipped with its reason before any tree is
// built: nlohmann's parser, the tree's destructor and its serializer recurse per level and
// overflowed the stack of every program that ran `auto`.
TEST_F(TuningFiles, DeeplyNestedFileIsSkippedBeforeItIsParsed) {
  const auto path = (dir_ / "deep.json").string();
  std::ofstream(path) << "{\"format\": 1, \"entries\": [{\"device\": \"D\", \"options\": "
                      << std::string(85000, '[') << std::string(85000, ']') << "}]}";
  ASSERT_EQ(setenv("CLGEMM_TUNING_FILE", path.c_str(), 1), 0);
  const auto db = TuningDatabase::load_default();
  ASSERT_FALSE(db.problems().empty());
  EXPECT_NE(db.problems().back().find("nests arrays and objects deeper than 64 levels"),
            std::string::npos)
      << db.problems().back();
  const auto problems = TuningDatabase::check_file(path);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("deeper than 64 levels"), std::string::npos) << problems[0];
  Context context;
  const auto p = GemmProblem::packed(20, 20, 20);
  const auto a = random_matrix(p.a_elements(), 1), b = random_matrix(p.b_elements(), 2);
  std::vector<float> c(p.c_elements()), c_before = c;
  const auto timing = context.sgemm(p, a.data(), b.data(), c.data());
  EXPECT_TRUE(verify_gemm(p, a.data(), b.data(), c_before.data(), c.data()).passed);
  EXPECT_NE(timing.kernel_choice.find("deeper than 64 levels"), std::string::npos)
      << timing.kernel_choice;
}

// The limit is 64 levels: a file nested exactly that deep is JSON the database reads (its
// deep entry is a problem of that entry), one level more is not.
TEST(Tuning, NestingDepthLimitIsSixtyFourLevels) {
  auto file = [](int entry_depth) {  // the file and its entries array are two levels
    return "{\"format\": 1, \"entries\": [" + std::string(entry_depth, '[') +
           std::string(entry_depth, ']') + "]}";
  };
  const auto at_limit = TuningDatabase::parse(file(62), "test");
  ASSERT_EQ(at_limit.problems().size(), 1u);
  EXPECT_NE(at_limit.problems()[0].find("is not a JSON object"), std::string::npos);
  try {
    TuningDatabase::parse(file(63), "test");
    FAIL() << "65 levels were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("deeper than 64 levels"), std::string::npos) << e.what();
  }
}

// What nlohmann's parser passes silently is a problem of the file: text after the value behind
// a NUL byte (where the parser stops reading) and a key given twice (the parser keeps the last).
TEST(Tuning, TextAfterTheValueAndRepeatedKeysAreProblems) {
  const std::string valid = "{\"format\": 1, \"entries\": []}";
  EXPECT_TRUE(TuningDatabase::parse(valid, "test").problems().empty());
  struct Case {
    std::string text, why;
  };
  for (const auto& c : {Case{valid + std::string(1, '\0') + "garbage", "a NUL byte at byte 28"},
                        Case{valid + " garbage", "is not valid JSON"},
                        Case{"{\"format\": 1, \"format\": 1, \"entries\": []}",
                             "gives the key \"format\" twice in one object"},
                        Case{"{\"format\": 1, \"entries\": [{\"device\": \"D\", \"shape_class\": "
                             "\"small\", \"kernel\": \"tile\", \"options\": {\"TILE\": 8, "
                             "\"TILE\": 16}}]}",
                             "gives the key \"TILE\" twice"}}) {
    try {
      TuningDatabase::parse(c.text, "test");
      ADD_FAILURE() << "accepted: " << c.why;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.why), std::string::npos) << e.what();
    }
  }
}

// Options that no device can run (more local memory than any device has, or constraints broken
// with every parameter given) are problems of their entry, not entries `auto` skips later.
TEST(Tuning, OptionsNoDeviceCanRunAreProblems) {
  for (const char* kernel_and_options :
       {R"("kernel": "blocked", "options": {"TILE_M": 4096, "TILE_N": 4096, "TILE_K": 4096})",
        R"("kernel": "tile", "options": {"TILE": 8192})",
        R"("kernel": "blocked", "options": {"TILE_M": 64, "TILE_N": 64, "TILE_K": 16,
            "ITEM_M": 6, "ITEM_N": 8, "VEC": 4, "UNROLL": 0, "LANES_N": 0,
            "FRAG_PREFETCH": 0, "LOCAL_PAD": 0, "ASYNC_COPY": 0, "STAGES": 2,
            "STORE_VEC4": 0, "K_GROUPS": 1})"}) {
    const std::string text =
        std::string(R"({"format": 1, "entries": [{"device": "D", "shape_class": "large", )") +
        kernel_and_options + "}]}";
    const auto db = TuningDatabase::parse(text, "test");
    EXPECT_TRUE(db.entries().empty()) << kernel_and_options;
    ASSERT_EQ(db.problems().size(), 1u) << kernel_and_options;
    EXPECT_NE(db.problems()[0].find("can run on no device"), std::string::npos) << db.problems()[0];
  }
  // Large but possible tiles, and partial options, stay usable.
  const auto usable = TuningDatabase::parse(
      R"({"format": 1, "entries": [{"device": "D", "shape_class": "large", "kernel": "blocked",
          "options": {"TILE_M": 256, "TILE_N": 256, "TILE_K": 32}}]})",
      "test");
  EXPECT_TRUE(usable.problems().empty()) << usable.problems()[0];
  EXPECT_EQ(usable.entries().size(), 1u);
}

}  // namespace
}  // namespace clgemm::testing
