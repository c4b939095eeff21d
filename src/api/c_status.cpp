// The C API's status codes: their one-line descriptions, the mapping from clgemm::Error (code
// and argument) and other exceptions to a status, and the thread-local last error message.
#include "api/c_status.hpp"

#include <cstring>
#include <new>
#include <string>

#include "clgemm/errors.hpp"

namespace clgemm::detail {
namespace {

thread_local std::string last_message;
// Used when the message itself could not be stored (no memory for the string).
thread_local const char* last_fallback = nullptr;

// The one table from (code, argument) to status. A row with Argument::None is the code's
// status for any argument without a row of its own; `buffers` is the status on the buffer
// path where it differs (a null or foreign cl_mem rather than a null host pointer).
struct StatusRow {
  ErrorCode code;
  Argument argument;
  clgemm_status host, buffers;
};
constexpr StatusRow kStatusTable[] = {
    {ErrorCode::InvalidSize, Argument::M, CLGEMM_INVALID_M, CLGEMM_INVALID_M},
    {ErrorCode::InvalidSize, Argument::N, CLGEMM_INVALID_N, CLGEMM_INVALID_N},
    {ErrorCode::InvalidSize, Argument::K, CLGEMM_INVALID_K, CLGEMM_INVALID_K},
    // An extent (offset + lines x leading dimension) beyond 64 bits: no buffer holds it.
    {ErrorCode::InvalidSize, Argument::A, CLGEMM_BUFFER_A_TOO_SMALL, CLGEMM_BUFFER_A_TOO_SMALL},
    {ErrorCode::InvalidSize, Argument::B, CLGEMM_BUFFER_B_TOO_SMALL, CLGEMM_BUFFER_B_TOO_SMALL},
    {ErrorCode::InvalidSize, Argument::C, CLGEMM_BUFFER_C_TOO_SMALL, CLGEMM_BUFFER_C_TOO_SMALL},
    {ErrorCode::InvalidSize, Argument::None, CLGEMM_INVALID_ARGUMENT, CLGEMM_INVALID_ARGUMENT},
    {ErrorCode::InvalidLeadingDimension, Argument::Lda, CLGEMM_INVALID_LDA, CLGEMM_INVALID_LDA},
    {ErrorCode::InvalidLeadingDimension, Argument::Ldb, CLGEMM_INVALID_LDB, CLGEMM_INVALID_LDB},
    {ErrorCode::InvalidLeadingDimension, Argument::Ldc, CLGEMM_INVALID_LDC, CLGEMM_INVALID_LDC},
    {ErrorCode::InvalidLeadingDimension, Argument::None, CLGEMM_INVALID_ARGUMENT,
     CLGEMM_INVALID_ARGUMENT},
    {ErrorCode::InvalidArgument, Argument::Layout, CLGEMM_INVALID_LAYOUT, CLGEMM_INVALID_LAYOUT},
    {ErrorCode::InvalidArgument, Argument::TransA, CLGEMM_INVALID_TRANS_A, CLGEMM_INVALID_TRANS_A},
    {ErrorCode::InvalidArgument, Argument::TransB, CLGEMM_INVALID_TRANS_B, CLGEMM_INVALID_TRANS_B},
    {ErrorCode::InvalidArgument, Argument::A, CLGEMM_NULL_A, CLGEMM_INVALID_BUFFER_A},
    {ErrorCode::InvalidArgument, Argument::B, CLGEMM_NULL_B, CLGEMM_INVALID_BUFFER_B},
    {ErrorCode::InvalidArgument, Argument::C, CLGEMM_NULL_C, CLGEMM_INVALID_BUFFER_C},
    {ErrorCode::InvalidArgument, Argument::Queue, CLGEMM_INVALID_QUEUE, CLGEMM_INVALID_QUEUE},
    {ErrorCode::InvalidArgument, Argument::OpenCLContext, CLGEMM_INVALID_CL_CONTEXT,
     CLGEMM_INVALID_CL_CONTEXT},
    {ErrorCode::InvalidArgument, Argument::OpenCLDevice, CLGEMM_INVALID_CL_DEVICE,
     CLGEMM_INVALID_CL_DEVICE},
    {ErrorCode::InvalidArgument, Argument::Precision, CLGEMM_INVALID_PRECISION,
     CLGEMM_INVALID_PRECISION},
    {ErrorCode::InvalidArgument, Argument::None, CLGEMM_INVALID_ARGUMENT, CLGEMM_INVALID_ARGUMENT},
    {ErrorCode::BufferTooSmall, Argument::A, CLGEMM_BUFFER_A_TOO_SMALL, CLGEMM_BUFFER_A_TOO_SMALL},
    {ErrorCode::BufferTooSmall, Argument::B, CLGEMM_BUFFER_B_TOO_SMALL, CLGEMM_BUFFER_B_TOO_SMALL},
    {ErrorCode::BufferTooSmall, Argument::C, CLGEMM_BUFFER_C_TOO_SMALL, CLGEMM_BUFFER_C_TOO_SMALL},
    {ErrorCode::BufferTooSmall, Argument::None, CLGEMM_INVALID_ARGUMENT, CLGEMM_INVALID_ARGUMENT},
    {ErrorCode::UnknownKernel, Argument::None, CLGEMM_UNKNOWN_KERNEL, CLGEMM_UNKNOWN_KERNEL},
    {ErrorCode::InvalidOption, Argument::None, CLGEMM_INVALID_OPTION, CLGEMM_INVALID_OPTION},
    {ErrorCode::NoPlatform, Argument::None, CLGEMM_NO_PLATFORM, CLGEMM_NO_PLATFORM},
    {ErrorCode::KernelSourceNotFound, Argument::None, CLGEMM_KERNEL_SOURCE_NOT_FOUND,
     CLGEMM_KERNEL_SOURCE_NOT_FOUND},
    {ErrorCode::BuildFailed, Argument::None, CLGEMM_BUILD_FAILED, CLGEMM_BUILD_FAILED},
    {ErrorCode::AllocationTooLarge, Argument::None, CLGEMM_ALLOCATION_TOO_LARGE,
     CLGEMM_ALLOCATION_TOO_LARGE},
    {ErrorCode::OpenCLFailure, Argument::None, CLGEMM_OPENCL_FAILURE, CLGEMM_OPENCL_FAILURE},
    {ErrorCode::UnsupportedPrecision, Argument::None, CLGEMM_UNSUPPORTED_PRECISION,
     CLGEMM_UNSUPPORTED_PRECISION},
    {ErrorCode::FileError, Argument::None, CLGEMM_FILE_ERROR, CLGEMM_FILE_ERROR},
    {ErrorCode::OutOfHostMemory, Argument::None, CLGEMM_OUT_OF_HOST_MEMORY,
     CLGEMM_OUT_OF_HOST_MEMORY},
    {ErrorCode::Internal, Argument::None, CLGEMM_UNKNOWN_ERROR, CLGEMM_UNKNOWN_ERROR},
    {ErrorCode::InvalidSize, Argument::Batch, CLGEMM_INVALID_BATCH, CLGEMM_INVALID_BATCH},
    {ErrorCode::InvalidArgument, Argument::StrideA, CLGEMM_INVALID_STRIDE_A,
     CLGEMM_INVALID_STRIDE_A},
    // A stride that carries the last product beyond 64 bits of bytes, on either path.
    {ErrorCode::InvalidSize, Argument::StrideA, CLGEMM_INVALID_STRIDE_A, CLGEMM_INVALID_STRIDE_A},
    {ErrorCode::InvalidSize, Argument::StrideB, CLGEMM_INVALID_STRIDE_B, CLGEMM_INVALID_STRIDE_B},
    {ErrorCode::InvalidSize, Argument::StrideC, CLGEMM_INVALID_STRIDE_C, CLGEMM_INVALID_STRIDE_C},
    {ErrorCode::InvalidArgument, Argument::StrideB, CLGEMM_INVALID_STRIDE_B,
     CLGEMM_INVALID_STRIDE_B},
    {ErrorCode::InvalidArgument, Argument::StrideC, CLGEMM_INVALID_STRIDE_C,
     CLGEMM_INVALID_STRIDE_C},
    {ErrorCode::OverlappingOutput, Argument::StrideC, CLGEMM_INVALID_STRIDE_C,
     CLGEMM_INVALID_STRIDE_C},
    {ErrorCode::OverlappingOutput, Argument::None, CLGEMM_OVERLAPPING_C, CLGEMM_OVERLAPPING_C},
    {ErrorCode::InvalidArgument, Argument::Products, CLGEMM_INVALID_PRODUCTS,
     CLGEMM_INVALID_PRODUCTS},
    {ErrorCode::InvalidSize, Argument::Products, CLGEMM_INVALID_PRODUCTS, CLGEMM_INVALID_PRODUCTS},
    {ErrorCode::BufferTooSmall, Argument::Products, CLGEMM_INVALID_PRODUCTS,
     CLGEMM_INVALID_PRODUCTS},
    {ErrorCode::InvalidArgument, Argument::Bias, CLGEMM_INVALID_BIAS, CLGEMM_INVALID_BIAS},
    {ErrorCode::InvalidSize, Argument::Bias, CLGEMM_BIAS_TOO_SMALL, CLGEMM_BIAS_TOO_SMALL},
    {ErrorCode::BufferTooSmall, Argument::Bias, CLGEMM_BIAS_TOO_SMALL, CLGEMM_BIAS_TOO_SMALL},
    {ErrorCode::InvalidArgument, Argument::Activation, CLGEMM_INVALID_ACTIVATION,
     CLGEMM_INVALID_ACTIVATION},
};

clgemm_status status_of(const Error& error, CallPath path) {
  const StatusRow* fallback = nullptr;
  for (const StatusRow& row : kStatusTable) {
    if (row.code != error.code()) continue;
    if (row.argument == error.argument()) return path == CallPath::Buffers ? row.buffers : row.host;
    if (row.argument == Argument::None) fallback = &row;
  }
  if (!fallback) return CLGEMM_UNKNOWN_ERROR;
  return path == CallPath::Buffers ? fallback->buffers : fallback->host;
}

}  // namespace

clgemm_status record_failure(clgemm_status status, const std::string& message) noexcept {
  try {
    last_message = message;
    last_fallback = nullptr;
  } catch (...) {
    last_fallback = "out of host memory while storing the error message";
  }
  return status;
}

clgemm_status record_current_exception(CallPath path) noexcept {
  try {
    throw;
  } catch (const Error& error) {
    return record_failure(status_of(error, path), error.what());
  } catch (const std::bad_alloc& error) {
    return record_failure(CLGEMM_OUT_OF_HOST_MEMORY,
                          std::string("out of host memory (") + error.what() + ")");
  } catch (const std::exception& error) {
    return record_failure(CLGEMM_UNKNOWN_ERROR, std::string("unexpected error: ") + error.what());
  } catch (...) {
    return record_failure(CLGEMM_UNKNOWN_ERROR, "unexpected error of a non-standard type");
  }
}

}  // namespace clgemm::detail

extern "C" const char* clgemm_last_error_message(void) {
  using namespace clgemm::detail;
  return last_fallback ? last_fallback : last_message.c_str();
}

extern "C" const char* clgemm_status_string(clgemm_status status) {
  // A C caller may pass any int. Read as the enum, a value that names no status is undefined
  // behaviour in C++, so the switch reads the argument's bits as an int.
  static_assert(sizeof(clgemm_status) == sizeof(int), "clgemm_status is an int in the C ABI");
  int code;
  std::memcpy(&code, &status, sizeof code);
  switch (code) {
    case CLGEMM_SUCCESS:
      return "success";
    case CLGEMM_INVALID_M:
      return "invalid M (negative or above 2^31 - 1)";
    case CLGEMM_INVALID_N:
      return "invalid N (negative or above 2^31 - 1)";
    case CLGEMM_INVALID_K:
      return "invalid K (negative or above 2^31 - 1)";
    case CLGEMM_INVALID_LDA:
      return "invalid lda (smaller than a stored line of A)";
    case CLGEMM_INVALID_LDB:
      return "invalid ldb (smaller than a stored line of B)";
    case CLGEMM_INVALID_LDC:
      return "invalid ldc (smaller than a stored line of C)";
    case CLGEMM_INVALID_LAYOUT:
      return "invalid layout (neither row-major 101 nor column-major 102)";
    case CLGEMM_INVALID_TRANS_A:
      return "invalid transA (none of 111, 112, 113)";
    case CLGEMM_INVALID_TRANS_B:
      return "invalid transB (none of 111, 112, 113)";
    case CLGEMM_NULL_A:
      return "A is null";
    case CLGEMM_NULL_B:
      return "B is null";
    case CLGEMM_NULL_C:
      return "C is null";
    case CLGEMM_INVALID_BUFFER_A:
      return "buffer A is not a cl_mem of this context";
    case CLGEMM_INVALID_BUFFER_B:
      return "buffer B is not a cl_mem of this context";
    case CLGEMM_INVALID_BUFFER_C:
      return "buffer C is not a cl_mem of this context";
    case CLGEMM_BUFFER_A_TOO_SMALL:
      return "buffer A is smaller than the problem reads";
    case CLGEMM_BUFFER_B_TOO_SMALL:
      return "buffer B is smaller than the problem reads";
    case CLGEMM_BUFFER_C_TOO_SMALL:
      return "buffer C is smaller than the problem reads";
    case CLGEMM_INVALID_QUEUE:
      return "invalid command queue (null, or of another context or device)";
    case CLGEMM_INVALID_HANDLE:
      return "invalid clgemm context handle (null)";
    case CLGEMM_INVALID_CL_CONTEXT:
      return "invalid cl_context (null)";
    case CLGEMM_INVALID_CL_DEVICE:
      return "invalid cl_device_id (null)";
    case CLGEMM_INVALID_ARGUMENT:
      return "invalid argument";
    case CLGEMM_UNKNOWN_KERNEL:
      return "unknown kernel name";
    case CLGEMM_INVALID_OPTION:
      return "invalid kernel parameter or combination of parameters";
    case CLGEMM_NO_PLATFORM:
      return "no OpenCL platform, or no device matches the request";
    case CLGEMM_KERNEL_SOURCE_NOT_FOUND:
      return "kernel source not found (set CLGEMM_KERNEL_DIR)";
    case CLGEMM_BUILD_FAILED:
      return "kernel build failed (see clgemm_last_error_message for the log)";
    case CLGEMM_ALLOCATION_TOO_LARGE:
      return "allocation too large for the device";
    case CLGEMM_OPENCL_FAILURE:
      return "an OpenCL call failed";
    case CLGEMM_OUT_OF_HOST_MEMORY:
      return "out of host memory";
    case CLGEMM_UNKNOWN_ERROR:
      return "unknown error";
    case CLGEMM_INVALID_PRECISION:
      return "invalid precision (not CLGEMM_PRECISION_FP32, _TF32 or _3XTF32)";
    case CLGEMM_UNSUPPORTED_PRECISION:
      return "the kernel or device cannot compute the requested precision";
    case CLGEMM_FILE_ERROR:
      return "a file clgemm reads or writes cannot be used (see the message)";
    case CLGEMM_INVALID_BATCH:
      return "invalid batch count (negative or above 2^31 - 1)";
    case CLGEMM_INVALID_STRIDE_A:
      return "invalid stride_a (negative)";
    case CLGEMM_INVALID_STRIDE_B:
      return "invalid stride_b (negative)";
    case CLGEMM_INVALID_STRIDE_C:
      return "invalid stride_c (negative, or smaller than one C, so products would overlap)";
    case CLGEMM_OVERLAPPING_C:
      return "the product table's entries write overlapping ranges of C";
    case CLGEMM_INVALID_PRODUCTS:
      return "invalid product table (null, foreign, too short, or with strides or offsets)";
    case CLGEMM_INVALID_BIAS:
      return "invalid bias (unknown kind, or its vector missing or not of this context)";
    case CLGEMM_BIAS_TOO_SMALL:
      return "the bias vector is shorter than the batch reads";
    case CLGEMM_INVALID_ACTIVATION:
      return "invalid activation (unknown, or clamp bounds low > high or NaN)";
  }
  return "unrecognized status code";
}
