// The device-buffer GEMM path: the caller's cl_mem objects and command queue, no host round
// trip and no waiting (except for a product table in a cl_mem, read back to be validated).
// Everything is checked before anything is enqueued: the queue and the buffers must belong to
// this context, each buffer must hold what the problem reads, and C must share no element with
// A, B or the bias on one memory object (sub-buffers are compared in their parent).
#include <utility>
#include <vector>

#include "api/context_state.hpp"
#include "clgemm/errors.hpp"
#include "launch/enqueue_call.hpp"
#include "launch/kernel_launch.hpp"
#include "problem/overlap.hpp"
#include "support/error_boundary.hpp"

namespace clgemm {
namespace {

template <typename T>
T mem_info(cl_mem buffer, cl_mem_info what, Argument which) {
  const char* name = argument_name(which);
  T value{};
  const cl_int status = clGetMemObjectInfo(buffer, what, sizeof value, &value, nullptr);
  if (status != CL_SUCCESS)
    throw Error(ErrorCode::InvalidArgument,
                std::string("buffer ") + name +
                    " is not a valid cl_mem (clGetMemObjectInfo returned " +
                    std::to_string(status) + ")",
                which);
  return value;
}

void check_buffer(cl_mem buffer, Argument which, std::size_t elements, cl_context context) {
  const char* name = argument_name(which);
  if (!buffer)
    throw Error(ErrorCode::InvalidArgument, std::string("buffer ") + name + " is null", which);
  if (mem_info<cl_context>(buffer, CL_MEM_CONTEXT, which) != context)
    throw Error(ErrorCode::InvalidArgument,
                std::string("buffer ") + name + " belongs to another OpenCL context", which);
  const std::size_t size = mem_info<std::size_t>(buffer, CL_MEM_SIZE, which);
  // validate_problem guarantees that elements * sizeof(float) does not wrap.
  if (size / sizeof(float) < elements)
    throw Error(ErrorCode::BufferTooSmall,
                std::string("buffer ") + name + " holds " + std::to_string(size) +
                    " bytes, but the problem reaches byte " +
                    std::to_string(elements * sizeof(float)) +
                    (which == Argument::Bias
                         ? " (bias_offset + (batch - 1) x bias_stride + the vector's length)"
                         : " (offset + the last product's offset + (lines - 1) x leading "
                           "dimension + line length)"),
                which);
}

void check_queue(cl_command_queue queue, cl_context context, cl_device_id device) {
  if (!queue) throw Error(ErrorCode::InvalidArgument, "the command queue is null", Argument::Queue);
  cl_context queue_context = nullptr;
  cl_device_id queue_device = nullptr;
  if (clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof queue_context, &queue_context,
                            nullptr) != CL_SUCCESS ||
      clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof queue_device, &queue_device, nullptr) !=
          CL_SUCCESS)
    throw Error(ErrorCode::InvalidArgument, "the command queue is not a valid cl_command_queue",
                Argument::Queue);
  if (queue_context != context || queue_device != device)
    throw Error(ErrorCode::InvalidArgument,
                "the command queue belongs to another OpenCL context or device than this "
                "clgemm::Context (construct the Context from the caller's cl_context)",
                Argument::Queue);
}

// The product table's entries: a host table as it is, a cl_mem's read back (after the wait
// list, blocking) so they can be validated. Either way the kernels read an uploaded copy of
// exactly what was validated.
std::vector<BatchProduct> read_table(const GemmProblem& problem, const cl::CommandQueue& queue,
                                     const std::vector<cl::Event>& wait, cl_context context) {
  if (problem.products.host) return {problem.products.host, problem.products.host + problem.batch};
  std::size_t end, bytes;
  if (__builtin_add_overflow(problem.products.offset, std::size_t(problem.batch), &end) ||
      __builtin_mul_overflow(end, sizeof(BatchProduct), &bytes))
    throw Error(ErrorCode::InvalidSize, "products.offset + batch entries overflow 64 bits of bytes",
                Argument::Products);
  check_buffer(problem.products.buffer, Argument::Products, 0, context);
  const std::size_t size =
      mem_info<std::size_t>(problem.products.buffer, CL_MEM_SIZE, Argument::Products);
  if (size < bytes)
    throw Error(ErrorCode::BufferTooSmall,
                "the product table's buffer holds " + std::to_string(size) + " bytes, but " +
                    std::to_string(problem.batch) + " entries of 32 bytes from entry " +
                    std::to_string(problem.products.offset) + " reach byte " +
                    std::to_string(bytes),
                Argument::Products);
  std::vector<BatchProduct> entries(std::size_t(problem.batch));
  const cl::Buffer table(problem.products.buffer, /*retainObject=*/true);
  queue.enqueueReadBuffer(table, CL_TRUE, problem.products.offset * sizeof(BatchProduct),
                          entries.size() * sizeof(BatchProduct), entries.data(),
                          wait.empty() ? nullptr : &wait);
  validate_products(problem, entries.data());
  return entries;
}

void check_buffer_epilogue(const GemmProblem& problem, cl_context context) {
  const Epilogue& e = problem.epilogue;
  if (e.bias_data)
    throw Error(ErrorCode::InvalidArgument,
                "the bias is a host array on the buffer path; give it as bias_buffer",
                Argument::Bias);
  if (e.bias != Bias::None)
    check_buffer(e.bias_buffer, Argument::Bias, problem.bias_elements(), context);
}

// Where a buffer's bytes lie: its parent (a sub-buffer's CL_MEM_ASSOCIATED_MEMOBJECT) or
// itself, and its first byte there.
struct MemoryOrigin {
  cl_mem memory;
  std::size_t offset_bytes;
};
MemoryOrigin origin_of(cl_mem buffer, Argument which) {
  const cl_mem parent = mem_info<cl_mem>(buffer, CL_MEM_ASSOCIATED_MEMOBJECT, which);
  if (!parent) return {buffer, 0};
  return {parent, mem_info<std::size_t>(buffer, CL_MEM_OFFSET, which)};
}

// C must share no element with what the call reads while it writes C (A, B, the bias) on one
// memory object, across all products: the kernels would read what they had already written.
void check_output_apart(const GemmProblem& problem, bool reads_operands, cl_mem a, cl_mem b,
                        cl_mem c) {
  const MemoryOrigin c_origin = origin_of(c, Argument::C);
  const detail::BatchElements written = detail::batch_elements(problem, Argument::C);
  std::vector<std::pair<cl_mem, Argument>> inputs;
  if (reads_operands) inputs = {{a, Argument::A}, {b, Argument::B}};
  if (problem.epilogue.bias != Bias::None)
    inputs.push_back({problem.epilogue.bias_buffer, Argument::Bias});
  for (const auto& [buffer, which] : inputs) {
    const MemoryOrigin origin = origin_of(buffer, which);
    if (origin.memory != c_origin.memory) continue;
    const auto why = detail::overlap_of(detail::batch_elements(problem, which), written,
                                        __int128(c_origin.offset_bytes) - origin.offset_bytes);
    if (why)
      throw Error(ErrorCode::OverlappingOutput,
                  std::string("buffers C and ") + argument_name(which) + " overlap: " + *why +
                      "; the call would read elements of " + argument_name(which) +
                      " it had already written as C",
                  Argument::C);
  }
}

}  // namespace

GemmRecord Context::sgemm(const GemmProblem& problem, cl_mem a, cl_mem b, cl_mem c,
                          cl_command_queue queue, cl_event* event, const RunSettings& settings,
                          const std::vector<cl_event>& wait_list) try {
  if (event) *event = nullptr;
  validate_problem(problem);
  check_queue(queue, opencl_context(), opencl_device());
  detail::KernelCall call = detail::row_major_call(problem);
  const auto planned = state_->plan(settings, problem, call);
  const detail::CallPlan& plan = planned->plan;
  for (cl_event e : wait_list)
    if (!e)
      throw Error(ErrorCode::InvalidArgument, "the wait list holds a null event", Argument::Queue);
  try {
    const cl::CommandQueue caller_queue(queue, /*retainObject=*/true);
    std::vector<cl::Event> wait;
    for (cl_event e : wait_list) wait.emplace_back(e, /*retainObject=*/true);
    // With a table, the extents of A, B and C follow from its entries.
    std::vector<BatchProduct> entries;
    GemmProblem checked = problem;
    if (plan.kind != detail::CallKind::Nothing && problem.products.given()) {
      entries = read_table(problem, caller_queue, wait, opencl_context());
      checked.products = {entries.data(), nullptr, 0};
    }
    if (plan.kind == detail::CallKind::Gemm) {
      check_buffer(a, Argument::A, checked.a_elements(), opencl_context());
      check_buffer(b, Argument::B, checked.b_elements(), opencl_context());
    }
    if (plan.kind != detail::CallKind::Nothing) {
      check_buffer(c, Argument::C, checked.c_elements(), opencl_context());
      check_buffer_epilogue(problem, opencl_context());
      check_output_apart(checked, plan.kind == detail::CallKind::Gemm, a, b, c);
    }
    cl::Buffer table;
    if (!entries.empty()) {
      if (call.column_major)  // the kernels' A is the problem's B
        for (BatchProduct& e : entries) std::swap(e.a_offset, e.b_offset);
      table = cl::Buffer(state_->device.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                         entries.size() * sizeof(BatchProduct), entries.data());
      call.products = table();
      call.products_offset = 0;
    }
    cl::Event done;
    GemmRecord record = detail::record_of_nothing(plan);
    if (plan.kind == detail::CallKind::Nothing) {
      // Nothing to compute; an event asked for still completes after the queue's earlier work
      // and the wait list.
      if (event || !wait.empty())
        caller_queue.enqueueMarkerWithWaitList(wait.empty() ? nullptr : &wait, &done);
    } else {
      call.a.buffer = call.column_major ? b : a;  // row_major_call swapped the operands
      call.b.buffer = call.column_major ? a : b;
      call.c.buffer = c;
      if (plan.kind == detail::CallKind::Gemm) {
        call.a.base_alignment = detail::buffer_alignment(call.a.buffer, device());
        call.b.base_alignment = detail::buffer_alignment(call.b.buffer, device());
      }
      const auto prepared =
          state_->prepared.get(plan, call, state_->device, state_->options, planned->id);
      record = prepared->record;
      detail::enqueue_prepared(caller_queue, prepared->call, call, wait, event ? &done : nullptr,
                               state_->device.context, state_->workspace);
    }
    if (event) {
      clRetainEvent(done());  // the caller now owns one reference
      *event = done();
    }
    return record;
  } catch (const cl::Error& error) {
    throw OpenCLError(error.what(), error.err());
  }
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace clgemm
