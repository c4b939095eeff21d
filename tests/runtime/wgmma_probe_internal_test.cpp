// The wgmma guard and probe (runtime/capability_probes.hpp) and the program cache's rewritten
// builds, on the device the tests select (CLGEMM_PLATFORM, CLGEMM_DEVICE). Elsewhere than on an
// NVIDIA device of compute capability 9.0 the probe must say why wgmma is not available and the
// rewrite must be refused; on one (an H200) the probe must compute its product, and the rewritten
// build must be kept on disk under its own key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "clgemm/errors.hpp"
#include "runtime/capability_probes.hpp"
#include "runtime/device_selection.hpp"
#include "runtime/kernel_source.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/ptx_rewrite.hpp"

namespace {

namespace fs = std::filesystem;
using clgemm::detail::PtxRewrite;

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

class Wgmma : public ::testing::Test {
 protected:
  void SetUp() override {
    selected_ = clgemm::detail::select_device(clgemm::DeviceRequest{});
    context_ = cl::Context(selected_.device);
  }
  bool runs_sm90a() const { return clgemm::detail::runs_sm90a(selected_.limits); }
  bool is_nvidia() const { return selected_.limits.vendor.find("NVIDIA") != std::string::npos; }

  clgemm::detail::SelectedDevice selected_;
  cl::Context context_;
};

// A private disk cache for one test, removed after it.
class PrivateCacheDirectory {
 public:
  PrivateCacheDirectory()
      : path_(fs::temp_directory_path() / ("clgemm-wgmma-test-" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    setenv("CLGEMM_CACHE_DIR", path_.c_str(), 1);
  }
  ~PrivateCacheDirectory() {
    unsetenv("CLGEMM_CACHE_DIR");
    fs::remove_all(path_);
  }

 private:
  fs::path path_;
};

TEST_F(Wgmma, ProbeSaysWhyOrComputesItsProduct) {
  const auto support = clgemm::detail::probe_wgmma(context_, selected_.device, selected_.limits);
  if (!is_nvidia()) {
    EXPECT_FALSE(support.available);
    EXPECT_TRUE(starts_with(support.reason, "not an NVIDIA device (vendor '")) << support.reason;
  } else if (!runs_sm90a()) {
    EXPECT_FALSE(support.available);
    EXPECT_TRUE(starts_with(support.reason, "compute capability ")) << support.reason;
  } else {
    EXPECT_TRUE(support.available) << support.reason;  // the check that matters, on an H200
  }
  // Remembered: asked again, the same answer.
  const auto again = clgemm::detail::probe_wgmma(context_, selected_.device, selected_.limits);
  EXPECT_EQ(again.available, support.available);
  EXPECT_EQ(again.reason, support.reason);
}

// The guard reads the vendor and compute capability before anything is built, so invented
// limits show each refusal on any device.
TEST_F(Wgmma, GuardNeedsNvidiaAndComputeCapabilityExactlyNine) {
  auto limits = selected_.limits;
  limits.vendor = "Advanced Micro Devices, Inc.";
  EXPECT_EQ(clgemm::detail::probe_wgmma(context_, selected_.device, limits).reason,
            "not an NVIDIA device (vendor 'Advanced Micro Devices, Inc.')");
  limits.vendor = "NVIDIA Corporation";
  limits.compute_capability = 89;
  const auto ada = clgemm::detail::probe_wgmma(context_, selected_.device, limits);
  EXPECT_FALSE(ada.available);
  EXPECT_EQ(ada.reason, "compute capability 8.9, wgmma needs 9.0 (sm_90a code runs on 9.0 only)");
  limits.compute_capability = 100;
  EXPECT_EQ(clgemm::detail::probe_wgmma(context_, selected_.device, limits).reason,
            "compute capability 10.0, wgmma needs 9.0 (sm_90a code runs on 9.0 only)");
  limits.compute_capability = 0;
  EXPECT_EQ(clgemm::detail::probe_wgmma(context_, selected_.device, limits).reason,
            "compute capability unknown (no cl_nv_device_attribute_query), wgmma needs 9.0");
}

// Elsewhere the rewrite is refused with a clear error before anything is built, and the plain
// build of the same source is unaffected.
TEST_F(Wgmma, ProgramCacheRefusesTheRewriteOnOtherDevices) {
  if (runs_sm90a()) GTEST_SKIP() << "this device runs sm_90a";
  PrivateCacheDirectory cache;
  clgemm::detail::ProgramCache programs(context_, selected_.device, selected_.limits);
  const auto source = clgemm::detail::load_kernel_source("scale_c.cl");
  const std::string options = "-D WG_X=8 -D WG_Y=8";
  bool cached = true;
  try {
    programs.get("scale_c", "scale_c", source.text, source.hash, options, cached,
                 PtxRewrite::Sm90a);
    ADD_FAILURE() << "the rewrite was not refused";
  } catch (const clgemm::BuildError& error) {
    EXPECT_EQ(error.kernel(), "scale_c");
    EXPECT_NE(
        std::string(error.log())
            .find("the build asks for its PTX rewritten to sm_90a, which only NVIDIA devices of "
                  "compute capability 9.0 run; this device has vendor '" +
                  selected_.limits.vendor + "'"),
        std::string::npos)
        << error.log();
  }
  const auto built = programs.get("scale_c", "scale_c", source.text, source.hash, options, cached);
  EXPECT_FALSE(cached);
  EXPECT_GT(built->kernel_work_group_size, 0u);
}

// On NVIDIA devices the PTX of every plain build is checked: a kernel with markers built
// without the rewrite is refused, naming the marker's line.
TEST_F(Wgmma, ProgramCacheRefusesMarkedPtxBuiltWithoutTheRewrite) {
  if (!is_nvidia()) GTEST_SKIP() << "only NVIDIA devices' binaries are PTX";
  PrivateCacheDirectory cache;
  clgemm::detail::ProgramCache programs(context_, selected_.device, selected_.limits);
  const auto source = clgemm::detail::load_kernel_source("wgmma_probe.cl");
  bool cached = true;
  try {
    programs.get("wgmma_probe", "wgmma_probe", source.text, source.hash, "", cached);
    ADD_FAILURE() << "the marked PTX was built without the rewrite";
  } catch (const clgemm::BuildError& error) {
    EXPECT_NE(std::string(error.log())
                  .find("holds the marker '//@', but its build did not ask "
                        "for the PTX rewrite to sm_90a"),
              std::string::npos)
        << error.log();
  }
}

// On a device that runs sm_90a: the rewritten build is stored on disk under its own key, a
// second cache loads it from there, and the plain build of the same source still compiles
// (and is refused for its markers) rather than loading the rewritten binary.
TEST_F(Wgmma, RewrittenBuildIsKeptOnDiskUnderItsOwnKey) {
  if (!runs_sm90a()) GTEST_SKIP() << "needs an NVIDIA device of compute capability 9.0";
  PrivateCacheDirectory cache;
  const auto source = clgemm::detail::load_kernel_source("wgmma_probe.cl");
  bool cached = true;
  {
    clgemm::detail::ProgramCache programs(context_, selected_.device, selected_.limits);
    const auto built = programs.get("wgmma_probe", "wgmma_probe", source.text, source.hash, "",
                                    cached, PtxRewrite::Sm90a);
    EXPECT_FALSE(built->from_disk_cache);
    EXPECT_EQ(built->compile_work_group[0], 128u);
  }
  clgemm::detail::ProgramCache programs(context_, selected_.device, selected_.limits);
  const auto loaded = programs.get("wgmma_probe", "wgmma_probe", source.text, source.hash, "",
                                   cached, PtxRewrite::Sm90a);
  EXPECT_TRUE(loaded->from_disk_cache);
  EXPECT_THROW(programs.get("wgmma_probe", "wgmma_probe", source.text, source.hash, "", cached),
               clgemm::BuildError);
}

}  // namespace
