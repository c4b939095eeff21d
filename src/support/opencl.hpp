// The one place the library includes the OpenCL C++ bindings. The target OpenCL version and
// exception support are compile definitions of the clgemm target (see CMakeLists.txt).
#pragma once

#include <CL/opencl.hpp>
