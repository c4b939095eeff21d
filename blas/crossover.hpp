// The crossover figures of this process: read from the per-user cache when they were measured
// before for this machine, device, CPU library and precision, else measured now (once, by the
// first call that needs them; concurrent callers wait) and kept there for the next process.
#pragma once

#include <string>

#include "calibration.hpp"
#include "clgemm/gemm.hpp"
#include "cpu_blas.hpp"

namespace clgemm::blas {

// nullptr when they cannot be had (the device failed while measuring: `why_not` says how);
// that failure is remembered.
const Calibration* crossover_figures(Context& context, const CpuBlas& cpu, Precision precision,
                                     std::string& why_not);

}  // namespace clgemm::blas
