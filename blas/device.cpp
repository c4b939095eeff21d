// The process's device (see device.hpp).
#include "device.hpp"

#include <unistd.h>

#include <atomic>

#include "made_once.hpp"
#include "settings.hpp"

namespace clgemm::blas {

namespace {

std::atomic<pid_t> owner_pid{0};  // the process that opened the Context; 0 before

}  // namespace

bool is_forked_child() {
  const pid_t owner = owner_pid.load(std::memory_order_acquire);
  return owner != 0 && owner != ::getpid();
}

Context* device_context(std::string& why_not) {
  static MadeOnce<Context> context;
  return context.get(
      [] {
        DeviceRequest request;
        request.platform = settings().platform;
        request.device = settings().device;
        Context* opened = new Context(request);
        owner_pid.store(::getpid(), std::memory_order_release);
        return opened;
      },
      why_not);
}

void run_on_device(Context& context, const BlasCall& call, Precision precision) {
  GemmProblem problem;
  problem.layout = Layout::ColumnMajor;
  problem.trans_a = call.trans_a == 'N' ? Transpose::NoTrans : Transpose::Trans;
  problem.trans_b = call.trans_b == 'N' ? Transpose::NoTrans : Transpose::Trans;
  problem.m = call.m;
  problem.n = call.n;
  problem.k = call.k;
  problem.alpha = call.alpha;
  problem.beta = call.beta;
  problem.lda = call.lda;
  problem.ldb = call.ldb;
  problem.ldc = call.ldc;
  RunSettings run;
  run.precision = precision;
  context.sgemm(problem, call.a, call.b, call.c, run);
}

}  // namespace clgemm::blas
