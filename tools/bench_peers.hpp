// Peers that clgemm-bench measures beside clgemm's kernels, each behind one interface: run the
// GEMM once on the shared problem and wait for it. Which peers exist depends on what CMake
// found (CLBlast, a CBLAS such as OpenBLAS).
#pragma once

#include <CL/cl.h>

#include <functional>
#include <string>
#include <vector>

#include "clgemm/gemm.hpp"

namespace clgemm::bench {

// One problem's data: device buffers for the OpenCL contenders, host arrays for the others.
struct Operands {
  GemmProblem problem;
  std::vector<float> a, b, c;  // host copies (C as it was before any run)
  cl_mem a_mem = nullptr, b_mem = nullptr, c_mem = nullptr;
  cl_command_queue queue = nullptr;
};

struct Peer {
  std::string name;
  // Computes the GEMM on the operands (C receives the result) and returns when it is done.
  std::function<void(Operands&, std::vector<float>& host_c)> run;
  bool on_host = false;  // works on host arrays (no OpenCL buffers)
};

std::vector<Peer> available_peers(bool device_is_cpu);

}  // namespace clgemm::bench
