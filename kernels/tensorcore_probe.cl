// tensorcore_probe: one warp multiplies a 16 x 8 matrix A by an 8 x 8 matrix B (both row-major)
// with the instructions tensorcore.cl is made of: cp.async into local memory, ldmatrix and
// the TF32 mma.sync.m16n8k8. It also rounds 32 values with the hardware's cvt.rna.tf32.f32, so
// the host can check that the tensor-core path rounds exactly as the portable path does. The
// host builds and runs it once per device before it trusts the tensor-core path; with small
// integers as inputs the product is exact, so any difference from the host's product means
// the device does not run these instructions as expected.
#include "ptx.clh"

__kernel __attribute__((reqd_work_group_size(32, 1, 1))) void tensorcore_probe(
    __global const float *a, __global const float *b, __global float *d,
    __global const float *values, __global uint *rounded) {
  __local float a_local[16 * 8] __attribute__((aligned(16)));
  __local float b_local[8 * 8] __attribute__((aligned(16)));
  const int lane = get_local_id(0);
  copy_async(a_local + 4 * lane, a + 4 * lane, 4, 4); // 32 chunks of 4 floats
  if (lane < 16) copy_async(b_local + 4 * lane, b + 4 * lane, 4, 4);
  commit_copies();
  wait_for_copies();
  barrier(CLK_LOCAL_MEM_FENCE);

  const int g = lane / 4, t = lane % 4;
  // A through ldmatrix, as tensorcore.cl reads it: block q holds rows + 8 (q & 1), k + 4 (q >> 1).
  const int block = lane / 8;
  uint words[4];
  load_matrix_x4(words, a_local + (lane % 8 + (block & 1) * 8) * 8 + (block >> 1) * 4);
  const float a_fragment[4] = {as_float(words[0]), as_float(words[1]), as_float(words[2]),
                               as_float(words[3])};
  const float b_fragment[2] = {b_local[t * 8 + g], b_local[(t + 4) * 8 + g]};
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  mma_16x8x8(acc, a_fragment, b_fragment);
  d[g * 8 + 2 * t] = acc[0];
  d[g * 8 + 2 * t + 1] = acc[1];
  d[(g + 8) * 8 + 2 * t] = acc[2];
  d[(g + 8) * 8 + 2 * t + 1] = acc[3];
  rounded[lane] = as_uint(cvt_tf32(values[lane])) & 0xffffe000u;
}
