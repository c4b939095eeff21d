// The exceptions libclgemm throws. Every error derives from clgemm::Error (itself a
// std::runtime_error that owns its message) and carries an ErrorCode, so callers can branch on
// the kind of failure and the C API can map each one to a distinct status.
#pragma once

#include <stdexcept>
#include <string>

#include "clgemm/export.h"

namespace clgemm {

enum class ErrorCode {
  InvalidSize,              // M, N or K is zero, negative or too large for the kernels
  InvalidLeadingDimension,  // lda, ldb or ldc is smaller than the matrix it describes
  InvalidArgument,          // any other bad argument (null pointer, bad layout, ...)
  BufferTooSmall,           // a buffer or array holds fewer elements than the problem reads
  OverlappingOutput,        // products would write the same elements of C, or C shares
                            // elements with A, B or the bias on one cl_mem
  UnknownKernel,            // no kernel of that name
  InvalidOption,            // unknown kernel parameter, or a combination breaking a constraint
  NoPlatform,               // no OpenCL platform or no device matches the request
  KernelSourceNotFound,     // the .cl file is in none of the searched directories
  BuildFailed,              // the OpenCL compiler rejected the kernel
  AllocationTooLarge,       // a buffer exceeds what the device can allocate
  OpenCLFailure,            // an OpenCL call failed at run time
  UnsupportedPrecision,     // the kernel or the device cannot compute the requested precision
  FileError,                // a file clgemm reads or writes is unreadable, unwritable or not a file
  OutOfHostMemory,          // a host allocation failed
  Internal,                 // anything else that went wrong inside the library (a bug: report it)
};

// A short stable name for a code, e.g. "invalid-leading-dimension".
CLGEMM_API const char* error_code_name(ErrorCode code);

// The argument at fault, when an error has one. The C API maps (code, argument) to its status
// in one table (c_status.cpp), so a new argument cannot silently fall back to a generic status.
enum class Argument {
  None,
  M,
  N,
  K,  // the sizes
  Lda,
  Ldb,
  Ldc,  // the leading dimensions
  Layout,
  TransA,
  TransB,  // the storage order and transposes
  A,
  B,
  C,      // the matrices: a host array, or a cl_mem on the buffer path
  Batch,  // the batch count
  StrideA,
  StrideB,
  StrideC,     // the strides between a batch's products
  Products,    // a batch's product table
  Bias,        // the epilogue's bias: its kind, vector, offset or stride
  Activation,  // the epilogue's activation and its clamp bounds
  Queue,       // the caller's command queue
  OpenCLContext,
  OpenCLDevice,
  Kernel,  // the kernel name or its parameter text
  Precision,
  Settings,  // RunSettings' run counts
  ShapeClass,
  TuningFile,
  File,  // any other file clgemm reads or writes
};

// Its name as the API spells it: "M", "lda", "transA", "queue", ... ("" for None).
CLGEMM_API const char* argument_name(Argument argument);

class CLGEMM_API Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message, Argument argument = Argument::None)
      : std::runtime_error(message), code_(code), argument_(argument) {}
  ErrorCode code() const { return code_; }
  // The argument at fault when there is one (else Argument::None).
  Argument argument() const { return argument_; }

 private:
  ErrorCode code_;
  Argument argument_;
};

// The OpenCL compiler rejected a kernel. The message names the kernel, device and options and
// includes the build log; each piece is also available on its own.
class CLGEMM_API BuildError : public Error {
 public:
  BuildError(const std::string& kernel, const std::string& device, const std::string& options,
             const std::string& log);
  const std::string& kernel() const { return kernel_; }
  const std::string& device() const { return device_; }
  const std::string& options() const { return options_; }
  const std::string& log() const { return log_; }

 private:
  std::string kernel_, device_, options_, log_;
};

// An OpenCL call returned an error status at run time.
class CLGEMM_API OpenCLError : public Error {
 public:
  OpenCLError(const std::string& call, int status);
  int status() const { return status_; }

 private:
  int status_;
};

}  // namespace clgemm
