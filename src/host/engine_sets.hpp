// Internal: what the host-memory engine keeps between calls. An engine set is what one call
// streams through: three in-order queues (uploads, kernels, downloads), rings of device slots
// for the blocks of A, B, C and the bias, a buffer for the product tables, and rings of pinned
// host staging chunks (CL_MEM_ALLOC_HOST_PTR buffers, mapped once). The Context's pool lends
// each host-array call a set of its own (made when none is idle) and takes it back after; sets
// grow on demand and are kept, and the device memory of all sets together stays under the
// engine's limit: a call that would exceed it frees idle sets, or waits for one to come back.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "host/tile_plan.hpp"
#include "support/opencl.hpp"

namespace clgemm::detail {

// Which block a device slot holds: the product group's first product (or -1 for one shared by
// every product), its first line and first position, within one call.
struct BlockKey {
  std::int64_t product = -2, row = 0, column = 0;
  bool operator==(const BlockKey& o) const {
    return product == o.product && row == o.row && column == o.column;
  }
};

struct DeviceSlot {
  cl::Buffer buffer;
  BlockKey key;                  // product -2: holds nothing of this call
  cl::Event ready;               // its upload (or the launch that last wrote it)
  std::vector<cl::Event> users;  // launches and downloads since: an upload waits for them
  std::size_t last_use = 0;      // for least-recently-used replacement
};

struct StagingChunk {
  cl::Buffer buffer;  // CL_MEM_ALLOC_HOST_PTR, mapped for the set's lifetime
  float* mapped = nullptr;
  cl::Event busy;  // the transfer from or into it still in flight
};

class EngineSet {
 public:
  cl::CommandQueue uploads, kernels, downloads;
  std::vector<DeviceSlot> a, b, c, bias, table;
  std::vector<StagingChunk> up, down;
  DeviceLayout held;            // the device slots it has: rings of `count` slots of `bytes`
  std::size_t chunk_bytes = 0;  // each staging chunk's size

  // Forgets what the slots held (a new call's keys mean other blocks).
  void forget_blocks();
};

class EnginePool {
 public:
  EnginePool(cl::Context context, cl::Device device)
      : context_(std::move(context)), device_(std::move(device)) {}
  ~EnginePool();

  // An idle set, or a new one (its queues made, no buffers yet).
  std::unique_ptr<EngineSet> acquire();
  // Back to the idle sets for the next call.
  void release(std::unique_ptr<EngineSet> set);
  // Gives up a set that failed (its queues may hold failed work): its memory is freed.
  void discard(std::unique_ptr<EngineSet> set);
  // Makes `set` hold at least `layout`'s device slots and staging chunks of `chunk_bytes`,
  // reusing what it has. The device slots of all sets stay under `limit` bytes: idle sets are
  // freed first, then this call waits for busy ones to come back.
  void fit(EngineSet& set, const DeviceLayout& layout, std::size_t chunk_bytes,
           std::size_t staging_chunks, std::size_t limit);

  // For tests: buffers the pool has created (device slots and staging chunks), and the device
  // bytes its sets hold.
  std::size_t buffers_created() const;
  std::size_t device_bytes_held() const;

 private:
  void free_device_slots(EngineSet& set);  // with mutex_ held
  cl::Context context_;
  cl::Device device_;
  mutable std::mutex mutex_;  // guards the members below
  std::condition_variable returned_;
  std::vector<std::unique_ptr<EngineSet>> idle_;
  std::size_t held_ = 0;     // device bytes of every set, busy or idle
  std::size_t created_ = 0;  // buffers created
};

}  // namespace clgemm::detail
