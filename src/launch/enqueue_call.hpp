// Internal: enqueueing a prepared call (launch/prepared_call.hpp) on a queue, its launches in
// order, the ones that use scratch memory inside the Context's workspace.
#pragma once

#include <vector>

#include "launch/prepared_call.hpp"
#include "launch/workspace.hpp"
#include "plan/kernel_call.hpp"
#include "support/opencl.hpp"

namespace clgemm::detail {

// Enqueues the prepared launches on `queue` for `call` (buffers filled in): the first waits
// for `wait`, each later one for the one before, and `event` receives the last one's event.
void enqueue_prepared(const cl::CommandQueue& queue, const PreparedCall& prepared,
                      const KernelCall& call, const std::vector<cl::Event>& wait, cl::Event* event,
                      const cl::Context& context, Workspace& workspace);

}  // namespace clgemm::detail
