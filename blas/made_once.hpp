// What the device and the crossover figures share: an object the process makes once, at the
// first call that needs it, or the reason it could not be made, remembered so that later calls
// get the same answer without trying again.
#pragma once

#include <exception>
#include <mutex>
#include <string>

namespace clgemm::blas {

// Meant to be a function's static: what it holds is never deleted (drivers and the objects it
// uses may already be gone when a process exits), so its destruction at exit does nothing.
template <typename T>
class MadeOnce {
 public:
  // The object: the one made before, else the one `make` returns now (a new T; callers wait
  // while it is made). nullptr when making it failed, now or before, with what it threw in
  // `why_not`.
  template <typename Make>
  T* get(Make&& make, std::string& why_not) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (made_) return made_;
    if (!failure_) {
      try {
        made_ = make();
        return made_;
      } catch (const std::exception& error) {
        failure_ = new std::string(error.what());
      } catch (...) {
        failure_ = new std::string("an unknown exception");
      }
    }
    why_not = *failure_;
    return nullptr;
  }

 private:
  std::mutex mutex_;
  T* made_ = nullptr;
  const std::string* failure_ = nullptr;
};

}  // namespace clgemm::blas
