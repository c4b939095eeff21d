// Internal: finding the kernel directory and reading a kernel's OpenCL C source, with its
// #include "..." lines replaced by the files they name, so the program text is self-contained
// and its hash covers everything the compiler sees.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clgemm::detail {

struct KernelSource {
  std::string path;  // where the .cl file was found
  std::string text;  // the source with includes inlined
  std::uint64_t hash = 0;
};

// The file from the first directory of kernel_search_path() (clgemm/kernels.hpp) that has it.
// Throws Error(KernelSourceNotFound) listing every place it looked.
KernelSource load_kernel_source(const std::string& file);

std::uint64_t fnv1a_hash(const std::string& text);

}  // namespace clgemm::detail
