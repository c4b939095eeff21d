// The host-memory engine's streaming: a host-array call cut into pieces (tile_plan.hpp), each
// an ordinary GEMM on device slots (planned, prepared and enqueued like a buffer-path call),
// streamed through an engine set's three in-order queues: the uploads of the next piece's
// blocks and the downloads of the last tile's C overlap the current piece's launches, and the
// copies between the caller's arrays and the pinned staging run chunk by chunk beside the DMA.
// Everything that can fail before C is written (the plan, every piece's programs, the
// buffers) is done first; a device failure after some of C was written is recovered on the
// host (host_fallback.hpp), so C is never left half written.
#include "host/host_engine.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "choice/call_planning.hpp"
#include "clgemm/errors.hpp"
#include "host/engine_counters.hpp"
#include "host/engine_settings.hpp"
#include "host/host_fallback.hpp"
#include "host/pieces.hpp"
#include "launch/enqueue_call.hpp"

namespace clgemm {
namespace {

using detail::BlockKey;
using detail::Chunk;
using detail::DeviceSlot;
using detail::Matrix;
using detail::Piece;
using detail::StoredBlock;

// Staging chunks per direction, and their size: large enough that a transfer's fixed cost is
// small beside it (8 MiB is about 0.16 ms at 50 GB/s), small enough that copying one chunk
// overlaps the DMA of the one before.
constexpr std::size_t kStagingChunks = 6;
constexpr std::size_t kLargestChunk = std::size_t(8) << 20;
constexpr std::size_t kSmallestChunk = std::size_t(64) << 10;

std::size_t chunk_bytes_for(const detail::DeviceLayout& layout) {
  std::size_t largest = 0;
  for (const auto* ring : {&layout.a, &layout.b, &layout.c, &layout.bias})
    largest = std::max(largest, ring->bytes);
  const std::size_t bytes = std::clamp(largest, kSmallestChunk, kLargestChunk);
  return (bytes + kSmallestChunk - 1) / kSmallestChunk * kSmallestChunk;
}

// The prepared launches of each kind of piece: pieces of the same shape and role share them.
using PieceKind = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, bool, bool>;
PieceKind kind_of(const Piece& piece) {
  return {piece.rows,     piece.columns,      piece.depth,
          piece.products, piece.first_slab(), piece.last_slab()};
}

// A chunk of C on its way back: read into a staging chunk, to be copied into the caller's C.
struct PendingChunk {
  std::size_t staging;
  Chunk chunk;
  std::shared_ptr<const StoredBlock> block;
  std::size_t tile;
};

}  // namespace

namespace detail {

GemmRecord sgemm_host(const GemmProblem& problem, const CallPlan& whole,
                      const RunSettings& settings, const float* a, const float* b, float* c,
                      const EngineResources& resources) {
  const DeviceLimits& limits = resources.device.limits();
  const detail::EngineSettings engine = detail::read_engine_settings(limits);
  if (limits.host_unified_memory && !engine.force_copy)
    if (auto record = sgemm_in_place(problem, whole, a, b, c, resources)) return *record;

  detail::TilingInput input = detail::tiling_input(problem);
  input.max_allocation = limits.max_allocation_bytes;
  input.limit = engine.device_memory_limit;
  input.limit_source = engine.limit_source;
  input.tile_m = engine.tile_m, input.tile_n = engine.tile_n, input.tile_k = engine.tile_k;
  const detail::TilePlan tiles = detail::plan_tiles(input);
  const std::vector<Piece> pieces = detail::list_pieces(tiles);
  const detail::HostArrays arrays{a, b, c, problem.epilogue.bias_data};
  const bool operands = whole.kind == detail::CallKind::Gemm;
  const bool upload_c = detail::reads_c(problem);
  const bool bias = problem.epilogue.bias != Bias::None;
  const std::size_t device_alignment = limits.base_address_align_bits / 8;

  // Every piece's problem, and the launches of every kind of piece, before anything moves.
  std::vector<BatchProduct> table;
  std::vector<GemmProblem> piece_problems;
  piece_problems.reserve(pieces.size());
  std::map<PieceKind, std::shared_ptr<const detail::PreparedEntry>> kinds;
  std::vector<const detail::PreparedEntry*> prepared(pieces.size());
  for (std::size_t t = 0; t < pieces.size(); ++t) {
    piece_problems.push_back(detail::piece_problem(problem, tiles, pieces[t], table));
    auto& entry = kinds[kind_of(pieces[t])];
    if (!entry) {
      GemmProblem sub = piece_problems.back();
      if (problem.products.host)
        sub.products.host = problem.products.host;  // a table, for the plan
      detail::KernelCall call = detail::row_major_call(sub);
      call.a.base_alignment = call.b.base_alignment = device_alignment;
      call.products_offset = 0;
      const detail::CallPlan plan = tiles.whole ? whole
                                                : plan_call(settings, sub, call, resources.device,
                                                            resources.options, resources.choices);
      if (plan.kind == detail::CallKind::Nothing)
        throw Error(ErrorCode::Internal, "a piece of the host-array call has nothing to compute");
      entry = resources.prepared.get(plan, call, resources.device, resources.options);
    }
    prepared[t] = entry.get();
  }
  // The record: what the largest piece ran, for the whole call.
  GemmRecord record = kinds.at(kind_of(pieces.front()))->record;
  record.batch = problem.batch;
  record.product_table = problem.products.host != nullptr;
  if (!tiles.whole) record.kernel_choice += "; " + detail::describe_tiles(tiles);

  detail::EnginePool& pool = resources.engines;
  std::unique_ptr<detail::EngineSet> set = pool.acquire();
  const std::size_t chunk_bytes = chunk_bytes_for(tiles.layout);
  const std::size_t chunk_elements = chunk_bytes / sizeof(float);
  const unsigned threads = engine.copy_threads;

  // Progress, for the recovery: chunks of C written per tile, and whether a tile is done.
  std::vector<std::size_t> written(std::size_t(tiles.tiles()), 0);
  std::vector<bool> tile_done(written.size(), false);
  std::vector<std::size_t> tile_piece(written.size(), 0);  // its last slab's piece
  for (std::size_t t = 0; t < pieces.size(); ++t)
    if (pieces[t].last_slab()) tile_piece[pieces[t].tile] = t;
  bool c_written = false;
  std::deque<PendingChunk> pending;
  try {
    try {
      pool.fit(*set, tiles.layout, chunk_bytes, kStagingChunks, engine.device_memory_limit);
      set->forget_blocks();
      // One piece: everything on one queue, no events between queues.
      const bool one_queue = pieces.size() == 1;
      cl::CommandQueue& uploads = one_queue ? set->kernels : set->uploads;
      cl::CommandQueue& kernels = set->kernels;
      cl::CommandQueue& downloads = one_queue ? set->kernels : set->downloads;
      std::size_t clock = 0, next_up = 0, next_down = 0;

      auto take_slot = [&](std::vector<DeviceSlot>& ring, const BlockKey& key, bool& hit) {
        ++clock;
        for (DeviceSlot& slot : ring)
          if (slot.key == key) {
            slot.last_use = clock;
            hit = true;
            return &slot;
          }
        DeviceSlot* slot = &*std::min_element(
            ring.begin(), ring.end(), [](auto& x, auto& y) { return x.last_use < y.last_use; });
        slot->key = key, slot->last_use = clock;
        hit = false;
        return slot;
      };
      // Copies the block into the slot, chunk by chunk through the staging: each chunk is
      // packed while the one before is on its way. The first write waits for the slot's users.
      auto upload = [&](const StoredBlock& block, DeviceSlot& slot) {
        detail::Chunker chunker(block, chunk_elements);
        Chunk chunk;
        std::vector<cl::Event> wait = std::move(slot.users);
        slot.users.clear();
        while (chunker.next(chunk)) {
          detail::StagingChunk& staging = set->up[next_up++ % set->up.size()];
          if (staging.busy()) staging.busy.wait();
          detail::pack_chunk(block, chunk, staging.mapped, threads);
          cl::Event done;
          uploads.enqueueWriteBuffer(slot.buffer, CL_FALSE, chunk.first * sizeof(float),
                                     (chunk.end - chunk.first) * sizeof(float), staging.mapped,
                                     wait.empty() ? nullptr : &wait, &done);
          wait.clear();
          staging.busy = slot.ready = done;
          uploads.flush();
        }
      };
      // Writes the oldest chunk of C on its way back into the caller's C.
      auto write_back = [&] {
        PendingChunk& oldest = pending.front();
        detail::StagingChunk& staging = set->down[oldest.staging];
        staging.busy.wait();
        auto& fault = detail::engine_counters().fail_before_chunk;
        if (fault > 0 && --fault == 0)
          throw cl::Error(CL_OUT_OF_RESOURCES, "clWaitForEvents (injected by a test)");
        detail::unpack_chunk(*oldest.block, oldest.chunk, staging.mapped, threads);
        c_written = true;
        ++written[oldest.tile];
        pending.pop_front();
      };
      auto complete = [](const cl::Event& event) {
        const cl_int status = event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
        if (status < 0) throw cl::Error(status, "clGetEventInfo (a transfer failed)");
        return status == CL_COMPLETE;
      };

      cl::Event table_ready;
      for (std::size_t t = 0; t < pieces.size(); ++t) {
        const Piece& piece = pieces[t];
        GemmProblem sub = piece_problems[t];
        std::vector<cl::Event> wait;
        DeviceSlot *a_slot = nullptr, *b_slot = nullptr, *bias_slot = nullptr,
                   *table_slot = nullptr;
        bool hit = false;
        if (operands) {
          a_slot = take_slot(set->a, detail::key_of(Matrix::A, problem, tiles, piece), hit);
          if (!hit) upload(detail::block_of(Matrix::A, problem, tiles, piece, arrays), *a_slot);
          b_slot = take_slot(set->b, detail::key_of(Matrix::B, problem, tiles, piece), hit);
          if (!hit) upload(detail::block_of(Matrix::B, problem, tiles, piece, arrays), *b_slot);
          wait.push_back(a_slot->ready), wait.push_back(b_slot->ready);
        }
        DeviceSlot* c_slot =
            take_slot(set->c, detail::key_of(Matrix::C, problem, tiles, piece), hit);
        if (piece.first_slab()) {
          if (upload_c) {
            upload(detail::block_of(Matrix::C, problem, tiles, piece, arrays), *c_slot);
            wait.push_back(c_slot->ready);
          } else {
            wait.insert(wait.end(), c_slot->users.begin(), c_slot->users.end());
            c_slot->users.clear();
          }
        }
        if (bias && piece.last_slab()) {
          bias_slot =
              take_slot(set->bias, detail::key_of(Matrix::Bias, problem, tiles, piece), hit);
          if (!hit)
            upload(detail::block_of(Matrix::Bias, problem, tiles, piece, arrays), *bias_slot);
          wait.push_back(bias_slot->ready);
        }
        if (problem.products.host) {
          // The piece's entries, at the start of a table slot.
          table_slot = take_slot(set->table, {std::int64_t(t), 0, 0}, hit);
          std::vector<cl::Event> users = std::move(table_slot->users);
          table_slot->users.clear();
          uploads.enqueueWriteBuffer(
              table_slot->buffer, CL_FALSE, 0, std::size_t(sub.batch) * sizeof(BatchProduct),
              table.data() + sub.products.offset, users.empty() ? nullptr : &users, &table_ready);
          wait.push_back(table_ready);
          sub.products.host = table.data() + sub.products.offset;
        }
        detail::KernelCall call = detail::row_major_call(sub);
        const cl_mem a_mem = a_slot ? a_slot->buffer() : nullptr;
        const cl_mem b_mem = b_slot ? b_slot->buffer() : nullptr;
        call.a.buffer = call.column_major ? b_mem : a_mem;
        call.b.buffer = call.column_major ? a_mem : b_mem;
        call.a.base_alignment = call.b.base_alignment = device_alignment;
        call.c.buffer = c_slot->buffer();
        if (table_slot) call.products = table_slot->buffer(), call.products_offset = 0;
        if (bias_slot) call.epilogue.bias_buffer = bias_slot->buffer();
        cl::Event launched;
        enqueue_prepared(kernels, prepared[t]->call, call, wait, &launched,
                         resources.device.context, resources.workspace);
        for (DeviceSlot* slot : {a_slot, b_slot, bias_slot, table_slot})
          if (slot) slot->users.push_back(launched);
        c_slot->ready = launched;
        kernels.flush();

        if (piece.last_slab()) {
          // C's tile back, chunk by chunk, each written into the caller's C once it is here.
          auto block = std::make_shared<const StoredBlock>(
              detail::block_of(Matrix::C, problem, tiles, piece, arrays));
          detail::Chunker chunker(*block, chunk_elements);
          Chunk chunk;
          std::vector<cl::Event> after{launched};
          cl::Event read;
          while (chunker.next(chunk)) {
            if (pending.size() == set->down.size()) write_back();
            const std::size_t index = next_down++ % set->down.size();
            downloads.enqueueReadBuffer(c_slot->buffer, CL_FALSE, chunk.first * sizeof(float),
                                        (chunk.end - chunk.first) * sizeof(float),
                                        set->down[index].mapped, after.empty() ? nullptr : &after,
                                        &read);
            after.clear();
            set->down[index].busy = read;
            pending.push_back({index, chunk, block, piece.tile});
          }
          c_slot->users = {read};
          downloads.flush();
        }
        // Whatever has arrived meanwhile goes into C now.
        while (!pending.empty() && complete(set->down[pending.front().staging].busy)) write_back();
      }
      while (!pending.empty()) write_back();
      for (std::size_t tile = 0; tile < written.size(); ++tile) tile_done[tile] = true;
    } catch (const cl::Error& error) {
      if (error.err() == CL_MEM_OBJECT_ALLOCATION_FAILURE || error.err() == CL_OUT_OF_RESOURCES)
        throw Error(ErrorCode::AllocationTooLarge,
                    std::string("device '") + limits.name + "' could not hold the " +
                        std::to_string(tiles.layout.total()) +
                        " bytes of the host-array engine's buffers (" + error.what() +
                        " returned " + std::to_string(error.err()) +
                        "); CLGEMM_DEVICE_MEMORY_LIMIT caps them");
      throw OpenCLError(error.what(), error.err());
    }
  } catch (const std::exception& failure) {
    // The set's queues may hold failed work: it is given up, not reused.
    for (cl::CommandQueue* queue : {&set->uploads, &set->kernels, &set->downloads}) try {
        queue->finish();
      } catch (...) {
      }
    pool.discard(std::move(set));
    if (!c_written) throw;
    // Part of C is written: the rest is computed on the host, tile by tile, chunk by chunk
    // as the engine would have written it.
    std::size_t recovered = 0;
    for (std::size_t tile = 0; tile < written.size(); ++tile) {
      const Piece& piece = pieces[tile_piece[tile]];
      const StoredBlock block = detail::block_of(Matrix::C, problem, tiles, piece, arrays);
      detail::Chunker chunker(block, chunk_elements);
      Chunk chunk;
      std::size_t index = 0;
      bool any = false;
      while (chunker.next(chunk)) {
        if (index++ < written[tile]) continue;
        any = true;
        for (const detail::Run& run : chunk.runs) {
          const bool rows = problem.layout == Layout::RowMajor;
          const std::int64_t line = std::int64_t(run.line) + (rows ? piece.row : piece.column);
          const std::int64_t position =
              std::int64_t(run.position) + (rows ? piece.column : piece.row);
          detail::compute_on_host(problem, a, b, c, piece.first_product + std::int64_t(run.product),
                                  line, position, std::int64_t(run.count));
        }
      }
      recovered += any;
    }
    ++detail::engine_counters().host_recoveries;
    record.kernel_choice += std::string("; the device failed after C was partly written (") +
                            failure.what() + "): " + std::to_string(recovered) + " of " +
                            std::to_string(written.size()) +
                            " tile(s) were finished on the host, in double";
    return record;
  }
  pool.release(std::move(set));
  return record;
}

}  // namespace detail
}  // namespace clgemm
