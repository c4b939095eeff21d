// The peers clgemm-bench compares against: CLBlast's SGEMM on the same buffers and queue, and
// on a CPU device the host CBLAS (OpenBLAS) as a reference line.
#include "bench_peers.hpp"

#include <stdexcept>

#ifdef CLGEMM_HAVE_CLBLAST
#include <clblast.h>
#endif
#ifdef CLGEMM_HAVE_CBLAS
#include <cblas.h>
#endif

namespace clgemm::bench {

std::vector<Peer> available_peers(bool device_is_cpu) {
  std::vector<Peer> peers;
#ifdef CLGEMM_HAVE_CLBLAST
  peers.push_back(
      {"clblast",
       [](Operands& o, std::vector<float>&) {
         const auto& p = o.problem;
         auto trans = [](Transpose t) {
           return t == Transpose::Trans ? clblast::Transpose::kYes : clblast::Transpose::kNo;
         };
         const auto status = clblast::Gemm<float>(
             p.layout == Layout::RowMajor ? clblast::Layout::kRowMajor : clblast::Layout::kColMajor,
             trans(p.trans_a), trans(p.trans_b), p.m, p.n, p.k, p.alpha, o.a_mem, p.a_offset, p.lda,
             o.b_mem, p.b_offset, p.ldb, p.beta, o.c_mem, p.c_offset, p.ldc, &o.queue);
         if (status != clblast::StatusCode::kSuccess)
           throw std::runtime_error("CLBlast Gemm failed with status " +
                                    std::to_string(int(status)));
         clFinish(o.queue);
       },
       false});
#endif
#ifdef CLGEMM_HAVE_CBLAS
  if (device_is_cpu)
    peers.push_back({"openblas",
                     [](Operands& o, std::vector<float>& host_c) {
                       const auto& p = o.problem;
                       auto trans = [](Transpose t) {
                         return t == Transpose::Trans ? CblasTrans : CblasNoTrans;
                       };
                       cblas_sgemm(p.layout == Layout::RowMajor ? CblasRowMajor : CblasColMajor,
                                   trans(p.trans_a), trans(p.trans_b), p.m, p.n, p.k, p.alpha,
                                   o.a.data() + p.a_offset, p.lda, o.b.data() + p.b_offset, p.ldb,
                                   p.beta, host_c.data() + p.c_offset, p.ldc);
                     },
                     true});
#else
  (void)device_is_cpu;
#endif
  return peers;
}

}  // namespace clgemm::bench
