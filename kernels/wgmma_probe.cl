// wgmma_probe: one warpgroup (a work-group of 128) computes D = A * B + C for a 64 x 8 matrix
// A, an 8 x 8 matrix B and a 64 x 8 matrix C (all row-major) with a single
// wgmma.mma_async.m64n8k8 in TF32: A from registers, B from local memory through a matrix
// descriptor, C as the accumulators' starting values. It is built through the PTX rewrite to
// sm_90a (kernels/wgmma.clh), and the host runs it once per device before it trusts the wgmma
// path: with small integers as inputs every product and sum is exact, so any difference from
// the host's result means the rewrite, the descriptor or the fragment layouts are not what the
// device does.
#include "wgmma.clh"

// B in local memory: its two core matrices (k 0-3, k 4-7) LEADING_BYTES apart, 256 bytes in
// all, then 256 bytes of poison, where a step of STRIDE_BYTES lands: a descriptor whose two
// offsets were read the other way round gives a wrong product, not a lucky one.
#define LEADING_BYTES 128
#define STRIDE_BYTES 256
#define POISON 1000.0f

__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void wgmma_probe(
    __global const float *a, __global const float *b, __global const float *c,
    __global float *d) {
  __local float b_local[128] __attribute__((aligned(16)));
  const int item = get_local_id(0);
  // B(k, n) goes to core matrix k / 4, row n, word k % 4; the other 64 floats are poison.
  if (item < 64) {
    const int k = item / 8, n = item % 8;
    b_local[(k / 4) * (LEADING_BYTES / 4) + n * 4 + k % 4] = b[k * 8 + n];
  } else {
    b_local[item] = POISON;
  }
  fence_local_for_wgmma();
  barrier(CLK_LOCAL_MEM_FENCE);

  const int warp = item / 32, lane = item % 32;
  const int row = 16 * warp + lane / 4, t = lane % 4;
  const uint a_fragment[4] = {as_uint(a[row * 8 + t]), as_uint(a[(row + 8) * 8 + t]),
                              as_uint(a[row * 8 + t + 4]), as_uint(a[(row + 8) * 8 + t + 4])};
  float acc[4] = {c[row * 8 + 2 * t], c[row * 8 + 2 * t + 1], c[(row + 8) * 8 + 2 * t],
                  c[(row + 8) * 8 + 2 * t + 1]};
  const ulong b_descriptor = local_matrix_descriptor(b_local, LEADING_BYTES, STRIDE_BYTES);

  wgmma_fence();
  wgmma_64x8x8_tf32(acc, a_fragment, b_descriptor);
  wgmma_commit_group();
  wgmma_wait_all_64x8(acc);

  d[row * 8 + 2 * t] = acc[0];
  d[row * 8 + 2 * t + 1] = acc[1];
  d[(row + 8) * 8 + 2 * t] = acc[2];
  d[(row + 8) * 8 + 2 * t + 1] = acc[3];
}
