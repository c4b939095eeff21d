// clgemm-bench's clgemm-unfused peer: what a fused epilogue saves. It computes a shape with an
// epilogue as clgemm's plain product (the tuned choice, no epilogue) followed by a separate
// OpenCL pass that reads C once, adds the bias, applies the activation and writes C back
// (tools/bench/bench_bias_activation.cl), both enqueued on the operands' queue and timed together.
#pragma once

#include "bench/bench_peers.hpp"

namespace clgemm::bench {

// The peer; it builds its pass for the operands' context on its first call.
Peer unfused_peer();

}  // namespace clgemm::bench
