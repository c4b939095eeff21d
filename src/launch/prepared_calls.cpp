// The launches a call needs, prepared once per kind of call (prepared_calls.hpp).
#include "launch/prepared_calls.hpp"

#include "launch/prepare_call.hpp"

namespace clgemm::detail {
namespace {

// The plan's fields that prepare_call() reads, in a fixed order.
void write_plan_key(CacheKey& key, const CallPlan& plan) {
  key.number(int(plan.kind));
  key.text(plan.run.kernel);
  key.number(int(plan.run.precision));
  key.number(std::int64_t(plan.run.overrides.size()));
  for (const auto& [name, value] : plan.run.overrides) key.text(name).number(value);
  key.text(plan.reason);
  const auto region = [&](const std::optional<Region>& r) {
    key.number(r.has_value());
    if (r)
      for (std::int64_t v : {r->row0, r->rows, r->col0, r->cols}) key.number(v);
  };
  region(plan.whole_tiles);
  key.number(std::int64_t(plan.edges.size()));
  for (const auto& edge : plan.edges) region(edge.region), write_plan_key(key, edge.plan);
}

}  // namespace

std::shared_ptr<const PreparedEntry> PreparedCalls::get(const CallPlan& plan,
                                                        const KernelCall& call,
                                                        DeviceRuntime& device,
                                                        ResolvedOptions& options,
                                                        std::uint64_t plan_id) {
  CacheKey key;
  if (plan_id != 0)
    key.number(-1).number(std::int64_t(plan_id));  // a plan kind is never negative
  else
    write_plan_key(key, plan);
  write_call_key(key, call);
  std::string bytes = key.take();
  if (auto known = entries_.find(bytes)) return std::move(*known);
  auto entry = std::make_shared<PreparedEntry>();
  entry->call = prepare_call(plan, call, device, options);
  entry->record = record_of(entry->call);
  // A later call finds every program in memory.
  auto later = std::make_shared<PreparedEntry>(*entry);
  later->record.origin = ProgramOrigin::Memory;
  later->record.build_seconds = 0;
  entries_.insert(std::move(bytes), std::move(later));
  return entry;
}

}  // namespace clgemm::detail
