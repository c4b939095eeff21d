/* The C API of libclgemm (C99 and C++): an opaque context handle, SGEMM on host arrays or on
 * OpenCL buffers with the CBLAS argument order, and status codes instead of exceptions. Every
 * function returns a clgemm_status; clgemm_last_error_message() has the full text of the last
 * failure on the calling thread (a build log included). No C++ exception leaves this API. */
#ifndef CLGEMM_CLGEMM_H
#define CLGEMM_CLGEMM_H

#include <stddef.h>
#include <stdint.h>

/* The OpenCL C types (cl_mem, cl_command_queue, ...). The library targets OpenCL 1.2; a
 * program that wants another version defines CL_TARGET_OPENCL_VERSION itself. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CBLAS values, so that CblasRowMajor, CblasTrans, ... can be passed as they are. */
enum {
  CLGEMM_ROW_MAJOR = 101,
  CLGEMM_COL_MAJOR = 102,
  CLGEMM_NO_TRANS = 111,
  CLGEMM_TRANS = 112,
  CLGEMM_CONJ_TRANS = 113 /* the same as CLGEMM_TRANS for real data */
};

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
  CLGEMM_INVALID_PRECISION = 33,    /* not one of the clgemm_precision values */
  CLGEMM_UNSUPPORTED_PRECISION = 34, /* the chosen kernel cannot compute that precision */
  CLGEMM_FILE_ERROR = 35             /* a file clgemm reads or writes cannot be used */
} clgemm_status;

/* The arithmetic of the products of A and B (clgemm::Precision), set per context with
 * clgemm_context_set_precision, like cublasSetMathMode. FP32, the default, is what BLAS SGEMM
 * computes. TF32 rounds A and B to TF32 (10-bit mantissa, round to nearest, ties away from zero)
 * and accumulates in FP32; 3XTF32 splits each operand into a TF32 high and low part and adds three
 * TF32 products, for about FP32 accuracy. Both run on tensor cores where the device has them
 * (NVIDIA, compute capability 8.0 or newer) and on the portable kernel "blocked" elsewhere. */
typedef enum clgemm_precision {
  CLGEMM_PRECISION_FP32 = 0,
  CLGEMM_PRECISION_TF32 = 1,
  CLGEMM_PRECISION_3XTF32 = 2
} clgemm_precision;

/* A device and the programs built for it. A context may be used from several threads at once;
 * buffers, queues and events follow the OpenCL rules. */
typedef struct clgemm_context clgemm_context;

/* Opens a device. `platform` and `device` are each an index ("0") or a case-insensitive name
 * substring; NULL or "" falls back to $CLGEMM_PLATFORM / $CLGEMM_DEVICE, then to the first
 * GPU, else accelerator, else CPU. On success *out is the new context; on failure, NULL. */
clgemm_status clgemm_context_create(const char* platform, const char* device, clgemm_context** out);

/* Works inside an OpenCL context the caller already has (retained, not taken over), so that
 * the caller's buffers and queues can be passed to clgemm_sgemm_buffers. */
clgemm_status clgemm_context_create_from_cl(cl_context context, cl_device_id device,
                                            clgemm_context** out);

/* Releases the context; NULL is ignored. */
void clgemm_context_destroy(clgemm_context* context);

/* The OpenCL context and device a clgemm context works in (not retained for the caller), and
 * the device's name; NULL for a NULL context. */
cl_context clgemm_context_cl_context(const clgemm_context* context);
cl_device_id clgemm_context_cl_device(const clgemm_context* context);
const char* clgemm_context_device_name(const clgemm_context* context);

/* Sets the precision (a clgemm_precision value) of the later clgemm_sgemm and
 * clgemm_sgemm_buffers calls on this context; a new context computes in FP32. A value that is
 * not a clgemm_precision returns CLGEMM_INVALID_PRECISION and keeps the setting. The default
 * kernel and "blocked" compute every precision, "tensorcore" only TF32 and 3XTF32 and only on
 * tensor cores, the other kernels only FP32: a call whose kernel cannot compute the context's
 * precision returns CLGEMM_UNSUPPORTED_PRECISION, C untouched. */
clgemm_status clgemm_context_set_precision(clgemm_context* context, int precision);

/* The context's precision into *out (CLGEMM_INVALID_ARGUMENT for a NULL out). */
clgemm_status clgemm_context_get_precision(const clgemm_context* context, int* out);

/* C = alpha * op(A) * op(B) + beta * C on host arrays, blocking. C is m x n, op(A) m x k,
 * op(B) k x n, each stored in `layout` with its leading dimension (pass a pointer past the
 * start for an offset). With beta = 0, C is not read. C is written only if the call succeeds.
 * `kernel` is NULL for the default, a name ("tile"), or a name with parameter overrides
 * ("coarsened:TILE=16,ITEM=4"). */
clgemm_status clgemm_sgemm(clgemm_context* context, int layout, int trans_a, int trans_b, int64_t m,
                           int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                           const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
                           const char* kernel);

/* The same on cl_mem buffers of this context, enqueued on `queue` (of this context and device)
 * without waiting. Offsets count elements from each buffer's start. `event`, when not NULL,
 * receives the event of the call's last launch (the caller releases it), complete once C holds
 * the result, or NULL on failure. */
clgemm_status clgemm_sgemm_buffers(clgemm_context* context, int layout, int trans_a, int trans_b,
                                   int64_t m, int64_t n, int64_t k, float alpha, cl_mem a,
                                   size_t a_offset, int64_t lda, cl_mem b, size_t b_offset,
                                   int64_t ldb, float beta, cl_mem c, size_t c_offset, int64_t ldc,
                                   cl_command_queue queue, cl_event* event, const char* kernel);

/* The library's version, "MAJOR.MINOR.PATCH" (never NULL). */
const char* clgemm_version(void);

/* A one-line description of a status, e.g. "invalid ldb" (never NULL). */
const char* clgemm_status_string(clgemm_status status);

/* The full message of the last failing call on this thread ("" if none failed yet); valid
 * until the next failing call on this thread. Successful calls leave it as it was. */
const char* clgemm_last_error_message(void);

#ifdef __cplusplus
}
#endif

#endif /* CLGEMM_CLGEMM_H */
