// The delayed-notice watchdog (src/support/delayed_notice.hpp): said once after its delay, never
// when it ends first, held back while its condition fails, and inert when there is nothing to say.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "support/delayed_notice.hpp"

namespace clgemm::detail {
namespace {

using std::chrono::milliseconds;

// Waits up to 10 s for `count` to reach `at_least`.
bool reaches(const std::atomic<int>& count, int at_least) {
  for (int i = 0; i < 1000 && count.load() < at_least; ++i)
    std::this_thread::sleep_for(milliseconds(10));
  return count.load() >= at_least;
}

TEST(DelayedNotice, SaysOnceAfterItsDelay) {
  std::atomic<int> said{0};
  {
    const DelayedNotice notice([&said] { ++said; }, 0.0);
    EXPECT_TRUE(reaches(said, 1));
    std::this_thread::sleep_for(milliseconds(200));
  }
  EXPECT_EQ(said.load(), 1);
}

TEST(DelayedNotice, ADelayOfZeroSaysItEvenWhenItEndsAtOnce) {
  std::atomic<int> said{0};
  {
    const DelayedNotice notice([&said] { ++said; }, 0.0);
  }
  EXPECT_EQ(said.load(), 1);
}

TEST(DelayedNotice, SaysNothingWhenItEndsFirst) {
  std::atomic<int> said{0};
  const auto start = std::chrono::steady_clock::now();
  {
    const DelayedNotice notice([&said] { ++said; }, 60.0);
  }
  EXPECT_EQ(said.load(), 0);
  // The destructor does not wait out the delay.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(DelayedNotice, WaitsWhileItsConditionFails) {
  std::atomic<int> said{0};
  std::atomic<bool> compiling{false};
  {
    const DelayedNotice notice([&said] { ++said; }, 0.0, [&compiling] { return compiling.load(); });
    std::this_thread::sleep_for(milliseconds(300));
    EXPECT_EQ(said.load(), 0) << "said while its condition did not hold";
    compiling = true;
    EXPECT_TRUE(reaches(said, 1));
  }
  EXPECT_EQ(said.load(), 1);
  {
    compiling = false;
    const DelayedNotice never([&said] { ++said; }, 0.0, [&compiling] { return compiling.load(); });
    std::this_thread::sleep_for(milliseconds(200));
  }
  EXPECT_EQ(said.load(), 1) << "a condition that never held let it speak";
}

TEST(DelayedNotice, NothingToSayOrANegativeDelayStartsNothing) {
  std::atomic<int> said{0};
  { const DelayedNotice empty({}, 0.0); }
  {
    const DelayedNotice off([&said] { ++said; }, -1.0);
    std::this_thread::sleep_for(milliseconds(200));
  }
  EXPECT_EQ(said.load(), 0);
}

}  // namespace
}  // namespace clgemm::detail
