// Blocks, chunks and the copies through the staging (stored_block.hpp).
#include "host/stored_block.hpp"

#include <algorithm>
#include <cstring>

#include "support/helper_threads.hpp"

namespace clgemm::detail {
namespace {

// Below this many bytes a chunk is copied by the calling thread alone.
constexpr std::size_t kParallelCopyBytes = std::size_t(256) << 10;

// Copies the chunk's runs, split into `parts` equal shares of elements; `to_staging` picks the
// direction.
void copy_chunk(const StoredBlock& block, const Chunk& chunk, float* staging, bool to_staging,
                unsigned threads) {
  std::size_t total = 0;
  for (const Run& run : chunk.runs) total += run.count;
  unsigned parts = total * sizeof(float) < kParallelCopyBytes ? 1 : threads;
  parts = unsigned(std::max<std::size_t>(1, std::min<std::size_t>(parts, total / 4096 + 1)));
  run_parallel(parts, [&](unsigned part) {
    const std::size_t from = total * part / parts, to = total * (part + 1) / parts;
    std::size_t at = 0;  // elements before the current run
    for (const Run& run : chunk.runs) {
      const std::size_t begin = std::max(from, at), end = std::min(to, at + run.count);
      if (begin < end) {
        const std::size_t skip = begin - at;
        float* host = block.host + block.host_starts[run.product] + run.line * block.host_ld +
                      run.position + skip;
        float* device = staging + (block.device_starts[run.product] + run.line * block.device_ld +
                                   run.position + skip - chunk.first);
        const std::size_t bytes = (end - begin) * sizeof(float);
        if (to_staging)
          std::memcpy(device, host, bytes);
        else
          std::memcpy(host, device, bytes);
      }
      at += run.count;
      if (at >= to) break;
    }
  });
}

}  // namespace

std::size_t StoredBlock::device_extent() const {
  std::size_t extent = 0;
  if (lines == 0 || length == 0) return 0;
  for (std::size_t start : device_starts)
    extent = std::max(extent, start + (lines - 1) * device_ld + length);
  return extent;
}

bool Chunker::next(Chunk& out) {
  out.runs.clear();
  const StoredBlock& b = block_;
  if (b.length == 0 || b.lines == 0) return false;
  while (product_ < b.products()) {
    const std::size_t at = b.device_starts[product_] + line_ * b.device_ld + position_;
    if (out.runs.empty()) {
      out.first = at;
    } else if (at < out.end || at + (b.length - position_) - out.first > chunk_) {
      break;  // out of order (a product table), or beyond the chunk: the next chunk's
    }
    // The rest of this line, or as much of it as the chunk holds.
    const std::size_t count = std::min(b.length - position_, out.first + chunk_ - at);
    out.runs.push_back({product_, line_, position_, count});
    out.end = at + count;
    position_ += count;
    if (position_ == b.length) {
      position_ = 0;
      if (++line_ == b.lines) line_ = 0, ++product_;
    }
    if (out.end - out.first >= chunk_) break;
  }
  return !out.runs.empty();
}

void pack_chunk(const StoredBlock& block, const Chunk& chunk, float* staging, unsigned threads) {
  if (!block.mirror_base) {
    copy_chunk(block, chunk, staging, true, threads);
    return;
  }
  const float* host = block.host + *block.mirror_base + chunk.first;
  const std::size_t total = chunk.end - chunk.first;
  const unsigned parts = total * sizeof(float) < kParallelCopyBytes ? 1 : threads;
  run_parallel(parts, [&](unsigned part) {
    const std::size_t from = total * part / parts, to = total * (part + 1) / parts;
    std::memcpy(staging + from, host + from, (to - from) * sizeof(float));
  });
}

void unpack_chunk(const StoredBlock& block, const Chunk& chunk, const float* staging,
                  unsigned threads) {
  copy_chunk(block, chunk, const_cast<float*>(staging), false, threads);
}

}  // namespace clgemm::detail
