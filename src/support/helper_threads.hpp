// Internal: runs a task on several process-wide helper threads (started on first use, kept).
// The host-memory engine splits its large pageable-to-pinned copies over them (one core's copy
// reaches a fraction of what the link carries), and verify_gemm its sums of rows and columns.
#pragma once

#include <functional>

namespace clgemm::detail {

// Runs task(0) .. task(tasks - 1), on up to `tasks` threads, and returns when all are done.
// Exceptions must not leave `task`.
void run_parallel(unsigned tasks, const std::function<void(unsigned)>& task);

}  // namespace clgemm::detail
