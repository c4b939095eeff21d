// The device-buffer GEMM path: the caller's cl_mem objects and command queue, no host round
// trip and no waiting. Everything is checked before anything is enqueued: the queue and the
// buffers must belong to this context, and each buffer must hold what the problem reads.
#include "clgemm/errors.hpp"
#include "context_state.hpp"
#include "error_boundary.hpp"

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
                    " (offset plus lines times leading dimension)",
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

}  // namespace

GemmRecord Context::sgemm(const GemmProblem& problem, cl_mem a, cl_mem b, cl_mem c,
                          cl_command_queue queue, cl_event* event,
                          const RunSettings& settings,
                          const std::vector<cl_event>& wait_list) try {
  if (event) *event = nullptr;
  validate_problem(problem);
  check_queue(queue, opencl_context(), opencl_device());
  detail::KernelCall call = detail::row_major_call(problem);
  const detail::CallPlan plan = state_->plan(settings, problem, call);
  if (plan.kind == detail::CallKind::Gemm) {
    check_buffer(a, Argument::A, problem.a_elements(), opencl_context());
    check_buffer(b, Argument::B, problem.b_elements(), opencl_context());
  }
  if (plan.kind != detail::CallKind::Nothing)
    check_buffer(c, Argument::C, problem.c_elements(), opencl_context());
  for (cl_event e : wait_list)
    if (!e)
      throw Error(ErrorCode::InvalidArgument, "the wait list holds a null event", Argument::Queue);
  try {
    const cl::CommandQueue caller_queue(queue, /*retainObject=*/true);
    std::vector<cl::Event> wait;
    for (cl_event e : wait_list) wait.emplace_back(e, /*retainObject=*/true);
    cl::Event done;
    GemmRecord record = describe_nothing(plan);
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
      const detail::PreparedCall prepared = state_->prepare(plan, call);
      record = describe(prepared);
      state_->enqueue(caller_queue, prepared, call, wait, &done);
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
