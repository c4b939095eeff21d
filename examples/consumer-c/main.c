/* A C99 program built against an installed clgemm through pkg-config: C = A * B from host
 * arrays, checked against a plain loop, then a deliberately bad call (ldb too small) whose
 * status and message are printed. Exit status 0 when both behave as expected. */
#include <clgemm/clgemm.h>
#include <math.h>
#include <stdio.h>

enum { M = 40, N = 30, K = 20 };

int main(void) {
  static float a[M * K], b[K * N], c[M * N];
  clgemm_context* context = NULL;
  clgemm_status status;
  double worst = 0;
  int i, j, p;

  for (i = 0; i < M * K; ++i) a[i] = (float)(i % 7) * 0.25f - 0.5f;
  for (i = 0; i < K * N; ++i) b[i] = (float)(i % 5) * 0.5f - 1.0f;

  status = clgemm_context_create(NULL, NULL, &context); /* default device, or env vars */
  if (status != CLGEMM_SUCCESS) {
    fprintf(stderr, "%s\n%s\n", clgemm_status_string(status), clgemm_last_error_message());
    return 2;
  }

  /* Row-major C (M x N) = 1 * A (M x K) * B (K x N) + 0 * C, default kernel. */
  status = clgemm_sgemm(context, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N, K, 1.0f,
                        a, K, b, N, 0.0f, c, N, NULL);
  if (status != CLGEMM_SUCCESS) {
    fprintf(stderr, "%s\n%s\n", clgemm_status_string(status), clgemm_last_error_message());
    clgemm_context_destroy(context);
    return 2;
  }
  for (i = 0; i < M; ++i)
    for (j = 0; j < N; ++j) {
      double sum = 0;
      for (p = 0; p < K; ++p) sum += (double)a[i * K + p] * b[p * N + j];
      if (fabs(sum - c[i * N + j]) > worst) worst = fabs(sum - c[i * N + j]);
    }
  printf("%s: max error %g\n", clgemm_context_device_name(context), worst);

  /* A deliberate mistake: ldb = N - 1 is shorter than a row of B. */
  status = clgemm_sgemm(context, CLGEMM_ROW_MAJOR, CLGEMM_NO_TRANS, CLGEMM_NO_TRANS, M, N, K, 1.0f,
                        a, K, b, N - 1, 0.0f, c, N, NULL);
  printf("bad call: status %d, %s\n  %s\n", (int)status, clgemm_status_string(status),
         clgemm_last_error_message());

  clgemm_context_destroy(context);
  return worst < 1e-4 && status == CLGEMM_INVALID_LDB ? 0 : 1;
}
