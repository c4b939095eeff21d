// Process-wide objects that are never destroyed. A function-local static is destroyed at exit
// in the reverse order of construction, so one first built after a long-lived Context was
// opened (a static Context, or one still open when the program calls exit) would be destroyed
// while that Context's background warming thread, or its destructor, still reads it. Objects
// a Context may reach are therefore made once with `new` and left for the operating system,
// and their OpenCL handles are not released after the driver may have shut down.
#pragma once

#include <utility>

namespace clgemm::detail {

// The object constructed from `arguments` on first use, never destroyed. Call it to
// initialise a function-local static reference: `static auto& x = immortal<T>(...);`.
template <typename T, typename... Arguments>
T& immortal(Arguments&&... arguments) {
  return *new T(std::forward<Arguments>(arguments)...);
}

}  // namespace clgemm::detail
