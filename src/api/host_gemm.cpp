// The host-array GEMM path: validate, plan (what runs, or nothing), check what the device can
// hold, build or reuse the programs, upload what is read (with a batch's product table and
// the bias), launch (once, or the copies, GEMM and reduction of a multi-launch call), download
// into a staging copy and only then write each product's C. On devices sharing memory
// with the host (PoCL on the CPU), A and B are used in place (CL_MEM_USE_HOST_PTR) instead of
// copied; CLGEMM_HOST_COPY=1 turns that off.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <vector>

#include "clgemm/errors.hpp"
#include "launch/context_state.hpp"
#include "support/error_boundary.hpp"

namespace clgemm {
namespace {

// A host array's part that the problem reads: from its offset to its last element.
struct HostSpan {
  const float* data;
  std::size_t elements;
  std::size_t bytes() const { return elements * sizeof(float); }
};

HostSpan span_of(const float* array, std::size_t offset, std::size_t end) {
  return {array ? array + offset : nullptr, end - offset};
}

bool zero_copy(const DeviceLimits& limits) {
  const char* force_copy = std::getenv("CLGEMM_HOST_COPY");
  return limits.host_unified_memory && !(force_copy && std::string(force_copy) == "1");
}

void require(const void* pointer, Argument which, const char* why) {
  if (!pointer)
    throw Error(ErrorCode::InvalidArgument,
                std::string("matrix ") + argument_name(which) + " is a null pointer, but " + why,
                which);
}

// Where each product's matrices start in the caller's arrays (elements), and the lowest of
// them: the host path uploads each array from there.
struct Placement {
  const GemmProblem& p;
  std::size_t a(std::int64_t i) const { return p.product(i).a_offset; }
  std::size_t b(std::int64_t i) const { return p.product(i).b_offset; }
  std::size_t c(std::int64_t i) const { return p.product(i).c_offset; }
  template <typename Offset>
  std::size_t lowest(Offset offset) const {
    std::size_t low = (this->*offset)(0);
    if (p.products.host)
      for (std::int64_t i = 1; i < p.batch; ++i) low = std::min(low, (this->*offset)(i));
    return low;
  }
  // Whether any product reads C (beta != 0).
  bool reads_c() const {
    if (!p.products.host) return p.beta != 0.0f;
    for (std::int64_t i = 0; i < p.batch; ++i)
      if (p.products.host[i].beta != 0.0f) return true;
    return false;
  }
};

void check_host_epilogue(const GemmProblem& problem) {
  const Epilogue& e = problem.epilogue;
  if (e.bias_buffer)
    throw Error(ErrorCode::InvalidArgument,
                "the bias is a cl_mem on the host-array path; give it as bias_data",
                Argument::Bias);
  if (e.bias != Bias::None && !e.bias_data)
    throw Error(ErrorCode::InvalidArgument,
                std::string("bias is ") + bias_name(e.bias) + ", but bias_data is a null pointer",
                Argument::Bias);
  if (problem.products.buffer)
    throw Error(ErrorCode::InvalidArgument,
                "the product table is a cl_mem on the host-array path; give it as products.host",
                Argument::Products);
}

// check_fits_device() for a problem already validated.
void check_validated_fits_device(const GemmProblem& problem, const DeviceLimits& limits) {
  // Bytes of each matrix the host path stages, from its lowest product's offset to its last
  // element (A and B only when they are read). validate_problem ensured that the element
  // counts fit a byte count.
  const bool operands = problem.reads_operands();
  const Placement at{problem};
  std::size_t total = 0;
  for (auto [which, elements, offset, staged] :
       {std::tuple{Argument::A, problem.a_elements(), &Placement::a, operands},
        std::tuple{Argument::B, problem.b_elements(), &Placement::b, operands},
        std::tuple{Argument::C, problem.c_elements(), &Placement::c, !problem.is_empty()}}) {
    if (!staged) continue;
    const char* what = argument_name(which);
    const std::size_t bytes = (elements - at.lowest(offset)) * sizeof(float);
    if (bytes > limits.max_allocation_bytes)
      throw Error(ErrorCode::AllocationTooLarge,
                  std::string("matrix ") + what + " needs " + std::to_string(bytes) +
                      " bytes, above CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
                      std::to_string(limits.max_allocation_bytes) + " of device '" + limits.name +
                      "'",
                  which);
    total += bytes;
  }
  // The bias vector is staged like the matrices, from its offset to its last element.
  if (problem.epilogue.bias != Bias::None && !problem.is_empty()) {
    const std::size_t bytes =
        (problem.bias_elements() - problem.epilogue.bias_offset) * sizeof(float);
    if (bytes > limits.max_allocation_bytes)
      throw Error(ErrorCode::AllocationTooLarge,
                  "the bias vector needs " + std::to_string(bytes) +
                      " bytes (offset to the last product's bias: (batch - 1) x bias_stride + "
                      "length), above CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
                      std::to_string(limits.max_allocation_bytes) + " of device '" + limits.name +
                      "'",
                  Argument::Bias);
    total += bytes;
  }
  if (total > limits.global_memory_bytes)
    throw Error(
        ErrorCode::AllocationTooLarge,
        std::string(problem.epilogue.bias != Bias::None ? "A, B, C and the bias" : "A, B and C") +
            " need " + std::to_string(total) +
            " bytes together, above CL_DEVICE_GLOBAL_MEM_SIZE = " +
            std::to_string(limits.global_memory_bytes) + " of device '" + limits.name + "'");
}

}  // namespace

void check_fits_device(const GemmProblem& problem, const DeviceLimits& limits) try {
  validate_problem(problem);
  check_validated_fits_device(problem, limits);
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

GemmRecord Context::sgemm(const GemmProblem& problem, const float* a, const float* b, float* c,
                          const RunSettings& settings) try {
  validate_problem(problem);
  check_host_epilogue(problem);
  detail::KernelCall call = detail::row_major_call(problem);
  const detail::CallPlan plan = state_->plan(settings, problem, call);
  if (plan.kind == detail::CallKind::Nothing) return record_of_nothing(plan);
  if (plan.kind == detail::CallKind::Gemm) {
    require(a, Argument::A, "the call reads it");
    require(b, Argument::B, "the call reads it");
  }
  require(c, Argument::C, "the call writes it");
  const DeviceLimits& limits = device();
  check_validated_fits_device(problem, limits);

  const Placement at{problem};
  const std::size_t a_base = at.lowest(&Placement::a), b_base = at.lowest(&Placement::b);
  const std::size_t c_base = at.lowest(&Placement::c);
  const HostSpan a_span = span_of(a, a_base, problem.a_elements());
  const HostSpan b_span = span_of(b, b_base, problem.b_elements());
  const HostSpan c_span = span_of(c, c_base, problem.c_elements());
  const HostSpan& first = call.column_major ? b_span : a_span;   // the kernel's A
  const HostSpan& second = call.column_major ? a_span : b_span;  // the kernel's B
  // Each span is uploaded from its lowest offset, so the kernel sees offsets counted from
  // there (zero without a table). In place (zero-copy), a span's alignment is its host
  // address's; copied, the device's.
  call.a.offset = call.b.offset = call.c.offset = 0;
  std::vector<BatchProduct> table;
  if (problem.products.host) {
    table.assign(problem.products.host, problem.products.host + problem.batch);
    for (BatchProduct& e : table) e.a_offset -= a_base, e.b_offset -= b_base, e.c_offset -= c_base;
    if (call.column_major)
      for (BatchProduct& e : table) std::swap(e.a_offset, e.b_offset);
  }
  const Epilogue& epilogue = problem.epilogue;
  const HostSpan bias_span =
      span_of(epilogue.bias_data, epilogue.bias_offset, problem.bias_elements());
  call.epilogue.bias_offset = 0;

  const bool in_place = zero_copy(limits);
  const std::size_t device_alignment = limits.base_address_align_bits / 8;
  call.a.base_alignment = in_place ? detail::pointer_alignment(first.data) : device_alignment;
  call.b.base_alignment = in_place ? detail::pointer_alignment(second.data) : device_alignment;
  const auto prepared = state_->prepared_call(plan, call);
  const GemmRecord& record = prepared->record;

  cl::CommandQueue queue = state_->acquire_queue();
  const std::size_t total_bytes =
      (plan.kind == detail::CallKind::Gemm ? a_span.bytes() + b_span.bytes() : 0) + c_span.bytes();
  try {
    const bool read_c = at.reads_c();  // BLAS: with beta = 0, C is never read
    auto input = [&](const HostSpan& span) {
      if (in_place)
        return cl::Buffer(state_->context, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, span.bytes(),
                          const_cast<float*>(span.data));
      cl::Buffer buffer(state_->context, CL_MEM_READ_ONLY, span.bytes());
      queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, span.bytes(), span.data);
      return buffer;
    };
    cl::Buffer a_buf, b_buf;
    if (plan.kind == detail::CallKind::Gemm) a_buf = input(first), b_buf = input(second);
    cl::Buffer c_buf(state_->context, CL_MEM_READ_WRITE, c_span.bytes());
    if (read_c) queue.enqueueWriteBuffer(c_buf, CL_FALSE, 0, c_span.bytes(), c_span.data);
    cl::Buffer table_buf, bias_buf;
    if (!table.empty()) {
      table_buf =
          cl::Buffer(state_->context, CL_MEM_READ_ONLY, table.size() * sizeof(BatchProduct));
      queue.enqueueWriteBuffer(table_buf, CL_FALSE, 0, table.size() * sizeof(BatchProduct),
                               table.data());
    }
    if (bias_span.elements) {
      bias_buf = cl::Buffer(state_->context, CL_MEM_READ_ONLY, bias_span.bytes());
      queue.enqueueWriteBuffer(bias_buf, CL_FALSE, 0, bias_span.bytes(), bias_span.data);
    }
    call.a.buffer = a_buf();
    call.b.buffer = b_buf();
    call.c.buffer = c_buf();
    call.products = table_buf();
    call.epilogue.bias_buffer = bias_buf();
    state_->enqueue(queue, prepared->call, call, {}, nullptr);

    // Download into a staging copy first, so C changes only once everything has succeeded,
    // and then only its m x n elements: the padding between lines stays the caller's.
    std::vector<float> result(c_span.elements);
    queue.enqueueReadBuffer(c_buf, CL_TRUE, 0, c_span.bytes(), result.data());
    const bool row_major = problem.layout == Layout::RowMajor;
    const std::int64_t lines = row_major ? problem.m : problem.n;
    const std::size_t length = std::size_t(row_major ? problem.n : problem.m);
    for (std::int64_t product = 0; product < problem.batch; ++product) {
      const std::size_t start = at.c(product) - c_base;
      for (std::int64_t line = 0; line < lines; ++line) {
        const std::size_t from = start + std::size_t(line) * std::size_t(problem.ldc);
        std::memcpy(c + c_base + from, result.data() + from, length * sizeof(float));
      }
    }
  } catch (const cl::Error& error) {
    // The queue may hold failed work; it is dropped rather than returned to the pool.
    if (error.err() == CL_MEM_OBJECT_ALLOCATION_FAILURE || error.err() == CL_OUT_OF_RESOURCES)
      throw Error(ErrorCode::AllocationTooLarge,
                  std::string("device '") + limits.name + "' could not allocate the " +
                      std::to_string(total_bytes) + " bytes of the call's matrices (" +
                      error.what() + " returned " + std::to_string(error.err()) + ")");
    throw OpenCLError(error.what(), error.err());
  }
  state_->release_queue(std::move(queue));
  return record;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace clgemm
