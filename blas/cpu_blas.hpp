// The CPU BLAS behind libclgemm_blas: where a call goes when the device would be slower or
// cannot run it. Found once, at the first call that needs it: the library the setting names
// (dlopen), else the next sgemm_ / cblas_sgemm in the program's symbol chain (dlsym RTLD_NEXT:
// the BLAS linked after us, or the program's BLAS when we are LD_PRELOADed), else libblas.so.3,
// else libopenblas.so.0. Our own entry points are never taken for it.
#pragma once

#include <cstddef>
#include <string>

#include "blas_call.hpp"

namespace clgemm::blas {

using FortranSgemm = void (*)(const char* trans_a, const char* trans_b, const int* m, const int* n,
                              const int* k, const float* alpha, const float* a, const int* lda,
                              const float* b, const int* ldb, const float* beta, float* c,
                              const int* ldc, std::size_t trans_a_length,
                              std::size_t trans_b_length);
using CblasSgemm = void (*)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                            const float* a, int lda, const float* b, int ldb, float beta, float* c,
                            int ldc);

struct CpuBlas {
  FortranSgemm fortran = nullptr;  // preferred: both our entry points map onto it
  CblasSgemm cblas = nullptr;      // used only where the library has no sgemm_
  std::string library;             // the file it lives in, as dladdr names it
  std::string found_by;            // "CLGEMM_BLAS_CPU_LIBRARY", "symbol chain", "libblas.so.3"
  bool found() const { return fortran || cblas; }
};

// The CPU BLAS of this process (found on the first use; found() is false when there is none).
const CpuBlas& cpu_blas();

// `name` from the CPU BLAS when it was opened by us (dlopen), else nullptr: lets the error
// reporting find the xerbla_ of a library that is not in the global scope.
void* cpu_blas_symbol(const char* name);

// Runs `call` on `blas`, which must be found(). Marks the thread as inside the CPU BLAS for
// the duration, so that a CPU BLAS calling sgemm_ through the symbol chain (reference CBLAS
// does) comes back to us and is passed straight on (see inside_cpu_blas).
void run_cpu_blas(const CpuBlas& blas, const BlasCall& call);

// Whether this thread is inside run_cpu_blas.
bool inside_cpu_blas();

// The last resort, when there is no CPU BLAS and the device failed: a plain loop with double
// accumulation, correct but slow.
void run_builtin_loop(const BlasCall& call);

}  // namespace clgemm::blas
