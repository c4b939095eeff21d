// The library's version string, set from the CMake project version at build time.
#include "clgemm/version.hpp"

#include "clgemm/clgemm.h"

namespace clgemm {

const char* version() {
  return CLGEMM_VERSION_STRING;
}

}  // namespace clgemm

extern "C" const char* clgemm_version(void) {
  return clgemm::version();
}
