/* ScaLAPACK's PSGEMM on a 2x2 process grid (4 MPI ranks), block-cyclic matrices of 200x150 (A)
   and 150x180 (B) in 32x32 blocks: each rank's local products go through sgemm_, which
   libclgemm_blas serves. A and B are given by formulas, so each rank computes the full
   product's elements it holds with a plain double-accumulated loop over the whole of A and B and
   compares; rank 0 adds up the wrong elements and checks that all M x N were compared. Every
   rank exits 1 when any element is wrong. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* BLACS and ScaLAPACK, as libscalapack-openmpi exports them. */
void Cblacs_pinfo(int* rank, int* processes);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridinfo(int context, int* rows, int* cols, int* row, int* col);
void Cblacs_gridexit(int context);
int numroc_(const int* n, const int* block, const int* process, const int* source,
            const int* processes);
void descinit_(int* descriptor, const int* m, const int* n, const int* mb, const int* nb,
               const int* row_source, const int* col_source, const int* context, const int* ld,
               int* info);
void psgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const float* alpha, const float* a, const int* ia, const int* ja, const int* desca,
             const float* b, const int* ib, const int* jb, const int* descb, const float* beta,
             float* c, const int* ic, const int* jc, const int* descc, size_t, size_t);

enum { M = 200, N = 180, K = 150, BLOCK = 32, GRID = 2 };

static float a_value(int i, int j) {
  return (float)((i * 7 + j * 3) % 17) / 8.0f - 1.0f;
}
static float b_value(int i, int j) {
  return (float)((i * 5 + j * 11) % 13) / 6.0f - 1.0f;
}

/* The global index of local index `local` along a dimension cut in BLOCK blocks over GRID. */
static int global_index(int local, int process) {
  return (local / BLOCK) * BLOCK * GRID + process * BLOCK + local % BLOCK;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, processes, context, rows, cols, row, col, info;
  Cblacs_pinfo(&rank, &processes);
  if (processes != GRID * GRID) {
    if (rank == 0)
      fprintf(stderr, "scalapack_psgemm: needs %d ranks, got %d\n", GRID * GRID, processes);
    MPI_Finalize();
    return 1;
  }
  Cblacs_get(-1, 0, &context);
  Cblacs_gridinit(&context, "Row", GRID, GRID);
  Cblacs_gridinfo(context, &rows, &cols, &row, &col);
  const int zero = 0, block = BLOCK, grid = GRID, m = M, n = N, k = K, one = 1;
  /* Local sizes of A (M x K), B (K x N), C (M x N), column-major with the local rows as ld. */
  const int a_rows = numroc_(&m, &block, &row, &zero, &grid),
            a_cols = numroc_(&k, &block, &col, &zero, &grid);
  const int b_rows = numroc_(&k, &block, &row, &zero, &grid),
            b_cols = numroc_(&n, &block, &col, &zero, &grid);
  const int c_rows = a_rows, c_cols = b_cols;
  const int lda = a_rows > 1 ? a_rows : 1, ldb = b_rows > 1 ? b_rows : 1,
            ldc = c_rows > 1 ? c_rows : 1;
  int desc_a[9], desc_b[9], desc_c[9];
  descinit_(desc_a, &m, &k, &block, &block, &zero, &zero, &context, &lda, &info);
  descinit_(desc_b, &k, &n, &block, &block, &zero, &zero, &context, &ldb, &info);
  descinit_(desc_c, &m, &n, &block, &block, &zero, &zero, &context, &ldc, &info);
  float* a = malloc(sizeof(float) * lda * (a_cols > 0 ? a_cols : 1));
  float* b = malloc(sizeof(float) * ldb * (b_cols > 0 ? b_cols : 1));
  float* c = calloc((size_t)ldc * (c_cols > 0 ? c_cols : 1), sizeof(float));
  for (int j = 0; j < a_cols; ++j)
    for (int i = 0; i < a_rows; ++i)
      a[j * lda + i] = a_value(global_index(i, row), global_index(j, col));
  for (int j = 0; j < b_cols; ++j)
    for (int i = 0; i < b_rows; ++i)
      b[j * ldb + i] = b_value(global_index(i, row), global_index(j, col));
  const float alpha = 1.0f, beta = 0.0f;
  psgemm_("N", "N", &m, &n, &k, &alpha, a, &one, &one, desc_a, b, &one, &one, desc_b, &beta, c,
          &one, &one, desc_c, 1, 1);

  int bad = 0;
  for (int j = 0; j < c_cols; ++j)
    for (int i = 0; i < c_rows; ++i) {
      const int gi = global_index(i, row), gj = global_index(j, col);
      double sum = 0;
      for (int l = 0; l < K; ++l) sum += (double)a_value(gi, l) * b_value(l, gj);
      if (!(fabs(c[j * ldc + i] - sum) <= 1e-4 * K) && bad++ < 3)
        fprintf(stderr, "scalapack_psgemm: rank %d: C(%d,%d) = %g, expected %g\n", rank, gi, gj,
                c[j * ldc + i], sum);
    }
  int total = 0, checked = c_rows * c_cols, all_checked = 0;
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&checked, &all_checked, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (all_checked != M * N) total += 1;
    printf("scalapack_psgemm: %d of %d elements of C checked on a %dx%d grid, %s\n", all_checked,
           M * N, GRID, GRID, total ? "WRONG" : "all correct");
  }
  MPI_Bcast(&total, 1, MPI_INT, 0, MPI_COMM_WORLD);
  free(a);
  free(b);
  free(c);
  Cblacs_gridexit(context);
  MPI_Finalize();
  return total ? 1 : 0;
}
