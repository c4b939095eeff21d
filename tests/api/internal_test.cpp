// Unit tests of two internals that no public call reaches on its own: the C API's guard, which
// maps every exception (and every error code, through one table) to a status, and the on-disk
// cache's entry format. The only test program that sees src/ (it lives beside it).
#include <gtest/gtest.h>

#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/c_status.hpp"
#include "clgemm/clgemm.h"
#include "clgemm/clgemm.hpp"
#include "runtime/binary_cache.hpp"

namespace {

std::string last_error() {
  return clgemm_last_error_message();
}

// No argument provokes these; the guard around every entry point maps them all the same.
TEST(CApi, GuardMapsEveryOtherFailureAndLetsNothingEscape) {
  using clgemm::detail::CallPath;
  using clgemm::detail::guarded;
  EXPECT_EQ(
      guarded(CallPath::Host,
              []() -> clgemm_status { throw clgemm::OpenCLError("clEnqueueNDRangeKernel", -5); }),
      CLGEMM_OPENCL_FAILURE);
  EXPECT_NE(last_error().find("clEnqueueNDRangeKernel failed with status -5"), std::string::npos);
  EXPECT_EQ(guarded(CallPath::Host, []() -> clgemm_status { throw std::bad_alloc(); }),
            CLGEMM_OUT_OF_HOST_MEMORY);
  EXPECT_NE(last_error().find("out of host memory"), std::string::npos);
  EXPECT_EQ(
      guarded(CallPath::Other, []() -> clgemm_status { throw std::logic_error("something odd"); }),
      CLGEMM_UNKNOWN_ERROR);
  EXPECT_NE(last_error().find("something odd"), std::string::npos);
  EXPECT_EQ(guarded(CallPath::Other, []() -> clgemm_status { throw 42; }), CLGEMM_UNKNOWN_ERROR);
  EXPECT_EQ(guarded(CallPath::Host,
                    []() -> clgemm_status {
                      throw clgemm::Error(clgemm::ErrorCode::InvalidArgument, "odd",
                                          clgemm::Argument::Settings);
                    }),
            CLGEMM_INVALID_ARGUMENT);
  // The same C++ argument name means different things on the two paths.
  auto buffer_a = []() -> clgemm_status {
    throw clgemm::Error(clgemm::ErrorCode::InvalidArgument, "bad A", clgemm::Argument::A);
  };
  EXPECT_EQ(guarded(CallPath::Host, buffer_a), CLGEMM_NULL_A);
  EXPECT_EQ(guarded(CallPath::Buffers, buffer_a), CLGEMM_INVALID_BUFFER_A);
  // Every error code has a status of its own in the table; only Internal is UNKNOWN_ERROR.
  std::set<clgemm_status> statuses;
  for (int code = 0; code <= int(clgemm::ErrorCode::Internal); ++code) {
    const auto status = guarded(CallPath::Host, [code]() -> clgemm_status {
      throw clgemm::Error(clgemm::ErrorCode(code), "x");
    });
    EXPECT_EQ(status == CLGEMM_UNKNOWN_ERROR, code == int(clgemm::ErrorCode::Internal))
        << clgemm::error_code_name(clgemm::ErrorCode(code));
    EXPECT_NE(std::string(clgemm::error_code_name(clgemm::ErrorCode(code))), "unknown-error");
  }
}

// An entry whose checksum covers its key: a valid entry of one option set copied to the file of
// another (the header's key line rewritten too) is refused, not loaded as the other's binary.
TEST(BinaryCacheEntry, ChecksumCoversTheKey) {
  const std::vector<unsigned char> binary = {1, 2, 3, 4, 5};
  const std::string entry = clgemm::detail::BinaryCache::format_entry("key one", binary);
  EXPECT_EQ(clgemm::detail::BinaryCache::parse_entry(entry, "key one"), binary);
  EXPECT_FALSE(clgemm::detail::BinaryCache::parse_entry(entry, "key two").has_value());
  std::string moved = entry;
  moved.replace(moved.find("key one"), 7, "key two");
  EXPECT_FALSE(clgemm::detail::BinaryCache::parse_entry(moved, "key two").has_value());
  for (std::size_t i = 0; i < entry.size(); ++i) {  // any one damaged byte is caught
    std::string damaged = entry;
    damaged[i] ^= 0x20;
    const auto parsed = clgemm::detail::BinaryCache::parse_entry(damaged, "key one");
    EXPECT_TRUE(!parsed || *parsed == binary) << "byte " << i;
  }
}

}  // namespace
