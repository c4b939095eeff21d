// Peers that clgemm-bench measures beside clgemm's kernels, each behind one interface: enqueue
// the GEMM once on the shared problem (the caller finishes the queue). Which peers exist depends
// on what CMake found (CLBlast from libclblast-dev, a CBLAS such as OpenBLAS from
// libopenblas-dev); clgemm-unfused, clgemm's product followed by a separate bias and
// activation pass, is always there. Each peer says which shapes it computes: CLBlast's Gemm and
// the CBLAS single products without an epilogue, CLBlast's GemmStridedBatched and GemmBatched
// batches without one, clgemm-unfused the shapes with an epilogue.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "clgemm/gemm.hpp"  // <CL/cl.h> for the library's OpenCL version

namespace clgemm::bench {

// One problem's data: device buffers for the OpenCL contenders, host arrays for the others.
// `problem` is the host view the results are verified against: its bias (when it has one) is
// `bias`, which `bias_mem` holds on the device.
struct Operands {
  GemmProblem problem;
  std::vector<float> a, b, c;  // host copies (C as it was before any run)
  std::vector<float> bias;
  cl_mem a_mem = nullptr, b_mem = nullptr, c_mem = nullptr, bias_mem = nullptr;
  cl_command_queue queue = nullptr;
  Context* context = nullptr;  // the context the buffers belong to (clgemm-unfused calls it)
};

struct Peer {
  std::string name;    // the contender's name in the results
  std::string family;  // the --peers name that selects it ("clblast" selects three)
  // Enqueues the GEMM on the operands' queue (C receives the result once the queue is
  // finished); a peer on the host computes it before it returns.
  std::function<void(Operands&, std::vector<float>& host_c)> enqueue;
  bool on_host = false;  // works on host arrays (no OpenCL buffers, nothing to finish)
  std::function<bool(const GemmProblem&)> applies;  // whether it computes this problem
};

// The peers `names` asks for: "all" (the default: every peer this build has that applies to
// the device, no error for the others), "none", or names from "clblast" (Gemm, and for
// batches GemmStridedBatched and GemmBatched), "openblas" (the host's, compared only on a CPU
// device) and "clgemm-unfused". Throws Error(InvalidArgument) for an unknown name, for a peer
// this build lacks (saying which package provides it) or one that does not apply.
std::vector<Peer> select_peers(const std::vector<std::string>& names, bool device_is_cpu);

}  // namespace clgemm::bench
