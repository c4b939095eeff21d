// The C API (include/clgemm/clgemm.h): thin wrappers that turn C arguments into a GemmProblem
// and RunSettings, call the C++ Context, and turn whatever it throws into a clgemm_status
// (see c_status.cpp). A clgemm_context is a clgemm::Context on the heap, with the precision
// (math mode) its later calls compute in.
#include <atomic>
#include <string>

#include "api/c_status.hpp"
#include "clgemm/clgemm.h"
#include "clgemm/errors.hpp"
#include "clgemm/gemm.hpp"

struct clgemm_context {
  clgemm::Context context;
  // A clgemm_precision value, read by every later clgemm_sgemm / clgemm_sgemm_buffers; atomic
  // because the context may be shared by threads.
  std::atomic<int> precision{CLGEMM_PRECISION_FP32};
};

namespace clgemm::detail {
namespace {

GemmProblem make_problem(int layout, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                         float alpha, int64_t lda, int64_t ldb, float beta, int64_t ldc) {
  GemmProblem p;
  p.layout = Layout(layout);
  p.trans_a = Transpose(trans_a);  // 113 (ConjTrans) is Trans for real data
  p.trans_b = Transpose(trans_b);
  p.m = m, p.n = n, p.k = k;
  p.alpha = alpha, p.beta = beta;
  p.lda = lda, p.ldb = ldb, p.ldc = ldc;
  return p;
}

clgemm_status null_handle() {
  return record_failure(CLGEMM_INVALID_HANDLE, "the clgemm_context argument is null");
}

bool is_precision(int value) {
  return value == CLGEMM_PRECISION_FP32 || value == CLGEMM_PRECISION_TF32 ||
         value == CLGEMM_PRECISION_3XTF32;
}

// The kernel specification with the context's precision.
RunSettings call_settings(const clgemm_context& context, const char* kernel) {
  RunSettings settings;
  if (kernel) {
    const KernelSelection selection = parse_kernel_selection(kernel);
    settings.kernel = selection.kernel;
    settings.overrides = selection.overrides;
  }
  settings.precision = Precision(context.precision.load());
  return settings;
}

Epilogue make_epilogue(const clgemm_epilogue* e) {
  Epilogue out;
  if (!e) return out;
  out.bias = Bias(e->bias);
  out.bias_data = e->bias_data;
  out.bias_buffer = e->bias_buffer;
  out.bias_offset = e->bias_offset;
  out.bias_stride = e->bias_stride;
  out.activation = Activation(e->activation);
  out.clamp_low = e->clamp_low, out.clamp_high = e->clamp_high;
  return out;
}

// A strided batch with its epilogue (offsets 0).
GemmProblem strided_problem(int layout, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                            float alpha, int64_t lda, int64_t stride_a, int64_t ldb,
                            int64_t stride_b, float beta, int64_t ldc, int64_t stride_c,
                            int64_t batch, const clgemm_epilogue* epilogue) {
  GemmProblem p = make_problem(layout, trans_a, trans_b, m, n, k, alpha, lda, ldb, beta, ldc);
  p.batch = batch;
  p.stride_a = stride_a, p.stride_b = stride_b, p.stride_c = stride_c;
  p.epilogue = make_epilogue(epilogue);
  return p;
}

// A null cl_mem has a status of its own: the C++ layer names the buffer at fault.
clgemm_status null_buffer_status(clgemm_status status, cl_mem a, cl_mem b, cl_mem c) {
  if (status == CLGEMM_INVALID_BUFFER_A && !a) return CLGEMM_NULL_A;
  if (status == CLGEMM_INVALID_BUFFER_B && !b) return CLGEMM_NULL_B;
  if (status == CLGEMM_INVALID_BUFFER_C && !c) return CLGEMM_NULL_C;
  return status;
}

}  // namespace
}  // namespace clgemm::detail

static_assert(sizeof(clgemm_batch_product) == sizeof(clgemm::BatchProduct),
              "clgemm_batch_product is clgemm::BatchProduct");

using clgemm::detail::CallPath;
using clgemm::detail::guarded;

extern "C" {

clgemm_status clgemm_context_create(const char* platform, const char* device,
                                    clgemm_context** out) {
  return guarded(CallPath::Other, [&] {
    if (!out)
      return clgemm::detail::record_failure(
          CLGEMM_INVALID_HANDLE, "the place for the new context (clgemm_context**) is null");
    *out = nullptr;
    clgemm::DeviceRequest request;
    if (platform) request.platform = platform;
    if (device) request.device = device;
    *out = new clgemm_context{clgemm::Context(request)};
    return CLGEMM_SUCCESS;
  });
}

clgemm_status clgemm_context_create_from_cl(cl_context context, cl_device_id device,
                                            clgemm_context** out) {
  return guarded(CallPath::Other, [&] {
    if (!out)
      return clgemm::detail::record_failure(
          CLGEMM_INVALID_HANDLE, "the place for the new context (clgemm_context**) is null");
    *out = nullptr;
    *out = new clgemm_context{clgemm::Context(context, device)};
    return CLGEMM_SUCCESS;
  });
}

void clgemm_context_destroy(clgemm_context* context) {
  delete context;  // ~Context does not throw
}

cl_context clgemm_context_cl_context(const clgemm_context* context) {
  return context ? context->context.opencl_context() : nullptr;
}

cl_device_id clgemm_context_cl_device(const clgemm_context* context) {
  return context ? context->context.opencl_device() : nullptr;
}

const char* clgemm_context_device_name(const clgemm_context* context) {
  return context ? context->context.device().name.c_str() : nullptr;
}

clgemm_status clgemm_context_set_precision(clgemm_context* context, int precision) {
  return guarded(CallPath::Other, [&] {
    if (!context) return clgemm::detail::null_handle();
    if (!clgemm::detail::is_precision(precision))
      return clgemm::detail::record_failure(
          CLGEMM_INVALID_PRECISION,
          "precision = " + std::to_string(precision) +
              " is none of CLGEMM_PRECISION_FP32 (0), CLGEMM_PRECISION_TF32 (1) and "
              "CLGEMM_PRECISION_3XTF32 (2); the context keeps " +
              clgemm::precision_name(clgemm::Precision(context->precision.load())));
    context->precision.store(precision);
    return CLGEMM_SUCCESS;
  });
}

clgemm_status clgemm_context_get_precision(const clgemm_context* context, int* out) {
  return guarded(CallPath::Other, [&] {
    if (!context) return clgemm::detail::null_handle();
    if (!out)
      return clgemm::detail::record_failure(CLGEMM_INVALID_ARGUMENT,
                                            "the place for the precision (int* out) is null");
    *out = context->precision.load();
    return CLGEMM_SUCCESS;
  });
}

clgemm_status clgemm_context_warm_up(clgemm_context* context, const char* kernel,
                                     clgemm_warm_up_report* report) {
  return guarded(CallPath::Other, [&] {
    if (!context) return clgemm::detail::null_handle();
    const clgemm::WarmUpReport done =
        context->context.warm_up(clgemm::detail::call_settings(*context, kernel));
    if (report)
      *report = {done.programs,  done.compiled, done.on_disk,
                 done.in_memory, done.failed,   done.seconds};
    if (done.failed > 0)
      return clgemm::detail::record_failure(
          CLGEMM_BUILD_FAILED, std::to_string(done.failed) + " of " +
                                   std::to_string(done.programs) +
                                   " programs failed to build; the first: " + done.first_error);
    return CLGEMM_SUCCESS;
  });
}

clgemm_status clgemm_sgemm(clgemm_context* context, int layout, int trans_a, int trans_b, int64_t m,
                           int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                           const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
                           const char* kernel) {
  return guarded(CallPath::Host, [&] {
    if (!context) return clgemm::detail::null_handle();
    const auto problem =
        clgemm::detail::make_problem(layout, trans_a, trans_b, m, n, k, alpha, lda, ldb, beta, ldc);
    context->context.sgemm(problem, a, b, c, clgemm::detail::call_settings(*context, kernel));
    return CLGEMM_SUCCESS;
  });
}

clgemm_status clgemm_sgemm_buffers(clgemm_context* context, int layout, int trans_a, int trans_b,
                                   int64_t m, int64_t n, int64_t k, float alpha, cl_mem a,
                                   size_t a_offset, int64_t lda, cl_mem b, size_t b_offset,
                                   int64_t ldb, float beta, cl_mem c, size_t c_offset, int64_t ldc,
                                   cl_command_queue queue, cl_event* event, const char* kernel) {
  if (event) *event = nullptr;
  const clgemm_status status = guarded(CallPath::Buffers, [&] {
    if (!context) return clgemm::detail::null_handle();
    auto problem =
        clgemm::detail::make_problem(layout, trans_a, trans_b, m, n, k, alpha, lda, ldb, beta, ldc);
    problem.a_offset = a_offset, problem.b_offset = b_offset, problem.c_offset = c_offset;
    context->context.sgemm(problem, a, b, c, queue, event,
                           clgemm::detail::call_settings(*context, kernel));
    return CLGEMM_SUCCESS;
  });
  return clgemm::detail::null_buffer_status(status, a, b, c);
}

clgemm_status clgemm_sgemm_strided_batched(clgemm_context* context, int layout, int trans_a,
                                           int trans_b, int64_t m, int64_t n, int64_t k,
                                           float alpha, const float* a, int64_t lda,
                                           int64_t stride_a, const float* b, int64_t ldb,
                                           int64_t stride_b, float beta, float* c, int64_t ldc,
                                           int64_t stride_c, int64_t batch,
                                           const clgemm_epilogue* epilogue, const char* kernel) {
  return guarded(CallPath::Host, [&] {
    if (!context) return clgemm::detail::null_handle();
    const auto problem =
        clgemm::detail::strided_problem(layout, trans_a, trans_b, m, n, k, alpha, lda, stride_a,
                                        ldb, stride_b, beta, ldc, stride_c, batch, epilogue);
    context->context.sgemm(problem, a, b, c, clgemm::detail::call_settings(*context, kernel));
    return CLGEMM_SUCCESS;
  });
}

clgemm_status clgemm_sgemm_strided_batched_buffers(
    clgemm_context* context, int layout, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
    float alpha, cl_mem a, size_t a_offset, int64_t lda, int64_t stride_a, cl_mem b,
    size_t b_offset, int64_t ldb, int64_t stride_b, float beta, cl_mem c, size_t c_offset,
    int64_t ldc, int64_t stride_c, int64_t batch, const clgemm_epilogue* epilogue,
    cl_command_queue queue, cl_event* event, const char* kernel) {
  if (event) *event = nullptr;
  const clgemm_status status = guarded(CallPath::Buffers, [&] {
    if (!context) return clgemm::detail::null_handle();
    auto problem =
        clgemm::detail::strided_problem(layout, trans_a, trans_b, m, n, k, alpha, lda, stride_a,
                                        ldb, stride_b, beta, ldc, stride_c, batch, epilogue);
    problem.a_offset = a_offset, problem.b_offset = b_offset, problem.c_offset = c_offset;
    context->context.sgemm(problem, a, b, c, queue, event,
                           clgemm::detail::call_settings(*context, kernel));
    return CLGEMM_SUCCESS;
  });
  return clgemm::detail::null_buffer_status(status, a, b, c);
}

clgemm_status clgemm_sgemm_batched(clgemm_context* context, int layout, int trans_a, int trans_b,
                                   int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                                   const float* b, int64_t ldb, float* c, int64_t ldc,
                                   const clgemm_batch_product* products, int64_t batch,
                                   const clgemm_epilogue* epilogue, const char* kernel) {
  return guarded(CallPath::Host, [&] {
    if (!context) return clgemm::detail::null_handle();
    if (!products && batch > 0)
      return clgemm::detail::record_failure(CLGEMM_INVALID_PRODUCTS,
                                            "the product table (products) is a null pointer");
    auto problem =
        clgemm::detail::make_problem(layout, trans_a, trans_b, m, n, k, 1.0f, lda, ldb, 0.0f, ldc);
    problem.batch = batch;
    problem.products.host = reinterpret_cast<const clgemm::BatchProduct*>(products);
    problem.epilogue = clgemm::detail::make_epilogue(epilogue);
    context->context.sgemm(problem, a, b, c, clgemm::detail::call_settings(*context, kernel));
    return CLGEMM_SUCCESS;
  });
}

clgemm_status clgemm_sgemm_batched_buffers(clgemm_context* context, int layout, int trans_a,
                                           int trans_b, int64_t m, int64_t n, int64_t k, cl_mem a,
                                           int64_t lda, cl_mem b, int64_t ldb, cl_mem c,
                                           int64_t ldc, const clgemm_batch_product* products,
                                           cl_mem products_buffer, size_t products_offset,
                                           int64_t batch, const clgemm_epilogue* epilogue,
                                           cl_command_queue queue, cl_event* event,
                                           const char* kernel) {
  if (event) *event = nullptr;
  const clgemm_status status = guarded(CallPath::Buffers, [&] {
    if (!context) return clgemm::detail::null_handle();
    if (!products && !products_buffer && batch > 0)
      return clgemm::detail::record_failure(
          CLGEMM_INVALID_PRODUCTS, "no product table: products and products_buffer are both null");
    auto problem =
        clgemm::detail::make_problem(layout, trans_a, trans_b, m, n, k, 1.0f, lda, ldb, 0.0f, ldc);
    problem.batch = batch;
    problem.products = {reinterpret_cast<const clgemm::BatchProduct*>(products), products_buffer,
                        products_offset};
    problem.epilogue = clgemm::detail::make_epilogue(epilogue);
    context->context.sgemm(problem, a, b, c, queue, event,
                           clgemm::detail::call_settings(*context, kernel));
    return CLGEMM_SUCCESS;
  });
  return clgemm::detail::null_buffer_status(status, a, b, c);
}

}  // extern "C"
