// Where one checked SGEMM call runs, and running it there: nowhere (a quick return), the host
// (C = beta * C only), the device or the CPU BLAS, chosen by the settings and the crossover
// model, with the device's failures caught and the call completed on the CPU. Prints the trace
// line when the trace is on.
#pragma once

#include "blas_call.hpp"

namespace clgemm::blas {

// Never throws: whatever happens, the call completes (on the CPU if need be).
void execute(const BlasCall& call) noexcept;

}  // namespace clgemm::blas
