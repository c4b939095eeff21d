// A program that exits while a Context is still open and warming in the background: "static"
// keeps it in a function-local static (destroyed among the exit handlers), "open" leaves it on
// the heap and calls std::exit. Either way the program must exit normally, never on a signal
// (a build still running while exit destroys what it uses). Each run warms into an empty disk
// cache of its own, so the warming thread is compiling when the program exits.
#include <clgemm/clgemm.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

char cache[] = "/tmp/clgemm-exit-test-XXXXXX";

// Registered before the Context opens, so it runs after the library's exit handler has
// stopped the warming thread that writes into the directory.
void remove_cache() {
  std::filesystem::remove_all(cache);
}

clgemm::Context& static_context() {
  static clgemm::Context context;
  return context;
}

// One small product, checked: the program's own work, done while warming runs.
bool product_is_right(clgemm::Context& context) {
  const int n = 33;
  std::vector<float> a(n * n, 1.0f), b(n * n, 2.0f), c(n * n, -1.0f);
  clgemm::RunSettings settings;
  settings.kernel = "tile";
  context.sgemm(clgemm::GemmProblem::packed(n, n, n), a.data(), b.data(), c.data(), settings);
  for (float value : c)
    if (value != 2.0f * n) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "static" && mode != "open") {
    std::fprintf(stderr, "usage: %s static|open\n", argv[0]);
    return 2;
  }
  if (!mkdtemp(cache) || setenv("CLGEMM_CACHE_DIR", cache, 1) != 0) {
    std::perror("mkdtemp");
    return 2;
  }
  std::atexit(remove_cache);
  clgemm::set_default_warm_mode(clgemm::WarmMode::Background);
  clgemm::Context& context = mode == "static" ? static_context() : *new clgemm::Context;
  if (!product_is_right(context)) {
    std::fprintf(stderr, "wrong product\n");
    return 1;
  }
  std::printf("exiting with the Context open (%s)\n", mode.c_str());
  std::fflush(stdout);
  std::exit(0);
}
