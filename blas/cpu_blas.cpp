// Finding and calling the CPU BLAS (see cpu_blas.hpp).
#include "cpu_blas.hpp"

#include <dlfcn.h>

#include <mutex>

#include "argument_check.hpp"
#include "notices.hpp"
#include "own_object.hpp"
#include "settings.hpp"

namespace clgemm::blas {

namespace {

thread_local bool inside = false;

void* opened_handle = nullptr;  // the library we opened ourselves, if any

// The sgemm_ and cblas_sgemm of `handle` (RTLD_NEXT or a dlopen handle), leaving out ours.
CpuBlas symbols_of(void* handle, const std::string& found_by) {
  CpuBlas blas;
  void* fortran = dlsym(handle, "sgemm_");
  void* cblas = dlsym(handle, "cblas_sgemm");
  if (fortran && !is_in_this_library(fortran))
    blas.fortran = reinterpret_cast<FortranSgemm>(fortran);
  if (cblas && !is_in_this_library(cblas)) blas.cblas = reinterpret_cast<CblasSgemm>(cblas);
  if (!blas.found()) return blas;
  Dl_info info{};
  const void* address = blas.fortran ? reinterpret_cast<const void*>(blas.fortran)
                                     : reinterpret_cast<const void*>(blas.cblas);
  blas.library = dladdr(address, &info) && info.dli_fname ? info.dli_fname : "?";
  blas.found_by = found_by;
  return blas;
}

CpuBlas open_library(const std::string& path, const std::string& found_by, bool complain) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    if (complain) {
      const char* why = dlerror();
      say_once("cpu library " + path, found_by + "=\"" + path + "\" cannot be opened (" +
                                          (why ? why : "?") + "); looking for the next sgemm_");
    }
    return {};
  }
  CpuBlas blas = symbols_of(handle, found_by);
  if (!blas.found()) {
    if (complain)
      say_once("cpu library " + path, found_by + "=\"" + path +
                                          "\" has no sgemm_ or cblas_sgemm (other than ours); "
                                          "looking for the next sgemm_");
    dlclose(handle);
    return {};
  }
  opened_handle = handle;
  return blas;
}

CpuBlas find_cpu_blas() {
  if (const std::string& path = settings().cpu_library; !path.empty())
    if (CpuBlas blas = open_library(path, "CLGEMM_BLAS_CPU_LIBRARY", true); blas.found())
      return blas;
  if (CpuBlas blas = symbols_of(RTLD_NEXT, "symbol chain"); blas.found()) return blas;
  for (const char* name : {"libblas.so.3", "libopenblas.so.0"})
    if (CpuBlas blas = open_library(name, name, false); blas.found()) return blas;
  return {};
}

struct InsideGuard {
  const bool was_inside = inside;
  InsideGuard() { inside = true; }
  ~InsideGuard() { inside = was_inside; }
};

}  // namespace

const CpuBlas& cpu_blas() {
  static const CpuBlas* const found = new CpuBlas(find_cpu_blas());  // kept until exit
  return *found;
}

void* cpu_blas_symbol(const char* name) {
  cpu_blas();
  return opened_handle ? dlsym(opened_handle, name) : nullptr;
}

bool inside_cpu_blas() {
  return inside;
}

void run_cpu_blas(const CpuBlas& blas, const BlasCall& call) {
  const InsideGuard guard;
  if (blas.fortran) {
    blas.fortran(&call.trans_a, &call.trans_b, &call.m, &call.n, &call.k, &call.alpha, call.a,
                 &call.lda, call.b, &call.ldb, &call.beta, call.c, &call.ldc, 1, 1);
    return;
  }
  blas.cblas(kCblasColMajor, call.trans_a == 'N' ? kCblasNoTrans : kCblasTrans,
             call.trans_b == 'N' ? kCblasNoTrans : kCblasTrans, call.m, call.n, call.k, call.alpha,
             call.a, call.lda, call.b, call.ldb, call.beta, call.c, call.ldc);
}

void run_builtin_loop(const BlasCall& call) {
  const bool ta = call.trans_a != 'N', tb = call.trans_b != 'N';
  for (int j = 0; j < call.n; ++j) {
    for (int i = 0; i < call.m; ++i) {
      double sum = 0;
      for (int l = 0; l < call.k; ++l) {
        const float a =
            ta ? call.a[std::size_t(i) * call.lda + l] : call.a[std::size_t(l) * call.lda + i];
        const float b =
            tb ? call.b[std::size_t(l) * call.ldb + j] : call.b[std::size_t(j) * call.ldb + l];
        sum += double(a) * double(b);
      }
      float& c = call.c[std::size_t(j) * call.ldc + i];
      c = call.beta == 0.0f ? float(call.alpha * sum)
                            : float(call.alpha * sum + double(call.beta) * c);
    }
  }
}

}  // namespace clgemm::blas
