// The library's version, as "MAJOR.MINOR.PATCH" (the CMake project version it was built as).
#pragma once

#include "clgemm/export.h"

namespace clgemm {

CLGEMM_API const char* version();

}  // namespace clgemm
