// The host-memory engine's sets and their pool (engine_sets.hpp).
#include "host/engine_sets.hpp"

#include <algorithm>

#include "host/engine_counters.hpp"
#include "support/immortal.hpp"

namespace clgemm::detail {
namespace {

bool holds(const SlotRing& have, const SlotRing& want) {
  return want.count == 0 || (have.count >= want.count && have.bytes >= want.bytes);
}

SlotRing larger(const SlotRing& x, const SlotRing& y) {
  return {std::max(x.count, y.count), std::max(x.bytes, y.bytes)};
}

void unmap_all(cl::CommandQueue& queue, std::vector<StagingChunk>& chunks) {
  for (StagingChunk& chunk : chunks)
    if (chunk.mapped) queue.enqueueUnmapMemObject(chunk.buffer, chunk.mapped);
  queue.finish();
  chunks.clear();
}

}  // namespace

EngineCounters& engine_counters() {
  static auto& counters = immortal<EngineCounters>();
  return counters;
}

void EngineSet::forget_blocks() {
  for (auto* ring : {&a, &b, &c, &bias, &table})
    for (DeviceSlot& slot : *ring) {
      slot.key = BlockKey();
      slot.ready = cl::Event();
      slot.users.clear();
      slot.last_use = 0;
    }
  for (auto* chunks : {&up, &down})
    for (StagingChunk& chunk : *chunks) chunk.busy = cl::Event();
}

EnginePool::~EnginePool() {
  engine_counters().device_bytes_held -= held_;
  for (auto& set : idle_) {
    try {
      unmap_all(set->uploads, set->up);
      unmap_all(set->uploads, set->down);
    } catch (...) {  // the buffers are released all the same
    }
  }
}

std::unique_ptr<EngineSet> EnginePool::acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      // The largest idle set: the most likely to hold what the call needs.
      auto largest = std::max_element(idle_.begin(), idle_.end(), [](const auto& x, const auto& y) {
        return x->held.total() < y->held.total();
      });
      std::unique_ptr<EngineSet> set = std::move(*largest);
      idle_.erase(largest);
      return set;
    }
  }
  auto set = std::make_unique<EngineSet>();
  set->uploads = cl::CommandQueue(context_, device_);
  set->kernels = cl::CommandQueue(context_, device_);
  set->downloads = cl::CommandQueue(context_, device_);
  return set;
}

void EnginePool::release(std::unique_ptr<EngineSet> set) {
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(set));
  returned_.notify_all();
}

void EnginePool::discard(std::unique_ptr<EngineSet> set) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_device_slots(*set);
  try {
    unmap_all(set->uploads, set->up);
    unmap_all(set->uploads, set->down);
  } catch (...) {  // a failed queue: the buffers are released all the same
  }
  returned_.notify_all();
}

void EnginePool::free_device_slots(EngineSet& set) {
  held_ -= set.held.total();
  engine_counters().device_bytes_held -= set.held.total();
  set.a.clear(), set.b.clear(), set.c.clear(), set.bias.clear(), set.table.clear();
  set.held = DeviceLayout();
}

void EnginePool::fit(EngineSet& set, const DeviceLayout& want, std::size_t chunk_bytes,
                     std::size_t staging_chunks, std::size_t limit) {
  const DeviceLayout& have = set.held;
  if (!(holds(have.a, want.a) && holds(have.b, want.b) && holds(have.c, want.c) &&
        holds(have.bias, want.bias) && holds(have.table, want.table))) {
    // Grown to hold both what it had and what this call needs, where the limit allows.
    DeviceLayout grown;
    grown.a = larger(have.a, want.a), grown.b = larger(have.b, want.b);
    grown.c = larger(have.c, want.c), grown.bias = larger(have.bias, want.bias);
    grown.table = larger(have.table, want.table);
    if (grown.total() > limit) grown = want;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      free_device_slots(set);
      while (held_ + grown.total() > limit) {
        auto holding = std::find_if(idle_.begin(), idle_.end(),
                                    [](const auto& s) { return s->held.total() > 0; });
        if (holding != idle_.end()) {
          free_device_slots(**holding);
          continue;
        }
        returned_.wait(lock);
      }
      held_ += grown.total();
      engine_counters().device_bytes_held += grown.total();
      set.held = grown;
    }
    auto allocate = [&](std::vector<DeviceSlot>& ring, const SlotRing& shape) {
      ring.resize(shape.count);
      for (DeviceSlot& slot : ring) {
        slot.buffer =
            cl::Buffer(context_, CL_MEM_READ_WRITE, std::max<std::size_t>(shape.bytes, 64));
        std::lock_guard<std::mutex> lock(mutex_);
        ++created_;
        ++engine_counters().buffers_created;
      }
    };
    allocate(set.a, grown.a), allocate(set.b, grown.b), allocate(set.c, grown.c);
    allocate(set.bias, grown.bias), allocate(set.table, grown.table);
  }
  if (set.chunk_bytes < chunk_bytes || set.up.size() < staging_chunks) {
    unmap_all(set.uploads, set.up);
    unmap_all(set.uploads, set.down);
    set.chunk_bytes = std::max(set.chunk_bytes, chunk_bytes);
    const std::size_t count = std::max(set.up.size(), staging_chunks);
    for (auto* chunks : {&set.up, &set.down}) {
      chunks->resize(count);
      for (StagingChunk& chunk : *chunks) {
        chunk.buffer =
            cl::Buffer(context_, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, set.chunk_bytes);
        chunk.mapped = static_cast<float*>(set.uploads.enqueueMapBuffer(
            chunk.buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, set.chunk_bytes));
        std::lock_guard<std::mutex> lock(mutex_);
        ++created_;
        ++engine_counters().buffers_created;
      }
    }
  }
}

std::size_t EnginePool::buffers_created() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return created_;
}

std::size_t EnginePool::device_bytes_held() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return held_;
}

}  // namespace clgemm::detail
