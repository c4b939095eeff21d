// Notices once per process, and whole lines to stderr (see notices.hpp).
#include "notices.hpp"

#include <unistd.h>

#include <mutex>
#include <set>

namespace clgemm::blas {

void say_line(const std::string& line) {
  const std::string text = "clgemm_blas: " + line + "\n";
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + written, text.size() - written);
    if (n <= 0) return;  // stderr closed or failing: nothing better to do
    written += std::size_t(n);
  }
}

void say_once(const std::string& topic, const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string>* const said = new std::set<std::string>;  // kept until exit
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!said->insert(topic).second) return;
  }
  say_line(message);
}

}  // namespace clgemm::blas
