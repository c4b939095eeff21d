// Reporting a bad argument the way BLAS does: through the program's error handler, found at
// the time of the error.
#pragma once

namespace clgemm::blas {

// Calls xerbla_("SGEMM ", &position): the program's own xerbla_ when it defines one, else the
// CPU BLAS's, else a built-in one that prints the reference message
// " ** On entry to SGEMM  parameter number  3 had an illegal value" to stderr and returns.
void report_fortran_error(int position);

// Calls cblas_xerbla(position, "cblas_sgemm", ""): the program's own (defined in its
// executable; a BLAS library's is reference CBLAS's, which ends the process), else a built-in one
// that prints "Parameter 4 to routine cblas_sgemm was incorrect" to stderr and returns.
void report_cblas_error(int position);

}  // namespace clgemm::blas
