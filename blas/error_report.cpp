// Reporting bad arguments through xerbla_ and cblas_xerbla (see error_report.hpp).
#include "error_report.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <cstdio>

#include "cpu_blas.hpp"
#include "own_object.hpp"

// Weak references: they make the linker export a program's own xerbla_ and cblas_xerbla from
// its executable (an executable exports only the symbols that the shared libraries it links
// refer to), so that the lookups below can find them; they are null where nothing defines them.
extern "C" void xerbla_(const char* name, const int* position, std::size_t name_length)
    __attribute__((weak));
extern "C" void cblas_xerbla(int position, const char* routine, const char* form, ...)
    __attribute__((weak));

namespace clgemm::blas {

namespace {

using FortranXerbla = void (*)(const char*, const int*, std::size_t);
using CblasXerbla = void (*)(int, const char*, const char*, ...);

// The handler named `name`: the first definition in the program's global scope that is not in
// this library, else the CPU BLAS's (which may have been opened privately), else `linked`.
void* find_handler(const char* name, void* linked) {
  void* found = dlsym(RTLD_DEFAULT, name);
  if (found && !is_in_this_library(found)) return found;
  found = cpu_blas_symbol(name);
  if (found && !is_in_this_library(found)) return found;
  return linked && !is_in_this_library(linked) ? linked : nullptr;
}

}  // namespace

void report_fortran_error(int position) {
  static const char kName[] = "SGEMM ";  // as the reference SGEMM passes it: six characters
  if (auto* handler = reinterpret_cast<FortranXerbla>(
          find_handler("xerbla_", reinterpret_cast<void*>(&xerbla_)))) {
    handler(kName, &position, sizeof kName - 1);
    return;
  }
  std::fprintf(stderr, " ** On entry to SGEMM  parameter number %2d had an illegal value\n",
               position);
}

void report_cblas_error(int position) {
  // Only the program's own: a BLAS library's cblas_xerbla is reference CBLAS's, which ends the
  // process, where the CPU BLAS's cblas_sgemm we stand in for may only print and return
  // (OpenBLAS reports through xerbla_).
  void* handler = dlsym(RTLD_DEFAULT, "cblas_xerbla");
  if (!handler || !is_in_main_program(handler)) handler = reinterpret_cast<void*>(&cblas_xerbla);
  if (handler && is_in_main_program(handler)) {
    reinterpret_cast<CblasXerbla>(handler)(position, "cblas_sgemm", "");
    return;
  }
  std::fprintf(stderr, "Parameter %d to routine cblas_sgemm was incorrect\n", position);
}

}  // namespace clgemm::blas
