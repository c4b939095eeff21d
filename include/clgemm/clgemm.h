/* The C API of libclgemm (C99 and C++): an opaque context handle, SGEMM on host arrays or on
 * OpenCL buffers with the CBLAS argument order, and status codes instead of exceptions. Every
 * function returns a clgemm_status; clgemm_last_error_message() has the full text of the last
 * failure on the calling thread (a build log included). No C++ exception leaves this API. */
#ifndef CLGEMM_CLGEMM_H
#define CLGEMM_CLGEMM_H

#include <stddef.h>
#include <stdint.h>

#include "clgemm/codes.h"
#include "clgemm/export.h"

/* The OpenCL C types (cl_mem, cl_command_queue, ...). The library targets OpenCL 1.2; a
 * program that wants another version defines CL_TARGET_OPENCL_VERSION itself. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CLGEMM_ROW_MAJOR, CLGEMM_TRANS, ...: the CBLAS values, in clgemm/codes.h with the precision
 * modes and the epilogue's kinds. */

/* One distinct code per kind of failure and per argument at fault. The values are stable. */
typedef enum clgemm_status {
  CLGEMM_SUCCESS = 0,
  CLGEMM_INVALID_M = 1, /* negative or above 2^31 - 1 (0 is a quick return) */
  CLGEMM_INVALID_N = 2,
  CLGEMM_INVALID_K = 3,
  CLGEMM_INVALID_LDA = 4, /* smaller than the stored line of A, or above 2^31 - 1 */
  CLGEMM_INVALID_LDB = 5,
  CLGEMM_INVALID_LDC = 6,
  CLGEMM_INVALID_LAYOUT = 7,  /* neither 101 nor 102 */
  CLGEMM_INVALID_TRANS_A = 8, /* none of 111, 112, 113 */
  CLGEMM_INVALID_TRANS_B = 9,
  CLGEMM_NULL_A = 10, /* A is a null pointer (host arrays) or a null cl_mem (buffers) */
  CLGEMM_NULL_B = 11,
  CLGEMM_NULL_C = 12,
  CLGEMM_INVALID_BUFFER_A = 13, /* not a cl_mem of this context */
  CLGEMM_INVALID_BUFFER_B = 14,
  CLGEMM_INVALID_BUFFER_C = 15,
  CLGEMM_BUFFER_A_TOO_SMALL = 16, /* the cl_mem holds less than offset + extent of A */
  CLGEMM_BUFFER_B_TOO_SMALL = 17,
  CLGEMM_BUFFER_C_TOO_SMALL = 18,
  CLGEMM_INVALID_QUEUE = 19,      /* null, or of another OpenCL context or device */
  CLGEMM_INVALID_HANDLE = 20,     /* a null clgemm_context, or a null place for a new one */
  CLGEMM_INVALID_CL_CONTEXT = 21, /* a null cl_context given to clgemm_context_create_from_cl */
  CLGEMM_INVALID_CL_DEVICE = 22,  /* a null cl_device_id given to clgemm_context_create_from_cl */
  CLGEMM_INVALID_ARGUMENT = 23,   /* any other bad argument */
  CLGEMM_UNKNOWN_KERNEL = 24,
  CLGEMM_INVALID_OPTION = 25, /* a malformed or unknown parameter, or a broken constraint */
  CLGEMM_NO_PLATFORM = 26,    /* no OpenCL platform, or no device matches the selectors */
  CLGEMM_KERNEL_SOURCE_NOT_FOUND = 27,
  CLGEMM_BUILD_FAILED = 28,         /* the message has the build log */
  CLGEMM_ALLOCATION_TOO_LARGE = 29, /* above CL_DEVICE_MAX_MEM_ALLOC_SIZE or device memory */
  CLGEMM_OPENCL_FAILURE = 30,       /* an OpenCL call failed at run time */
  CLGEMM_OUT_OF_HOST_MEMORY = 31,
  CLGEMM_UNKNOWN_ERROR = 32,
  CLGEMM_INVALID_PRECISION = 33,     /* not one of the clgemm_precision values */
  CLGEMM_UNSUPPORTED_PRECISION = 34, /* the chosen kernel cannot compute that precision */
  CLGEMM_FILE_ERROR = 35,            /* a file clgemm reads or writes cannot be used */
  CLGEMM_INVALID_BATCH = 36,         /* a negative batch count, or one above 2^31 - 1 */
  CLGEMM_INVALID_STRIDE_A = 37,      /* negative, or the last product lies beyond 2^64 bytes */
  CLGEMM_INVALID_STRIDE_B = 38,
  CLGEMM_INVALID_STRIDE_C = 39,  /* negative, or two products would write the same element */
  CLGEMM_OVERLAPPING_C = 40,     /* two table entries write the same element of C, or C shares
                                    elements with A, B or the bias on one cl_mem */
  CLGEMM_INVALID_PRODUCTS = 41,  /* a null, foreign or too short product table */
  CLGEMM_INVALID_BIAS = 42,      /* an unknown bias kind, or its vector missing or foreign */
  CLGEMM_BIAS_TOO_SMALL = 43,    /* the bias vector is shorter than the batch reads */
  CLGEMM_INVALID_ACTIVATION = 44 /* an unknown activation, or clamp bounds low > high / NaN */
} clgemm_status;

/* The arithmetic of the products of A and B (clgemm::Precision), set per context with
 * clgemm_context_set_precision, like cublasSetMathMode. FP32, the default, is what BLAS SGEMM
 * computes. TF32 rounds A and B to TF32 (10-bit mantissa, round to nearest, ties away from zero)
 * and accumulates in FP32; 3XTF32 splits each operand into a TF32 high and low part and adds three
 * TF32 products, for about FP32 accuracy. Both run on tensor cores where the device has them
 * (NVIDIA, compute capability 8.0 or newer) and on the portable kernel "blocked" elsewhere. */
/* clgemm_precision: CLGEMM_PRECISION_FP32, CLGEMM_PRECISION_TF32, CLGEMM_PRECISION_3XTF32
 * (clgemm/codes.h). */

/* A device and the programs built for it. A context may be used from several threads at once;
 * buffers, queues and events follow the OpenCL rules. */
typedef struct clgemm_context clgemm_context;

/* Opens a device. `platform` and `device` are each an index ("0") or a case-insensitive name
 * substring; NULL or "" falls back to $CLGEMM_PLATFORM / $CLGEMM_DEVICE, then to the first
 * GPU, else accelerator, else CPU. On success *out is the new context; on failure, NULL. */
CLGEMM_API clgemm_status clgemm_context_create(const char* platform, const char* device,
                                               clgemm_context** out);

/* Works inside an OpenCL context the caller already has (retained, not taken over), so that
 * the caller's buffers and queues can be passed to clgemm_sgemm_buffers. */
CLGEMM_API clgemm_status clgemm_context_create_from_cl(cl_context context, cl_device_id device,
                                                       clgemm_context** out);

/* Releases the context; NULL is ignored. */
CLGEMM_API void clgemm_context_destroy(clgemm_context* context);

/* The OpenCL context and device a clgemm context works in (not retained for the caller), and
 * the device's name; NULL for a NULL context. */
CLGEMM_API cl_context clgemm_context_cl_context(const clgemm_context* context);
CLGEMM_API cl_device_id clgemm_context_cl_device(const clgemm_context* context);
CLGEMM_API const char* clgemm_context_device_name(const clgemm_context* context);

/* Sets the precision (a clgemm_precision value) of the later clgemm_sgemm and
 * clgemm_sgemm_buffers calls on this context; a new context computes in FP32. A value that is
 * not a clgemm_precision returns CLGEMM_INVALID_PRECISION and keeps the setting. The default
 * kernel and "blocked" compute every precision, "tensorcore" only TF32 and 3XTF32 and only on
 * tensor cores, the other kernels only FP32: a call whose kernel cannot compute the context's
 * precision returns CLGEMM_UNSUPPORTED_PRECISION, C untouched. */
CLGEMM_API clgemm_status clgemm_context_set_precision(clgemm_context* context, int precision);

/* The context's precision into *out (CLGEMM_INVALID_ARGUMENT for a NULL out). */
CLGEMM_API clgemm_status clgemm_context_get_precision(const clgemm_context* context, int* out);

/* What clgemm_context_warm_up did (clgemm/warm.hpp's WarmUpReport). */
typedef struct clgemm_warm_up_report {
  size_t programs; /* the set's size */
  size_t compiled, on_disk, in_memory, failed;
  double seconds;
} clgemm_warm_up_report;

/* Builds ahead, in the context's precision, every program a call with `kernel` (NULL or "auto":
 * every kernel `auto` may choose on this device; else a name with overrides, as for
 * clgemm_sgemm) may need, so that later calls compile nothing: programs already built or in
 * the disk cache are left, the others compiled and stored there. Blocking. `report` may be
 * NULL. A build that fails is counted in report->failed and the others go on; the call then
 * returns CLGEMM_BUILD_FAILED with the first failure in clgemm_last_error_message(). */
CLGEMM_API clgemm_status clgemm_context_warm_up(clgemm_context* context, const char* kernel,
                                                clgemm_warm_up_report* report);

/* C = alpha * op(A) * op(B) + beta * C on host arrays, blocking. C is m x n, op(A) m x k,
 * op(B) k x n, each stored in `layout` with its leading dimension (pass a pointer past the
 * start for an offset). With beta = 0, C is not read. C is written only if the call succeeds.
 * `kernel` is NULL for the default, a name ("tile"), or a name with parameter overrides
 * ("coarsened:TILE=16,ITEM=4"). */
CLGEMM_API clgemm_status clgemm_sgemm(clgemm_context* context, int layout, int trans_a, int trans_b,
                                      int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                                      int64_t lda, const float* b, int64_t ldb, float beta,
                                      float* c, int64_t ldc, const char* kernel);

/* The same on cl_mem buffers of this context, enqueued on `queue` (of this context and device)
 * without waiting. Offsets count elements from each buffer's start. `event`, when not NULL,
 * receives the event of the call's last launch (the caller releases it), complete once C holds
 * the result, or NULL on failure. C must share no element with A or B on one memory object
 * (sub-buffers are compared in their parent): CLGEMM_OVERLAPPING_C otherwise. */
CLGEMM_API clgemm_status clgemm_sgemm_buffers(clgemm_context* context, int layout, int trans_a,
                                              int trans_b, int64_t m, int64_t n, int64_t k,
                                              float alpha, cl_mem a, size_t a_offset, int64_t lda,
                                              cl_mem b, size_t b_offset, int64_t ldb, float beta,
                                              cl_mem c, size_t c_offset, int64_t ldc,
                                              cl_command_queue queue, cl_event* event,
                                              const char* kernel);

/* The library's version, "MAJOR.MINOR.PATCH" (never NULL). */
CLGEMM_API const char* clgemm_version(void);

/* A one-line description of a status, e.g. "invalid ldb" (never NULL). */
CLGEMM_API const char* clgemm_status_string(clgemm_status status);

/* The full message of the last failing call on this thread ("" if none failed yet); valid
 * until the next failing call on this thread. Successful calls leave it as it was. */
CLGEMM_API const char* clgemm_last_error_message(void);

/* ---- Batched GEMM and fused epilogues ------------------------------------------------- */

/* The epilogue of a call: C = act(alpha * op(A) * op(B) + beta * C + bias), applied in the
 * kernel's store. bias is one of the CLGEMM_BIAS_ values: a vector of M values (one per row of
 * C) or N values (one per column); product p of a batch adds the vector at bias_offset +
 * p * bias_stride (0 shares one vector). bias_data is the vector on the host-array entry
 * points, bias_buffer on the buffer ones (the other stays NULL). activation is one of the
 * CLGEMM_ACTIVATION_ values; GELU is the tanh form, and NaN passes through every activation.
 * A NULL clgemm_epilogue* is the identity. */
/* The CLGEMM_BIAS_ and CLGEMM_ACTIVATION_ values are in clgemm/codes.h. */
typedef struct clgemm_epilogue {
  int bias;
  const float* bias_data;
  cl_mem bias_buffer;
  size_t bias_offset;
  int64_t bias_stride;
  int activation;
  float clamp_low, clamp_high;
} clgemm_epilogue;

/* One product of a batch given by a table: its offsets (elements from each array's or
 * buffer's start) and scalars. 32 bytes, the layout kernels read. */
typedef struct clgemm_batch_product {
  cl_ulong a_offset, b_offset, c_offset;
  cl_float alpha, beta;
} clgemm_batch_product;

/* `batch` products C_p = alpha * op(A_p) * op(B_p) + beta * C_p with A_p at a + p * stride_a
 * (elements), likewise B_p and C_p, with the epilogue. A stride of 0 for A or B broadcasts it;
 * stride_c must separate the products (at least one C's extent). batch = 0 is a quick return.
 * On host arrays, blocking; C is written only if the call succeeds. */
CLGEMM_API clgemm_status clgemm_sgemm_strided_batched(
    clgemm_context* context, int layout, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
    float alpha, const float* a, int64_t lda, int64_t stride_a, const float* b, int64_t ldb,
    int64_t stride_b, float beta, float* c, int64_t ldc, int64_t stride_c, int64_t batch,
    const clgemm_epilogue* epilogue, const char* kernel);
/* The same on cl_mem buffers, enqueued on `queue` without waiting (see clgemm_sgemm_buffers). */
CLGEMM_API clgemm_status clgemm_sgemm_strided_batched_buffers(
    clgemm_context* context, int layout, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
    float alpha, cl_mem a, size_t a_offset, int64_t lda, int64_t stride_a, cl_mem b,
    size_t b_offset, int64_t ldb, int64_t stride_b, float beta, cl_mem c, size_t c_offset,
    int64_t ldc, int64_t stride_c, int64_t batch, const clgemm_epilogue* epilogue,
    cl_command_queue queue, cl_event* event, const char* kernel);
/* `batch` products, product p with the offsets, alpha and beta of products[p] (CLBlast's
 * GemmBatched). No two entries' C may share an element. On host arrays, blocking. */
CLGEMM_API clgemm_status clgemm_sgemm_batched(clgemm_context* context, int layout, int trans_a,
                                              int trans_b, int64_t m, int64_t n, int64_t k,
                                              const float* a, int64_t lda, const float* b,
                                              int64_t ldb, float* c, int64_t ldc,
                                              const clgemm_batch_product* products, int64_t batch,
                                              const clgemm_epilogue* epilogue, const char* kernel);
/* The same on cl_mem buffers: the table is `products` on the host, or `products_buffer` (a
 * cl_mem of the context holding entries from entry `products_offset` on; the other NULL),
 * which is read back once, after the queue's earlier work, to be validated: with
 * `products_buffer` the call BLOCKS until everything enqueued before it on `queue` has run
 * (with `products` on the host it returns at once, like the other _buffers calls). */
CLGEMM_API clgemm_status clgemm_sgemm_batched_buffers(
    clgemm_context* context, int layout, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
    cl_mem a, int64_t lda, cl_mem b, int64_t ldb, cl_mem c, int64_t ldc,
    const clgemm_batch_product* products, cl_mem products_buffer, size_t products_offset,
    int64_t batch, const clgemm_epilogue* epilogue, cl_command_queue queue, cl_event* event,
    const char* kernel);

#ifdef __cplusplus
}
#endif

#endif /* CLGEMM_CLGEMM_H */
