// Internal: how the C API turns what the C++ layer throws into a clgemm_status and keeps the
// thread's last error message. guarded() runs a body and catches everything, so no exception
// crosses the C boundary.
#pragma once

#include <string>

#include "clgemm/clgemm.h"

namespace clgemm::detail {

// Which entry point failed: the same C++ argument name means a null host pointer on the
// host-array path and a cl_mem that is null or not of this context on the buffer path.
enum class CallPath { Host, Buffers, Other };

// Stores `message` as this thread's last error and returns `status`. Never throws.
clgemm_status record_failure(clgemm_status status, const std::string& message) noexcept;

// Call only inside a catch block: maps the exception being handled (clgemm::Error by code and
// argument, std::bad_alloc, anything else) to a status and records its message.
clgemm_status record_current_exception(CallPath path) noexcept;

// Runs `body` (which returns a status of its own, CLGEMM_SUCCESS when all went well).
template <typename Body>
clgemm_status guarded(CallPath path, Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return record_current_exception(path);
  }
}

}  // namespace clgemm::detail
