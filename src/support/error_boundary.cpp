// Turning whatever is being handled into a clgemm::Error (see error_boundary.hpp).
#include "support/error_boundary.hpp"

#include <filesystem>
#include <new>
#include <string>

#include "clgemm/errors.hpp"
#include "support/opencl.hpp"

namespace clgemm::detail {

void rethrow_as_clgemm_error() {
  try {
    throw;
  } catch (const Error&) {
    throw;
  } catch (const cl::Error& error) {
    throw OpenCLError(error.what(), error.err());
  } catch (const std::bad_alloc& error) {
    throw Error(ErrorCode::OutOfHostMemory,
                std::string("out of host memory (") + error.what() + ")");
  } catch (const std::filesystem::filesystem_error& error) {
    throw Error(ErrorCode::FileError, error.what(), Argument::File);
  } catch (const std::exception& error) {
    throw Error(ErrorCode::Internal, std::string("internal error: ") + error.what());
  } catch (...) {
    throw Error(ErrorCode::Internal, "internal error of a non-standard type");
  }
}

}  // namespace clgemm::detail
