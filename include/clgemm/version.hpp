// The library's version, as "MAJOR.MINOR.PATCH" (the CMake project version it was built as).
#pragma once

namespace clgemm {

const char* version();

}  // namespace clgemm
