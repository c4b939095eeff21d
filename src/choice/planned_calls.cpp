// A Context's plans by call (planned_calls.hpp).
#include "choice/planned_calls.hpp"

#include "choice/call_planning.hpp"

namespace clgemm::detail {

std::shared_ptr<const PlannedCall> PlannedCalls::plan(const RunSettings& settings,
                                                      const GemmProblem& problem,
                                                      const KernelCall& call, DeviceRuntime& device,
                                                      ResolvedOptions& options,
                                                      AutoResources& choices) {
  // Only a GEMM's plan is kept: the reason of the other kinds names alpha, K and the epilogue,
  // which the key leaves out, and they cost no kernel choice worth keeping.
  const bool gemm = problem.reads_operands();
  CacheKey key;
  if (gemm) {
    key.text(settings.kernel).number(int(settings.precision));
    key.number(std::int64_t(settings.overrides.size()));
    for (const auto& [name, value] : settings.overrides) key.text(name).number(value);
    write_call_key(key, call);
  }
  std::string bytes = key.take();
  if (gemm)
    if (auto known = plans_.find(bytes)) return std::move(*known);
  auto planned = std::make_shared<PlannedCall>();
  planned->plan = plan_call(settings, problem, call, device, options, choices);
  if (!gemm || planned->plan.kind != CallKind::Gemm) return planned;
  planned->id = next_id_.fetch_add(1, std::memory_order_relaxed);
  plans_.insert(std::move(bytes), planned);
  return planned;
}

}  // namespace clgemm::detail
