// Internal: the one place where exceptions that are not clgemm::Error become one. Every public
// function of the library ends in a function-try-block whose handler calls
// rethrow_as_clgemm_error(), so callers only ever catch clgemm::Error, as errors.hpp promises:
// an OpenCL C++ binding error becomes an OpenCLError, std::bad_alloc an OutOfHostMemory error,
// anything else an Internal error carrying its text.
#pragma once

namespace clgemm::detail {

// Call only inside a catch block.
[[noreturn]] void rethrow_as_clgemm_error();

}  // namespace clgemm::detail
