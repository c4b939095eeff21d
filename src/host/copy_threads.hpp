// Internal: copies between the caller's arrays and the pinned staging on several host threads.
// One pageable-to-pinned copy on one core reaches a fraction of what the link carries, so
// large copies are split over process-wide helper threads (started on first use, kept), the
// calling thread taking a share too.
#pragma once

#include <functional>

namespace clgemm::detail {

// Runs task(0) .. task(tasks - 1), on up to `tasks` threads, and returns when all are done.
// Exceptions must not leave `task`.
void run_parallel(unsigned tasks, const std::function<void(unsigned)>& task);

}  // namespace clgemm::detail
