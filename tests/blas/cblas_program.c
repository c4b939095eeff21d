/* A C program that multiplies through cblas_sgemm, as a program written for any CBLAS does:
   both storage orders, every transpose, shapes of no round size and padded leading dimensions.
   Each product is checked against a plain double-accumulated loop; exits 1 on a wrong element.
   The tests build it twice: linked to libclgemm_blas ahead of OpenBLAS, and linked to OpenBLAS
   alone to be run with libclgemm_blas preloaded. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "blas/blas_prototypes.h"

/* Element (i, j) of a matrix stored in `order` with leading dimension ld. */
static float element(const float* x, int order, int ld, int i, int j) {
  return order == TestCblasRowMajor ? x[(size_t)i * ld + j] : x[(size_t)j * ld + i];
}

static int check(int order, int ta, int tb, int m, int n, int k, int pad) {
  const int a_rows = ta == TestCblasNoTrans ? m : k, a_cols = ta == TestCblasNoTrans ? k : m;
  const int b_rows = tb == TestCblasNoTrans ? k : n, b_cols = tb == TestCblasNoTrans ? n : k;
  const int lda = (order == TestCblasRowMajor ? a_cols : a_rows) + pad;
  const int ldb = (order == TestCblasRowMajor ? b_cols : b_rows) + pad;
  const int ldc = (order == TestCblasRowMajor ? n : m) + pad;
  const size_t a_size = (size_t)lda * (order == TestCblasRowMajor ? a_rows : a_cols);
  const size_t b_size = (size_t)ldb * (order == TestCblasRowMajor ? b_rows : b_cols);
  const size_t c_size = (size_t)ldc * (order == TestCblasRowMajor ? m : n);
  float* a = malloc(a_size * sizeof(float));
  float* b = malloc(b_size * sizeof(float));
  float* c = malloc(c_size * sizeof(float));
  float* c0 = malloc(c_size * sizeof(float));
  int bad = 0;
  for (size_t i = 0; i < a_size; ++i) a[i] = (float)((i * 37) % 23) / 11.0f - 1.0f;
  for (size_t i = 0; i < b_size; ++i) b[i] = (float)((i * 53) % 19) / 9.0f - 1.0f;
  for (size_t i = 0; i < c_size; ++i) c[i] = c0[i] = (float)(i % 13) / 6.0f - 1.0f;
  const float alpha = 1.25f, beta = -0.5f;
  cblas_sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  for (int i = 0; i < m && bad < 3; ++i)
    for (int j = 0; j < n && bad < 3; ++j) {
      double sum = 0, magnitude = 0;
      for (int l = 0; l < k; ++l) {
        const double x =
            ta == TestCblasNoTrans ? element(a, order, lda, i, l) : element(a, order, lda, l, i);
        const double y =
            tb == TestCblasNoTrans ? element(b, order, ldb, l, j) : element(b, order, ldb, j, l);
        sum += x * y;
        magnitude += fabs(x * y);
      }
      const double expected = alpha * sum + beta * element(c0, order, ldc, i, j);
      const double got = element(c, order, ldc, i, j);
      if (!(fabs(got - expected) <= 1e-5 * (k + 2) * (magnitude + 1))) {
        fprintf(stderr,
                "cblas_program: order %d trans %d %d, %dx%dx%d: C(%d,%d) = %g, expected %g\n",
                order, ta, tb, m, n, k, i, j, got, expected);
        ++bad;
      }
    }
  free(a);
  free(b);
  free(c);
  free(c0);
  return bad == 0;
}

int main(void) {
  const int orders[] = {TestCblasRowMajor, TestCblasColMajor};
  const int transposes[] = {TestCblasNoTrans, TestCblasTrans};
  int ok = 1;
  for (int o = 0; o < 2; ++o)
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        ok &= check(orders[o], transposes[ta], transposes[tb], 97, 61, 45, o + ta);
  ok &= check(TestCblasRowMajor, TestCblasNoTrans, TestCblasNoTrans, 200, 150, 130, 0);
  printf("cblas_program: %s\n", ok ? "all products correct" : "WRONG PRODUCTS");
  return ok ? 0 : 1;
}
