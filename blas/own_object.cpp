// Which loaded object an address lies in (see own_object.hpp).
#include "own_object.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdint>

namespace clgemm::blas {

namespace {

const void* this_library_base() {
  static const void* const base = [] {
    Dl_info info{};
    return dladdr(reinterpret_cast<const void*>(&is_in_this_library), &info) ? info.dli_fbase
                                                                             : nullptr;
  }();
  return base;
}

struct Search {
  std::uintptr_t address;
  bool found;
};

// dl_iterate_phdr visits the executable first: whether the address is in one of its segments.
int check_first_object(dl_phdr_info* object, std::size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  for (int i = 0; i < object->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = object->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD) continue;
    const std::uintptr_t begin = object->dlpi_addr + segment.p_vaddr;
    if (search->address >= begin && search->address < begin + segment.p_memsz) search->found = true;
  }
  return 1;  // stop after the first object
}

}  // namespace

bool is_in_this_library(const void* address) {
  Dl_info info{};
  return dladdr(address, &info) && info.dli_fbase && info.dli_fbase == this_library_base();
}

bool is_in_main_program(const void* address) {
  Search search{reinterpret_cast<std::uintptr_t>(address), false};
  dl_iterate_phdr(check_first_object, &search);
  return search.found;
}

}  // namespace clgemm::blas
