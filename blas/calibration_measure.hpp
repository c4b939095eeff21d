// Measuring the crossover model's figures (see calibration.hpp): the link bandwidth by timing
// a transfer, the device's fixed cost by timing a tiny call, its rate by timing products of a
// few sizes after a warm-up call each (which builds their kernels), the CPU BLAS's rate by
// timing it at the same sizes. Sizes double from 64 to 4096 until a call takes over 0.15 s or
// the side has spent its budget (on the device 0.8 s of timed calls, or 1.2 s since the start,
// warm-ups included; on the CPU 0.4 s of timed calls, or 2 s since the start).
#pragma once

#include "calibration.hpp"
#include "clgemm/gemm.hpp"
#include "cpu_blas.hpp"

namespace clgemm::blas {

// Throws clgemm::Error (or std::exception) where the device fails.
Calibration measure_calibration(Context& context, const CpuBlas& cpu, Precision precision);

}  // namespace clgemm::blas
