// Which loaded object an address lies in, for the symbol lookups: this library (so that the
// CPU BLAS behind us and the error handlers are never our own entry points), or the program's
// executable (its own cblas_xerbla).
#pragma once

namespace clgemm::blas {

bool is_in_this_library(const void* address);
bool is_in_main_program(const void* address);

}  // namespace clgemm::blas
