// The peers clgemm-bench compares against: CLBlast on the same buffers and queue (Gemm for one
// product, GemmStridedBatched and GemmBatched for a batch), on a CPU device the host CBLAS
// (OpenBLAS) as a reference line, and clgemm-unfused for the epilogues (bench_unfused).
#include "bench/bench_peers.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "bench/bench_unfused.hpp"
#include "clgemm/errors.hpp"

#ifdef CLGEMM_HAVE_CLBLAST
#include <clblast.h>
#endif
#ifdef CLGEMM_HAVE_CBLAS
#include <cblas.h>
#endif

namespace clgemm::bench {

namespace {

[[maybe_unused]] bool plain_single(const GemmProblem& p) {
  return p.batch == 1 && p.epilogue.is_identity();
}
[[maybe_unused]] bool plain_batch(const GemmProblem& p) {
  return p.batch > 1 && p.epilogue.is_identity();
}

#ifdef CLGEMM_HAVE_CLBLAST
clblast::Layout clblast_layout(const GemmProblem& p) {
  return p.layout == Layout::RowMajor ? clblast::Layout::kRowMajor : clblast::Layout::kColMajor;
}
clblast::Transpose clblast_transpose(Transpose t) {
  return is_transposed(t) ? clblast::Transpose::kYes : clblast::Transpose::kNo;
}
void check_clblast(clblast::StatusCode status, const std::string& routine) {
  if (status != clblast::StatusCode::kSuccess)
    throw std::runtime_error("CLBlast " + routine + " failed with status " +
                             std::to_string(int(status)));
}

// GemmBatched's arrays (each product's alpha, beta and offsets) for the strided placements of
// a problem, made once per problem rather than in every timed call.
struct BatchArrays {
  std::vector<float> alphas, betas;
  std::vector<std::size_t> a_offsets, b_offsets, c_offsets;
  void make_for(const GemmProblem& p) {
    if (alphas.size() == std::size_t(p.batch) && !a_offsets.empty() &&
        a_offsets.back() == p.a_offset + std::size_t(p.batch - 1) * std::size_t(p.stride_a) &&
        b_offsets.back() == p.b_offset + std::size_t(p.batch - 1) * std::size_t(p.stride_b) &&
        c_offsets.back() == p.c_offset + std::size_t(p.batch - 1) * std::size_t(p.stride_c) &&
        alphas.back() == p.alpha && betas.back() == p.beta)
      return;
    const std::size_t n = std::size_t(p.batch);
    alphas.assign(n, p.alpha);
    betas.assign(n, p.beta);
    a_offsets.resize(n), b_offsets.resize(n), c_offsets.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      a_offsets[i] = p.a_offset + i * std::size_t(p.stride_a);
      b_offsets[i] = p.b_offset + i * std::size_t(p.stride_b);
      c_offsets[i] = p.c_offset + i * std::size_t(p.stride_c);
    }
  }
};
#endif

// Every peer this build has (the host CBLAS whatever the device).
std::vector<Peer> compiled_peers() {
  std::vector<Peer> peers;
#ifdef CLGEMM_HAVE_CLBLAST
  peers.push_back({"clblast", "clblast",
                   [](Operands& o, std::vector<float>&) {
                     const auto& p = o.problem;
                     check_clblast(
                         clblast::Gemm<float>(clblast_layout(p), clblast_transpose(p.trans_a),
                                              clblast_transpose(p.trans_b), p.m, p.n, p.k, p.alpha,
                                              o.a_mem, p.a_offset, p.lda, o.b_mem, p.b_offset,
                                              p.ldb, p.beta, o.c_mem, p.c_offset, p.ldc, &o.queue),
                         "Gemm");
                   },
                   false, plain_single});
  peers.push_back({"clblast-strided", "clblast",
                   [](Operands& o, std::vector<float>&) {
                     const auto& p = o.problem;
                     check_clblast(
                         clblast::GemmStridedBatched<float>(
                             clblast_layout(p), clblast_transpose(p.trans_a),
                             clblast_transpose(p.trans_b), p.m, p.n, p.k, p.alpha, o.a_mem,
                             p.a_offset, p.lda, p.stride_a, o.b_mem, p.b_offset, p.ldb, p.stride_b,
                             p.beta, o.c_mem, p.c_offset, p.ldc, p.stride_c, p.batch, &o.queue),
                         "GemmStridedBatched");
                   },
                   false, plain_batch});
  auto arrays = std::make_shared<BatchArrays>();
  peers.push_back({"clblast-batched", "clblast",
                   [arrays](Operands& o, std::vector<float>&) {
                     const auto& p = o.problem;
                     arrays->make_for(p);
                     check_clblast(
                         clblast::GemmBatched<float>(
                             clblast_layout(p), clblast_transpose(p.trans_a),
                             clblast_transpose(p.trans_b), p.m, p.n, p.k, arrays->alphas.data(),
                             o.a_mem, arrays->a_offsets.data(), p.lda, o.b_mem,
                             arrays->b_offsets.data(), p.ldb, arrays->betas.data(), o.c_mem,
                             arrays->c_offsets.data(), p.ldc, p.batch, &o.queue),
                         "GemmBatched");
                   },
                   false, plain_batch});
#endif
#ifdef CLGEMM_HAVE_CBLAS
  peers.push_back(
      {"openblas", "openblas",
       [](Operands& o, std::vector<float>& host_c) {
         const auto& p = o.problem;
         auto trans = [](Transpose t) { return is_transposed(t) ? CblasTrans : CblasNoTrans; };
         cblas_sgemm(p.layout == Layout::RowMajor ? CblasRowMajor : CblasColMajor, trans(p.trans_a),
                     trans(p.trans_b), p.m, p.n, p.k, p.alpha, o.a.data() + p.a_offset, p.lda,
                     o.b.data() + p.b_offset, p.ldb, p.beta, host_c.data() + p.c_offset, p.ldc);
       },
       true, plain_single});
#endif
  peers.push_back(unfused_peer());
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
  auto has = [&](const std::string& family) {
    return std::any_of(compiled.begin(), compiled.end(),
                       [&](const Peer& p) { return p.family == family; });
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
    if (name != "clblast" && name != "openblas" && name != "clgemm-unfused")
      refuse("unknown peer '" + name +
             "'; give all, none, or names from clblast, openblas, clgemm-unfused");
  }
  std::vector<Peer> peers;
  for (auto& peer : compiled) {
    const bool applies = !peer.on_host || device_is_cpu;
    const bool named = std::find(names.begin(), names.end(), peer.family) != names.end();
    if ((all && applies) || named) peers.push_back(std::move(peer));
  }
  return peers;
}

}  // namespace clgemm::bench
