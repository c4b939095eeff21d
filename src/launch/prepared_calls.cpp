// The launches a call needs, prepared once per kind of call (prepared_calls.hpp).
#include "launch/prepared_calls.hpp"

#include <cstring>

#include "launch/prepare_call.hpp"

namespace clgemm::detail {
namespace {

// The key's bytes: every field prepare_call() reads, in a fixed order.
class KeyWriter {
 public:
  void number(std::int64_t value) { key_.number(value); }
  void text(const std::string& value) { key_.text(value); }
  void operand(const Operand& x) {
    for (std::int64_t v : {std::int64_t(x.offset), x.ld, std::int64_t(x.transposed),
                           std::int64_t(x.base_alignment), x.stride, std::int64_t(x.table_offsets)})
      number(v);
  }
  void region(const std::optional<Region>& r) {
    number(r.has_value());
    if (r)
      for (std::int64_t v : {r->row0, r->rows, r->col0, r->cols}) number(v);
  }
  void plan(const CallPlan& p) {
    number(int(p.kind));
    text(p.run.kernel);
    number(int(p.run.precision));
    number(std::int64_t(p.run.overrides.size()));
    for (const auto& [name, value] : p.run.overrides) text(name), number(value);
    text(p.reason);
    region(p.whole_tiles);
    number(std::int64_t(p.edges.size()));
    for (const auto& edge : p.edges) region(edge.region), plan(edge.plan);
  }
  void call(const KernelCall& c) {
    for (std::int64_t v : {std::int64_t(c.column_major), c.m, c.n, c.k, c.batch,
                           std::int64_t(c.table), std::int64_t(c.products_offset)})
      number(v);
    operand(c.a), operand(c.b), operand(c.c);
    const Epilogue& e = c.epilogue;
    for (std::int64_t v : {std::int64_t(e.bias), std::int64_t(e.activation),
                           std::int64_t(e.bias_offset), e.bias_stride})
      number(v);
    // The clamp's bounds are the kernel's arguments, but the record describes them.
    for (float bound : {e.clamp_low, e.clamp_high}) {
      std::uint32_t bits;
      std::memcpy(&bits, &bound, sizeof bits);
      number(bits);
    }
  }
  std::string take() { return key_.take(); }

 private:
  CacheKey key_;
};

}  // namespace

std::shared_ptr<const PreparedEntry> PreparedCalls::get(const CallPlan& plan,
                                                        const KernelCall& call,
                                                        DeviceRuntime& device,
                                                        ResolvedOptions& options) {
  KeyWriter key;
  key.plan(plan);
  key.call(call);
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
