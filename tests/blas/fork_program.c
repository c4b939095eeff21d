/* A program that forks after using the device: the child must not touch the parent's OpenCL
   state and computes on the CPU BLAS instead (the trace says "cpu (forked child)"); the parent
   goes on using the device after the child ends. Every product is checked against a plain
   loop; exits 1 when any is wrong or the child failed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blas/blas_prototypes.h"

enum { M = 70, N = 50, K = 40 };

/* C = A B (row-major) through cblas_sgemm, compared with the loop; 1 when right. */
static int product_is_right(const char* who) {
  static float a[M * K], b[K * N], c[M * N];
  for (int i = 0; i < M * K; ++i) a[i] = (float)(i % 11) / 5.0f - 1.0f;
  for (int i = 0; i < K * N; ++i) b[i] = (float)(i % 7) / 3.0f - 1.0f;
  for (int i = 0; i < M * N; ++i) c[i] = NAN;
  cblas_sgemm(TestCblasRowMajor, TestCblasNoTrans, TestCblasNoTrans, M, N, K, 1.0f, a, K, b, N,
              0.0f, c, N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = 0;
      for (int l = 0; l < K; ++l) sum += (double)a[i * K + l] * b[l * N + j];
      if (!(fabs(c[i * N + j] - sum) <= 1e-4)) {
        fprintf(stderr, "fork_program: %s: C(%d,%d) = %g, expected %g\n", who, i, j, c[i * N + j],
                sum);
        return 0;
      }
    }
  return 1;
}

int main(void) {
  if (!product_is_right("parent before fork")) return 1;
  fflush(NULL);
  const pid_t child = fork();
  if (child < 0) {
    perror("fork_program: fork");
    return 1;
  }
  if (child == 0) _exit(product_is_right("child") ? 0 : 1);
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "fork_program: the child failed\n");
    return 1;
  }
  if (!product_is_right("parent after fork")) return 1;
  printf("fork_program: parent and child correct\n");
  return 0;
}
