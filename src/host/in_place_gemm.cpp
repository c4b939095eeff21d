// The host-memory engine where the device shares the host's memory (CL_DEVICE_HOST_UNIFIED_
// MEMORY, e.g. PoCL on the CPU): no staging and no copies. A and B (and the bias) are used in
// place (CL_MEM_USE_HOST_PTR); so is C when the call is one launch and C shares no byte with
// what it reads, the result then being made visible by mapping C. A call of several launches
// (split-K, aligned copies, edge strips) computes C in a device buffer and copies it into the
// caller's C only after every launch succeeded, so a failure cannot leave C half written.
// CLGEMM_HOST_COPY=1 turns this path off (the streaming engine then runs, as on a GPU).
#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "clgemm/errors.hpp"
#include "host/host_engine.hpp"
#include "host/pieces.hpp"
#include "launch/enqueue_call.hpp"
#include "launch/kernel_launch.hpp"
#include "problem/product_offsets.hpp"

namespace clgemm {
namespace {

// A host array's part that the problem reads: from its offset to its last element.
struct HostSpan {
  const float* data;
  std::size_t elements;
  std::size_t bytes() const { return elements * sizeof(float); }
  bool overlaps(const HostSpan& o) const {
    return data && o.data && elements && o.elements && data < o.data + o.elements &&
           o.data < data + elements;
  }
};

}  // namespace

namespace detail {

std::optional<GemmRecord> sgemm_in_place(const GemmProblem& problem, const CallPlan& plan,
                                         const float* a, const float* b, float* c,
                                         const EngineResources& resources) {
  const DeviceLimits& limits = resources.device.limits();
  const cl::Context& context = resources.device.context;
  const ProductOffsets lowest = lowest_product_offsets(problem);
  const std::size_t a_base = lowest.a, b_base = lowest.b, c_base = lowest.c;
  const bool operands = plan.kind == detail::CallKind::Gemm;
  const HostSpan a_span{operands ? a + a_base : nullptr,
                        operands ? problem.a_elements() - a_base : 0};
  const HostSpan b_span{operands ? b + b_base : nullptr,
                        operands ? problem.b_elements() - b_base : 0};
  const HostSpan c_span{c + c_base, problem.c_elements() - c_base};
  const Epilogue& epilogue = problem.epilogue;
  const HostSpan bias_span{
      epilogue.bias_data ? epilogue.bias_data + epilogue.bias_offset : nullptr,
      epilogue.bias != Bias::None ? problem.bias_elements() - epilogue.bias_offset : 0};
  for (const HostSpan* span : {&a_span, &b_span, &c_span, &bias_span})
    if (span->bytes() > limits.max_allocation_bytes) return std::nullopt;  // streamed instead

  detail::KernelCall call = detail::row_major_call(problem);
  const HostSpan& first = call.column_major ? b_span : a_span;   // the kernel's A
  const HostSpan& second = call.column_major ? a_span : b_span;  // the kernel's B
  // Each span starts at its lowest offset, so the kernel sees offsets counted from there.
  call.a.offset = call.b.offset = call.c.offset = 0;
  std::vector<BatchProduct> table;
  if (problem.products.host) {
    table.assign(problem.products.host, problem.products.host + problem.batch);
    for (BatchProduct& e : table) e.a_offset -= a_base, e.b_offset -= b_base, e.c_offset -= c_base;
    if (call.column_major)
      for (BatchProduct& e : table) std::swap(e.a_offset, e.b_offset);
  }
  call.epilogue.bias_offset = 0;
  call.a.base_alignment = detail::pointer_alignment(first.data);
  call.b.base_alignment = detail::pointer_alignment(second.data);
  const auto prepared = resources.prepared.get(plan, call, resources.device, resources.options);
  const bool c_in_place = prepared->call.launches() == 1 && !c_span.overlaps(a_span) &&
                          !c_span.overlaps(b_span) && !c_span.overlaps(bias_span);

  cl::CommandQueue queue = resources.queues.acquire(context, resources.device.selected.device);
  try {
    auto in_place = [&](const HostSpan& span, cl_mem_flags flags) {
      return cl::Buffer(context, flags | CL_MEM_USE_HOST_PTR, span.bytes(),
                        const_cast<float*>(span.data));
    };
    cl::Buffer a_buf, b_buf, c_buf, table_buf, bias_buf;
    if (operands)
      a_buf = in_place(first, CL_MEM_READ_ONLY), b_buf = in_place(second, CL_MEM_READ_ONLY);
    if (c_in_place) {
      c_buf = in_place(c_span, CL_MEM_READ_WRITE);
    } else {
      c_buf = cl::Buffer(context, CL_MEM_READ_WRITE, c_span.bytes());
      if (detail::reads_c(problem))
        queue.enqueueWriteBuffer(c_buf, CL_FALSE, 0, c_span.bytes(), c_span.data);
    }
    if (!table.empty())
      table_buf = cl::Buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             table.size() * sizeof(BatchProduct), table.data());
    if (bias_span.elements) bias_buf = in_place(bias_span, CL_MEM_READ_ONLY);
    call.a.buffer = a_buf();
    call.b.buffer = b_buf();
    call.c.buffer = c_buf();
    call.products = table_buf();
    call.epilogue.bias_buffer = bias_buf();
    enqueue_prepared(queue, prepared->call, call, {}, nullptr, context, resources.workspace);
    // Mapping makes the device's C visible on the host: in place that is the caller's C.
    float* result =
        static_cast<float*>(queue.enqueueMapBuffer(c_buf, CL_TRUE, CL_MAP_READ, 0, c_span.bytes()));
    if (!c_in_place) {
      // Only C's m x n elements per line: the padding between lines stays the caller's.
      const bool row_major = problem.layout == Layout::RowMajor;
      const std::int64_t lines = row_major ? problem.m : problem.n;
      const std::size_t length = std::size_t(row_major ? problem.n : problem.m);
      for (std::int64_t product = 0; product < problem.batch; ++product) {
        const std::size_t start = problem.product(product).c_offset - c_base;
        for (std::int64_t line = 0; line < lines; ++line) {
          const std::size_t from = start + std::size_t(line) * std::size_t(problem.ldc);
          std::memcpy(c + c_base + from, result + from, length * sizeof(float));
        }
      }
    }
    queue.enqueueUnmapMemObject(c_buf, result);
    queue.finish();
  } catch (const cl::Error& error) {
    // The queue may hold failed work; it is dropped rather than returned to the pool.
    throw OpenCLError(error.what(), error.err());
  }
  resources.queues.release(std::move(queue));
  return prepared->record;
}

}  // namespace detail
}  // namespace clgemm
