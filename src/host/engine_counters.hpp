// Internal: what the host-memory engines of the process have done, for tests and tools:
// buffers created (device slots and staging chunks), device bytes held, calls that recovered
// on the host; and a fault injection point the tests use to make the device "fail" after a
// number of chunks of C were written.
#pragma once

#include <atomic>
#include <cstddef>

namespace clgemm::detail {

struct EngineCounters {
  std::atomic<std::size_t> buffers_created{0};
  std::atomic<std::size_t> device_bytes_held{0};
  std::atomic<std::size_t> host_recoveries{0};
  // Tests only: when positive, the engine fails (as if an OpenCL call had) before writing its
  // chunk number `fail_before_chunk` (1 for the first) of C into the caller's array.
  std::atomic<long> fail_before_chunk{0};
};

EngineCounters& engine_counters();

}  // namespace clgemm::detail
