// clgemm-bench --link and --host: the host-to-device link and the host-array path set against
// it. --link measures the bandwidth of host->device and device->host copies from pageable
// (malloc'd) and pinned (CL_MEM_ALLOC_HOST_PTR, mapped) memory at a few sizes; both modes then
// time, per shape, the host-array call (wall time of Context::sgemm on host arrays, best of N)
// beside the same product on device-resident buffers and the link's bound for it.
#pragma once

#include <cstdint>
#include <vector>

#include "clgemm/clgemm.hpp"

namespace clgemm::bench {

struct LinkOptions {
  bool measure_link = false;  // --link: the bandwidth table first
  std::vector<std::int64_t> mebibytes = {1, 16, 64, 256};
  int repeat = 5;  // best of
  bool column_major = false;
};

// Prints the tables; returns whether every host-array result verified.
bool run_link_benchmark(Context& context, const std::vector<GemmProblem>& problems,
                        const LinkOptions& options);

}  // namespace clgemm::bench
