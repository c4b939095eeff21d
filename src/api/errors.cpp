// Messages and names for the library's error types.
#include "clgemm/errors.hpp"

namespace clgemm {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidSize:
      return "invalid-size";
    case ErrorCode::InvalidLeadingDimension:
      return "invalid-leading-dimension";
    case ErrorCode::InvalidArgument:
      return "invalid-argument";
    case ErrorCode::BufferTooSmall:
      return "buffer-too-small";
    case ErrorCode::OverlappingOutput:
      return "overlapping-output";
    case ErrorCode::UnknownKernel:
      return "unknown-kernel";
    case ErrorCode::InvalidOption:
      return "invalid-option";
    case ErrorCode::NoPlatform:
      return "no-platform";
    case ErrorCode::KernelSourceNotFound:
      return "kernel-source-not-found";
    case ErrorCode::BuildFailed:
      return "build-failed";
    case ErrorCode::UnsupportedPrecision:
      return "unsupported-precision";
    case ErrorCode::AllocationTooLarge:
      return "allocation-too-large";
    case ErrorCode::OpenCLFailure:
      return "opencl-failure";
    case ErrorCode::FileError:
      return "file-error";
    case ErrorCode::OutOfHostMemory:
      return "out-of-host-memory";
    case ErrorCode::Internal:
      return "internal";
  }
  return "unknown-error";
}

const char* argument_name(Argument argument) {
  switch (argument) {
    case Argument::None:
      return "";
    case Argument::M:
      return "M";
    case Argument::N:
      return "N";
    case Argument::K:
      return "K";
    case Argument::Lda:
      return "lda";
    case Argument::Ldb:
      return "ldb";
    case Argument::Ldc:
      return "ldc";
    case Argument::Layout:
      return "layout";
    case Argument::TransA:
      return "transA";
    case Argument::TransB:
      return "transB";
    case Argument::A:
      return "A";
    case Argument::B:
      return "B";
    case Argument::C:
      return "C";
    case Argument::Batch:
      return "batch";
    case Argument::StrideA:
      return "stride_a";
    case Argument::StrideB:
      return "stride_b";
    case Argument::StrideC:
      return "stride_c";
    case Argument::Products:
      return "products";
    case Argument::Bias:
      return "bias";
    case Argument::Activation:
      return "activation";
    case Argument::Queue:
      return "queue";
    case Argument::OpenCLContext:
      return "context";
    case Argument::OpenCLDevice:
      return "device";
    case Argument::Kernel:
      return "kernel";
    case Argument::Precision:
      return "precision";
    case Argument::Settings:
      return "settings";
    case Argument::ShapeClass:
      return "shape_class";
    case Argument::TuningFile:
      return "tuning file";
    case Argument::File:
      return "file";
  }
  return "";
}

BuildError::BuildError(const std::string& kernel, const std::string& device,
                       const std::string& options, const std::string& log)
    : Error(ErrorCode::BuildFailed, "building kernel '" + kernel + "' for device '" + device +
                                        "' with options '" + options + "' failed:\n" + log),
      kernel_(kernel),
      device_(device),
      options_(options),
      log_(log) {}

OpenCLError::OpenCLError(const std::string& call, int status)
    : Error(ErrorCode::OpenCLFailure,
            "OpenCL call " + call + " failed with status " + std::to_string(status)),
      status_(status) {}

}  // namespace clgemm
