// vectorized: the last rung of the ladder. A work-group computes a TILE_M x TILE_N block of C,
// stepping through K in slices of TILE_K; each work-item computes BATCH_M x BATCH_N outputs as
// a sum of outer products held in registers (as in coarsened, but rectangular). On top of that:
//   - global loads move VEC floats at a time (float4 or float8),
//   - local memory holds two pages of tiles (double buffering): while the work-group computes
//     on one page, each work-item already holds the next slice of A and B in registers, and
//     stores it into the other page afterwards, so one barrier per K step suffices and the
//     global loads of step t+1 overlap the arithmetic of step t.
// Slices that stick out of the matrices are filled with zeros, element by element. Either
// operand may be transposed (TRANS_A, TRANS_B): vector loads follow its contiguous dimension.
#include "gemm_common.clh"

#ifndef TILE_M
#define TILE_M 64 // rows of C per work-group
#endif
#ifndef TILE_N
#define TILE_N 64 // columns of C per work-group
#endif
#ifndef TILE_K
#define TILE_K 16 // depth of one K step
#endif
#ifndef BATCH_M
#define BATCH_M 4 // rows of C per work-item
#endif
#ifndef BATCH_N
#define BATCH_N 4 // columns of C per work-item
#endif
#ifndef VEC
#define VEC 4 // floats per global load: 1, 2, 4, 8 or 16
#endif
#ifndef A_ALIGNED
#define A_ALIGNED 0 // 1 when the host proved every row of A starts VEC-aligned
#endif
#ifndef B_ALIGNED
#define B_ALIGNED 0 // 1 when the host proved every row of B starts VEC-aligned
#endif

#define WG_M (TILE_M / BATCH_M)  // work-items along M (dimension 1)
#define WG_N (TILE_N / BATCH_N)  // work-items along N (dimension 0)
#define THREADS (WG_M * WG_N)
#define A_LOADS (TILE_M * TILE_K / VEC / THREADS) // vectors of A each work-item fetches per step
#define B_LOADS (TILE_K * TILE_N / VEC / THREADS) // vectors of B each work-item fetches per step

#if VEC == 1
#define floatV float
#define vloadV(offset, p) ((p)[offset])
#define vstoreV(value, offset, p) ((p)[offset] = (value))
#else
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define floatV XCAT(float, VEC)
#define vloadV XCAT(vload, VEC)
#define vstoreV XCAT(vstore, VEC)
#endif

// Loads VEC consecutive floats of which the first `valid` exist; the others read as zero.
inline floatV load_vector(__global const float *p, const int valid, const int aligned) {
  if (valid >= VEC) return aligned ? *(__global const floatV *)p : vloadV(0, p);
  float v[VEC];
  for (int e = 0; e < VEC; ++e) v[e] = (e < valid) ? p[e] : 0.0f;
  return vloadV(0, v);
}

// Each operand tile covers tile_x rows of C's side (x = m for A, n for B) by TILE_K, and lives
// in local memory as [k][x]. In global memory its rows run either along k ("x-major": A, or B
// transposed) or along x ("k-major": B, or A transposed). Vectors are always fetched along the
// contiguous direction, `loads` of them per work-item; the slice starts at (x0, k0).
inline void fetch_operand(__global const float *X, const int ldx, const int x_extent,
                          const int K, const int x0, const int k0, const int tid,
                          const int tile_x, const int loads, const int k_major,
                          const int aligned, floatV next[]) {
  for (int l = 0; l < loads; ++l) {
    const int v = tid + l * THREADS;
    int row, col, valid;
    if (k_major) {
      row = k0 + v / (tile_x / VEC);
      col = x0 + (v % (tile_x / VEC)) * VEC;
      valid = (row < K) ? x_extent - col : 0;
    } else {
      row = x0 + v / (TILE_K / VEC);
      col = k0 + (v % (TILE_K / VEC)) * VEC;
      valid = (row < x_extent) ? K - col : 0;
    }
    next[l] = load_vector(X + (size_t)row * ldx + col, valid, aligned);
  }
}

// Stores fetched vectors into a local page laid out [TILE_K][tile_x] (flattened).
inline void store_operand(__local float *page, const int tid, const int tile_x, const int loads,
                          const int k_major, const floatV next[]) {
  for (int l = 0; l < loads; ++l) {
    const int v = tid + l * THREADS;
    if (k_major) {
      const int k = v / (tile_x / VEC), x = (v % (tile_x / VEC)) * VEC;
      vstoreV(next[l], 0, page + k * tile_x + x);
    } else {
      const int x = v / (TILE_K / VEC), k = (v % (TILE_K / VEC)) * VEC;
      float e[VEC];
      vstoreV(next[l], 0, e);
      for (int i = 0; i < VEC; ++i) page[(k + i) * tile_x + x] = e[i];
    }
  }
}

__kernel __attribute__((reqd_work_group_size(WG_N, WG_M, 1))) void gemm_vectorized(
    GEMM_PARAMETERS) {
  const int tx = get_local_id(0);
  const int ty = get_local_id(1);
  const int tid = ty * WG_N + tx;
  const int col0 = get_group_id(0) * TILE_N;
  const int row0 = get_group_id(1) * TILE_M;
  A += a_offset;
  B += b_offset;

  __local float a_pages[2][TILE_K][TILE_M];
  __local float b_pages[2][TILE_K][TILE_N];
  floatV a_next[A_LOADS], b_next[B_LOADS];

  float acc[BATCH_M][BATCH_N];
  for (int i = 0; i < BATCH_M; ++i)
    for (int j = 0; j < BATCH_N; ++j) acc[i][j] = 0.0f;

  // Fetch the K slice starting at k0 into registers, and store registers into a page.
#define FETCH(k0)                                                                          \
  fetch_operand(A, lda, M, K, row0, k0, tid, TILE_M, A_LOADS, TRANS_A, A_ALIGNED, a_next); \
  fetch_operand(B, ldb, N, K, col0, k0, tid, TILE_N, B_LOADS, !TRANS_B, B_ALIGNED, b_next)
#define STORE(page)                                                                 \
  store_operand(&a_pages[page][0][0], tid, TILE_M, A_LOADS, TRANS_A, a_next);        \
  store_operand(&b_pages[page][0][0], tid, TILE_N, B_LOADS, !TRANS_B, b_next)

  const int steps = (K + TILE_K - 1) / TILE_K;
  FETCH(0);
  STORE(0);
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int step = 0; step < steps; ++step) {
    const int page = step & 1;
    const bool more = step + 1 < steps;
    if (more) {
      FETCH((step + 1) * TILE_K);
    }

    for (int k = 0; k < TILE_K; ++k) {
      float a_reg[BATCH_M], b_reg[BATCH_N];
      for (int i = 0; i < BATCH_M; ++i) a_reg[i] = a_pages[page][k][ty + i * WG_M];
      for (int j = 0; j < BATCH_N; ++j) b_reg[j] = b_pages[page][k][tx + j * WG_N];
      for (int i = 0; i < BATCH_M; ++i)
        for (int j = 0; j < BATCH_N; ++j) acc[i][j] = mad(a_reg[i], b_reg[j], acc[i][j]);
    }

    // The other page was last read before the previous barrier, so it is free to overwrite.
    if (more) {
      STORE(page ^ 1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  for (int i = 0; i < BATCH_M; ++i) {
    const int row = row0 + ty + i * WG_M;
    if (row >= M) continue;
    for (int j = 0; j < BATCH_N; ++j) {
      const int col = col0 + tx + j * WG_N;
      if (col < N) store_c(C, c_offset + (size_t)row * ldc + col, acc[i][j], alpha, beta);
    }
  }
}
