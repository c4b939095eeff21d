// Eight threads calling sgemm_ and cblas_sgemm at once, each with shapes of its own, several
// times over: every product is checked against a plain loop. libclgemm_blas shares one device
// context between them (its host-array calls may run concurrently). Exits 1 on a wrong product.
#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

#include "blas/blas_prototypes.h"

namespace {

bool run_thread(int id) {
  bool right = true;
  for (int round = 0; round < 4; ++round) {
    const int m = 30 + 7 * id + round, n = 20 + 5 * id, k = 25 + 3 * round;
    std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n), c(std::size_t(m) * n, 1.0f);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = float((i * 13 + id) % 17) / 8.0f - 1.0f;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = float((i * 7 + round) % 11) / 5.0f - 1.0f;
    const float alpha = 1.0f, beta = 0.5f;
    if ((id + round) % 2) {  // column-major through the Fortran interface
      const char no = 'N';
      sgemm_(&no, &no, &m, &n, &k, &alpha, a.data(), &m, b.data(), &k, &beta, c.data(), &m, 1, 1);
    } else {
      cblas_sgemm(TestCblasColMajor, TestCblasNoTrans, TestCblasNoTrans, m, n, k, alpha, a.data(),
                  m, b.data(), k, beta, c.data(), m);
    }
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double sum = 0;
        for (int l = 0; l < k; ++l)
          sum += double(a[std::size_t(l) * m + i]) * b[std::size_t(j) * k + l];
        const double expected = alpha * sum + beta * 1.0;
        if (!(std::fabs(c[std::size_t(j) * m + i] - expected) <= 1e-4)) {
          std::fprintf(stderr, "threads_program: thread %d round %d: C(%d,%d) = %g, expected %g\n",
                       id, round, i, j, c[std::size_t(j) * m + i], expected);
          return false;
        }
      }
  }
  return right;
}

}  // namespace

int main() {
  std::vector<std::thread> threads;
  std::vector<char> right(8, 0);
  for (int id = 0; id < 8; ++id) threads.emplace_back([&, id] { right[id] = run_thread(id); });
  for (auto& thread : threads) thread.join();
  for (char r : right)
    if (!r) return 1;
  std::printf("threads_program: 8 threads, all products correct\n");
  return 0;
}
