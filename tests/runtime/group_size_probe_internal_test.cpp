// Work-groups above the reported CL_KERNEL_WORK_GROUP_SIZE (runtime/capability_probes.hpp): the
// probe's kernel computes its sums on the device the tests select; the probe runs only on
// NVIDIA devices; and a kernel's work-group limit is its required size only where the probe
// passed, never above CL_DEVICE_MAX_WORK_GROUP_SIZE, and the reported size everywhere else.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "runtime/capability_probes.hpp"
#include "runtime/device_runtime.hpp"
#include "runtime/device_selection.hpp"

namespace {

using clgemm::detail::BuiltProgram;
using clgemm::detail::DeviceRuntime;

class GroupSizeProbe : public ::testing::Test {
 protected:
  void SetUp() override {
    selected_ = clgemm::detail::select_device(clgemm::DeviceRequest{});
    context_ = cl::Context(selected_.device);
  }
  bool is_nvidia() const { return selected_.limits.vendor.find("NVIDIA") != std::string::npos; }

  clgemm::detail::SelectedDevice selected_;
  cl::Context context_;
};

TEST_F(GroupSizeProbe, ItsKernelSumsExactlyInGroupsOfEverySize) {
  const std::size_t largest = std::min<std::size_t>(selected_.limits.max_work_group_size, 1024);
  for (std::size_t group = 1; group <= largest; group *= 4) {
    const auto answer = clgemm::detail::run_work_groups_of(context_, selected_.device, group);
    EXPECT_TRUE(answer.available) << group << ": " << answer.reason;
    EXPECT_NE(answer.reason.find("work-groups of " + std::to_string(group) + " ran"),
              std::string::npos)
        << answer.reason;
  }
}

TEST_F(GroupSizeProbe, RunsOnNvidiaDevicesOnly) {
  const auto answer =
      clgemm::detail::probe_required_group_sizes(context_, selected_.device, selected_.limits);
  if (is_nvidia()) {
    EXPECT_TRUE(answer.available) << answer.reason;
  } else {
    EXPECT_FALSE(answer.available);
    EXPECT_EQ(answer.reason.rfind("not an NVIDIA device", 0), 0u) << answer.reason;
  }
}

TEST_F(GroupSizeProbe, AKernelsLimitIsItsRequiredSizeOnlyWhereTheProbePassed) {
  DeviceRuntime device(selected_, context_);
  const std::size_t device_max = selected_.limits.max_work_group_size;
  const bool probed = is_nvidia() && clgemm::detail::probe_required_group_sizes(
                                         context_, selected_.device, selected_.limits)
                                         .available;
  BuiltProgram built;
  built.kernel_work_group_size = 64;
  built.compile_work_group = {device_max, 1, 1};
  EXPECT_EQ(device.work_group_limit(built), probed ? device_max : 64);
  built.compile_work_group = {device_max / 2, 2, 1};  // two dimensions count as their product
  EXPECT_EQ(device.work_group_limit(built), probed ? device_max : 64);
  built.compile_work_group = {device_max, 2, 1};  // above the device's maximum: never
  EXPECT_EQ(device.work_group_limit(built), 64u);
  built.compile_work_group = {0, 0, 0};  // no required size: the reported one
  EXPECT_EQ(device.work_group_limit(built), 64u);
  built.kernel_work_group_size = device_max;  // a required size below the reported one
  built.compile_work_group = {32, 1, 1};
  EXPECT_EQ(device.work_group_limit(built), device_max);
}

}  // namespace
