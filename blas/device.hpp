// The OpenCL device behind libclgemm_blas: one clgemm::Context for the whole process, opened
// at the first call that goes to the device (never at load time), shared by all threads (its
// host-array sgemm is safe to call concurrently) and never closed (drivers may already be gone
// when a process exits). A process forked from the one that opened it never uses it.
#pragma once

#include <string>

#include "blas_call.hpp"
#include "clgemm/gemm.hpp"

namespace clgemm::blas {

// The Context, opened on the first call with the device the settings ask for; nullptr when
// no device works, with the reason in `why_not` (the failure is remembered: later calls get
// the same answer without trying again).
Context* device_context(std::string& why_not);

// Whether this process is a child forked after its parent opened the device: the Context
// belongs to the parent and must not be touched.
bool is_forked_child();

// Runs `call` on the device through the host-array sgemm. Throws what that throws; C is
// written only when the call succeeds.
void run_on_device(Context& context, const BlasCall& call, Precision precision);

}  // namespace clgemm::blas
