// The C API's status codes: their one-line descriptions, the mapping from clgemm::Error (code
// and argument) and other exceptions to a status, and the thread-local last error message.
#include "c_status.hpp"

#include <new>
#include <string>

#include "clgemm/errors.hpp"

namespace clgemm::detail {
namespace {

thread_local std::string last_message;
// Used when the message itself could not be stored (no memory for the string).
thread_local const char* last_fallback = nullptr;

// The status for `code` with `argument` at fault, on `path`.
clgemm_status status_of(const Error& error, CallPath path) {
  const std::string& arg = error.argument();
  const bool buffers = path == CallPath::Buffers;
  switch (error.code()) {
    case ErrorCode::InvalidSize:
      if (arg == "M") return CLGEMM_INVALID_M;
      if (arg == "N") return CLGEMM_INVALID_N;
      if (arg == "K") return CLGEMM_INVALID_K;
      // An extent (offset + lines x leading dimension) beyond 64 bits: no buffer holds it.
      if (arg == "A") return CLGEMM_BUFFER_A_TOO_SMALL;
      if (arg == "B") return CLGEMM_BUFFER_B_TOO_SMALL;
      if (arg == "C") return CLGEMM_BUFFER_C_TOO_SMALL;
      return CLGEMM_INVALID_ARGUMENT;
    case ErrorCode::InvalidLeadingDimension:
      if (arg == "lda") return CLGEMM_INVALID_LDA;
      if (arg == "ldb") return CLGEMM_INVALID_LDB;
      if (arg == "ldc") return CLGEMM_INVALID_LDC;
      return CLGEMM_INVALID_ARGUMENT;
    case ErrorCode::InvalidArgument:
      if (arg == "layout") return CLGEMM_INVALID_LAYOUT;
      if (arg == "transA") return CLGEMM_INVALID_TRANS_A;
      if (arg == "transB") return CLGEMM_INVALID_TRANS_B;
      if (arg == "A") return buffers ? CLGEMM_INVALID_BUFFER_A : CLGEMM_NULL_A;
      if (arg == "B") return buffers ? CLGEMM_INVALID_BUFFER_B : CLGEMM_NULL_B;
      if (arg == "C") return buffers ? CLGEMM_INVALID_BUFFER_C : CLGEMM_NULL_C;
      if (arg == "queue") return CLGEMM_INVALID_QUEUE;
      if (arg == "context") return CLGEMM_INVALID_CL_CONTEXT;
      if (arg == "device") return CLGEMM_INVALID_CL_DEVICE;
      if (arg == "precision") return CLGEMM_INVALID_PRECISION;
      return CLGEMM_INVALID_ARGUMENT;
    case ErrorCode::BufferTooSmall:
      if (arg == "A") return CLGEMM_BUFFER_A_TOO_SMALL;
      if (arg == "B") return CLGEMM_BUFFER_B_TOO_SMALL;
      if (arg == "C") return CLGEMM_BUFFER_C_TOO_SMALL;
      return CLGEMM_INVALID_ARGUMENT;
    case ErrorCode::UnknownKernel:
      return CLGEMM_UNKNOWN_KERNEL;
    case ErrorCode::InvalidOption:
      return CLGEMM_INVALID_OPTION;
    case ErrorCode::NoPlatform:
      return CLGEMM_NO_PLATFORM;
    case ErrorCode::KernelSourceNotFound:
      return CLGEMM_KERNEL_SOURCE_NOT_FOUND;
    case ErrorCode::BuildFailed:
      return CLGEMM_BUILD_FAILED;
    case ErrorCode::AllocationTooLarge:
      return CLGEMM_ALLOCATION_TOO_LARGE;
    case ErrorCode::OpenCLFailure:
      return CLGEMM_OPENCL_FAILURE;
    case ErrorCode::UnsupportedPrecision:
      return CLGEMM_UNSUPPORTED_PRECISION;
    case ErrorCode::FileError:
      return CLGEMM_FILE_ERROR;
    case ErrorCode::OutOfHostMemory:
      return CLGEMM_OUT_OF_HOST_MEMORY;
    case ErrorCode::Internal:
      return CLGEMM_UNKNOWN_ERROR;
  }
  return CLGEMM_UNKNOWN_ERROR;
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
  switch (status) {
    case CLGEMM_SUCCESS:
      return "success";
    case CLGEMM_INVALID_M:
      return "invalid M (below 1 or above 2^31 - 1)";
    case CLGEMM_INVALID_N:
      return "invalid N (below 1 or above 2^31 - 1)";
    case CLGEMM_INVALID_K:
      return "invalid K (below 1 or above 2^31 - 1)";
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
  }
  return "unrecognized status code";
}
