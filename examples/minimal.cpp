// The smallest useful clgemm program: C = A * B for two 300 x 200 and 200 x 100 matrices on
// the default device, then one element checked by hand. The README shows this file.
#include <clgemm/clgemm.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  const int m = 300, n = 100, k = 200;
  std::vector<float> a(m * k, 0.5f), b(k * n, 2.0f), c(m * n);

  clgemm::Context context;  // first GPU, else accelerator, else CPU (or $CLGEMM_PLATFORM/DEVICE)
  clgemm::RunSettings settings;
  settings.kernel = "tile";
  const auto record =
      context.sgemm(clgemm::GemmProblem::packed(m, n, k), a.data(), b.data(), c.data(), settings);

  std::printf("%s %s on %s (program %s), C[0][0] = %g\n", record.kernel.c_str(),
              record.build_options.c_str(), context.device().name.c_str(),
              clgemm::program_origin_name(record.origin), c[0]);
  return std::fabs(c[0] - float(k)) < 1e-3f ? 0 : 1;  // each element is k * 0.5 * 2
}
