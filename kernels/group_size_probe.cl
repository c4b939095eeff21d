// group_size_probe: one work-group of GROUP work-items sums 1 + 2 + ... + GROUP through local
// memory, a barrier between every halving, and each work-item writes its local id. The host
// runs it at the device's CL_DEVICE_MAX_WORK_GROUP_SIZE where a driver reports a smaller
// CL_KERNEL_WORK_GROUP_SIZE than the kernel's required size (NVIDIA's reports 256 for every
// kernel, a 10-register one included): if the sums and ids come back right, groups of the
// required size run there (src/runtime/capability_probes.hpp).
#ifndef GROUP
#define GROUP 1024
#endif

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void group_size_probe(
    __global int *sums, __global int *ids) {
  __local int partial[GROUP];
  const int item = get_local_id(0);
  partial[item] = item + 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int span = GROUP / 2; span > 0; span /= 2) {
    if (item < span) partial[item] += partial[item + span];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (item == 0) sums[get_group_id(0)] = partial[0];
  ids[get_global_id(0)] = item;
}
