// Internal: a block of one matrix that the host-memory engine moves, as lines in the caller's
// array and in a device buffer, and how it travels in chunks through the pinned staging: the
// chunker walks its lines in order and hands out device ranges of at most a chunk's size, each
// with the runs (parts of lines) it holds, which the copy threads move between the caller's
// array and the staging.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace clgemm::detail {

// `products` blocks of `lines` lines of `length` elements: product q's line l lies at element
// host_starts[q] + l * host_ld of `host` and at device_starts[q] + l * device_ld of the device
// buffer.
struct StoredBlock {
  float* host = nullptr;  // const for the operands: only C is written through it
  std::vector<std::size_t> host_starts, device_starts;
  std::size_t host_ld = 0, device_ld = 0;
  std::size_t lines = 0, length = 0;
  // Set where the device buffer mirrors the caller's array (a whole piece as the caller laid
  // it out): device element d is host element mirror_base + d. A chunk then goes up as the
  // host range it mirrors, gaps between its runs included, so a gap never overwrites what an
  // earlier chunk put there (products out of order, interleaved or overlapping).
  std::optional<std::size_t> mirror_base;
  std::size_t products() const { return host_starts.size(); }
  // Elements from the device buffer's start to the block's last element, plus one.
  std::size_t device_extent() const;
};

// A part of one line: `count` elements from element `position` of line `line` of product
// `product` (all counted within the block).
struct Run {
  std::size_t product, line, position, count;
};

// Device elements [first, end) of the block, and the runs that fall in them.
struct Chunk {
  std::size_t first = 0, end = 0;
  std::vector<Run> runs;
};

// Walks a block's lines, product by product, line by line.
class Chunker {
 public:
  Chunker(const StoredBlock& block, std::size_t chunk_elements)
      : block_(block), chunk_(chunk_elements) {}
  // The next chunk: consecutive runs whose device range stays within `chunk_elements` (a line
  // longer than that is split); false when the block is done.
  bool next(Chunk& out);

 private:
  const StoredBlock& block_;
  std::size_t chunk_;
  std::size_t product_ = 0, line_ = 0, position_ = 0;
};

// Copies a chunk's runs from the caller's array into `staging` (the chunk's first device
// element at staging[0]), or back from it into the caller's array, on up to `threads` threads.
void pack_chunk(const StoredBlock& block, const Chunk& chunk, float* staging, unsigned threads);
void unpack_chunk(const StoredBlock& block, const Chunk& chunk, const float* staging,
                  unsigned threads);

}  // namespace clgemm::detail
