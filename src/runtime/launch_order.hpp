// Internal: a workaround for PoCL 5.0 and 3.1, which abort (`pocl_release_dlhandle_cache:
// Assertion found->ref_count > 0`) when launches of one kernel build run at the same time.
// PoCL 5.0 keeps one loaded kernel per build, work-group size and maximum grid width: a launch
// takes a reference on the first entry whose width covers its grid, but on completion it drops
// a reference from the first entry with the same build and work-group size, whatever its width.
// With a narrow and a wider launch in flight together, the wrong entry is released and the
// second release aborts the process. PoCL 3.1 keeps one entry per build and work-group size and
// aborted the same way once in about 70 runs of Fault.OneContextFromSeveralThreads (four threads
// launching the same builds). This breaks no OpenCL rule on our side (kernel objects, queues
// and buffers are each used as the specification allows); later PoCL releases drop the
// reference of the entry the launch took.
//
// On the affected implementations only, launches of one build are chained: each waits (in the
// device's queue, through an event wait list, never by blocking the caller) for the previous
// launch of the same build to complete. Elsewhere nothing changes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "clgemm/device.hpp"
#include "support/opencl.hpp"

namespace clgemm::detail {

// Whether launches on this device must be chained (PoCL 5.0 and 3.1).
bool launches_need_chaining(const DeviceLimits& device);

// Runs `enqueue` with the events it must wait for (empty when `build_key` is empty, or for the
// first launch of that build) and records the event it returns as the build's last launch.
// Launches in another OpenCL context than the previous one of the same build first wait for
// that one on the host, since an event wait list cannot cross contexts.
void enqueue_in_order(const std::string& build_key, const cl::Context& context,
                      const std::function<cl::Event(const std::vector<cl::Event>&)>& enqueue);

}  // namespace clgemm::detail
