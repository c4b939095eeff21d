// The peers clgemm-bench compares against: CLBlast's SGEMM on the same buffers and queue, and
// on a CPU device the host CBLAS (OpenBLAS) as a reference line.
#include "bench_peers.hpp"

#include <algorithm>
#include <stdexcept>

#include "clgemm/errors.hpp"

#ifdef CLGEMM_HAVE_CLBLAST
#include <clblast.h>
#endif
#ifdef CLGEMM_HAVE_CBLAS
#include <cblas.h>
#endif

namespace clgemm::bench {

namespace {

// Every peer this build has (the host CBLAS whatever the device).
std::vector<Peer> compiled_peers() {
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
       },
       false});
#endif
#ifdef CLGEMM_HAVE_CBLAS
  peers.push_back(
      {"openblas",
       [](Operands& o, std::vector<float>& host_c) {
         const auto& p = o.problem;
         auto trans = [](Transpose t) { return t == Transpose::Trans ? CblasTrans : CblasNoTrans; };
         cblas_sgemm(p.layout == Layout::RowMajor ? CblasRowMajor : CblasColMajor, trans(p.trans_a),
                     trans(p.trans_b), p.m, p.n, p.k, p.alpha, o.a.data() + p.a_offset, p.lda,
                     o.b.data() + p.b_offset, p.ldb, p.beta, host_c.data() + p.c_offset, p.ldc);
       },
       true});
#endif
  return peers;
}

[[noreturn]] void refuse(const std::string& why) {
  throw Error(ErrorCode::InvalidArgument, "--peers: " + why);
}

}  // namespace

std::vector<Peer> select_peers(const std::vector<std::string>& names, bool device_is_cpu) {
  const bool all = std::find(names.begin(), names.end(), "all") != names.end();
  const bool none = std::find(names.begin(), names.end(), "none") != names.end();
  if ((all || none) && names.size() > 1)
    refuse("'all' and 'none' stand alone, not beside other names");
  std::vector<Peer> compiled = compiled_peers();
  auto has = [&](const std::string& name) {
    return std::any_of(compiled.begin(), compiled.end(),
                       [&](const Peer& p) { return p.name == name; });
  };
  for (const auto& name : names) {
    if (name == "all" || name == "none") continue;
    if (name == "clblast" && !has(name))
      refuse(
          "peer 'clblast' is not available: clgemm-bench was built without CLBlast; "
          "install libclblast-dev (tools/bootstrap.sh does) and configure again");
    if (name == "openblas" && !has(name))
      refuse(
          "peer 'openblas' is not available: clgemm-bench was built without a CBLAS; "
          "install libopenblas-dev (tools/bootstrap.sh does) and configure again");
    if (name == "openblas" && !device_is_cpu)
      refuse(
          "peer 'openblas' runs on the host, so it is compared only when the device is "
          "a CPU");
    if (name != "clblast" && name != "openblas")
      refuse("unknown peer '" + name + "'; give all, none, or names from clblast, openblas");
  }
  std::vector<Peer> peers;
  for (auto& peer : compiled) {
    const bool applies = !peer.on_host || device_is_cpu;
    const bool named = std::find(names.begin(), names.end(), peer.name) != names.end();
    if ((all && applies) || named) peers.push_back(std::move(peer));
  }
  return peers;
}

}  // namespace clgemm::bench
