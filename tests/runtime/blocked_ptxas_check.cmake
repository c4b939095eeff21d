# Checks kernels/blocked.cl's NVIDIA paths without an NVIDIA GPU: clang's NVPTX back end compiles
# each variant, the entry gets the bound NVIDIA's OpenCL compiler writes from
# reqd_work_group_size (both in nvptx_kernel.cmake), and ptxas must assemble it for sm_90
# without spilling registers. The variants are those a Hopper runs: the H200's tuned FP32 entries
# (tuning/h200.json), each with the two k-groups `auto` plans for launches of few work-groups,
# the short-K pipeline's asynchronous copies, the asynchronous copies in k-groups, split K,
# transposes, unaligned operands, an epilogue, and TF32 and 3xTF32. The PoCL tests cannot reach
# the asynchronous copies (cp.async is NVIDIA's); only a run on the GPU shows the products right.
#   cmake -DCLANG=... -DPTXAS=... -DKERNELS=... -DWORK=... -P blocked_ptxas_check.cmake
file(MAKE_DIRECTORY ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/nvptx_kernel.cmake)

# The value of -D`name`=V in the options, else `default`.
function(option_value out name default)
  string(REGEX MATCH "-D${name}=([0-9]+)" found "${ARGN}")
  if(found)
    set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
  else()
    set(${out} ${default} PARENT_SCOPE)
  endif()
endfunction()

set(report "")
function(check name)
  nvptx_compile(ptx ${name} blocked.cl ${ARGN})
  if("${ARGN}" MATCHES "-DASYNC_COPY=1" AND NOT ptx MATCHES "cp\\.async\\.")
    message(FATAL_ERROR "blocked.cl ${ARGN}: no cp.async in the PTX")
  endif()
  # The work-group as reqd_work_group_size has it: (TILE_N / ITEM_N) x (TILE_M / ITEM_M) work-items
  # per k-group (the kernel's defaults where an option is not given).
  option_value(tile_m TILE_M 128 ${ARGN})
  option_value(tile_n TILE_N 128 ${ARGN})
  option_value(item_m ITEM_M 8 ${ARGN})
  option_value(item_n ITEM_N 8 ${ARGN})
  option_value(k_groups K_GROUPS 1 ${ARGN})
  math(EXPR items "${tile_m} / ${item_m} * ${tile_n} / ${item_n} * ${k_groups}")
  bound_entry(ptx ${items})
  file(WRITE ${WORK}/${name}.bounded.ptx "${ptx}")
  ptxas_assemble(output sm_90 ${WORK}/${name}.bounded.ptx "blocked.cl ${ARGN}")
  string(REGEX MATCH "Used ([0-9]+) registers[^\n]*" used "${output}")
  set(report "${report}\n  ${name} (${items} work-items): ${used}" PARENT_SCOPE)
endfunction()

# The H200's tuned FP32 entries, and with two k-groups those `auto` gives them
# (plan/k_groups.hpp: single products whose tiles' sums fit local memory).
set(large -DTILE_M=128 -DTILE_N=256 -DTILE_K=8 -DITEM_M=16 -DITEM_N=8 -DVEC=4 -DUNROLL=1
          -DLOCAL_PAD=4 -DSTORE_VEC4=1)
set(medium_large -DTILE_M=64 -DTILE_N=128 -DTILE_K=8 -DITEM_M=8 -DITEM_N=8 -DVEC=4 -DUNROLL=1
                 -DLANES_N=8 -DFRAG_PREFETCH=1 -DLOCAL_PAD=4 -DSTORE_VEC4=1)
set(medium -DTILE_M=64 -DTILE_N=64 -DTILE_K=16 -DITEM_M=8 -DITEM_N=4 -DVEC=4 -DUNROLL=1
           -DSTORE_VEC4=1)
set(skinny -DTILE_M=64 -DTILE_N=128 -DTILE_K=16 -DITEM_M=8 -DITEM_N=4 -DVEC=4 -DUNROLL=1
           -DSTORE_VEC4=1)
set(small -DTILE_M=16 -DTILE_N=64 -DTILE_K=32 -DITEM_M=4 -DITEM_N=4 -DVEC=8 -DUNROLL=0
          -DSTORE_VEC4=1)
set(tiny -DTILE_M=16 -DTILE_N=64 -DTILE_K=16 -DITEM_M=4 -DITEM_N=4 -DVEC=2 -DUNROLL=1
         -DSTORE_VEC4=1)
set(thin -DTILE_M=32 -DTILE_N=128 -DTILE_K=32 -DITEM_M=8 -DITEM_N=4 -DVEC=4 -DUNROLL=1
         -DLOCAL_PAD=4 -DSTORE_VEC4=1)
set(small_k -DTILE_M=128 -DTILE_N=256 -DTILE_K=8 -DITEM_M=16 -DITEM_N=8 -DVEC=4 -DUNROLL=1
            -DSTORE_VEC4=1)
set(batched_small -DTILE_M=128 -DTILE_N=128 -DTILE_K=8 -DITEM_M=16 -DITEM_N=4 -DVEC=2
                  -DUNROLL=1 -DSTORE_VEC4=1)
set(batched_tiny -DTILE_M=32 -DTILE_N=32 -DTILE_K=16 -DITEM_M=8 -DITEM_N=4 -DVEC=4 -DUNROLL=1
                 -DSTORE_VEC4=1)
foreach(entry large thin small_k batched_small batched_tiny)
  check(${entry} ${${entry}} -DA_ALIGNED=1 -DB_ALIGNED=1)
endforeach()
foreach(entry medium_large medium skinny small tiny)
  check(${entry} ${${entry}} -DA_ALIGNED=1 -DB_ALIGNED=1)
  check(${entry}_k_groups_2 ${${entry}} -DK_GROUPS=2 -DA_ALIGNED=1 -DB_ALIGNED=1)
endforeach()
# The short-K pipeline (blocked_short_k_tiles(): three stages of cp.async), and with split K.
set(short_k ${medium_large} -DASYNC_COPY=1 -DSTAGES=3)
check(short_k ${short_k} -DA_ALIGNED=1 -DB_ALIGNED=1)
check(short_k_sliced ${short_k} -DSLICED_K=1 -DA_ALIGNED=1 -DB_ALIGNED=1)
# Asynchronous copies in k-groups: two with three stages, four with two, A and B transposed.
check(async_k_groups_2 ${short_k} -DK_GROUPS=2 -DA_ALIGNED=1 -DB_ALIGNED=1)
check(async_k_groups_4_t -DTILE_M=64 -DTILE_N=64 -DTILE_K=8 -DITEM_M=8 -DITEM_N=4 -DVEC=4
      -DUNROLL=1 -DSTORE_VEC4=1 -DASYNC_COPY=1 -DSTAGES=2 -DK_GROUPS=4 -DTRANS_A=1 -DTRANS_B=1
      -DA_ALIGNED=1 -DB_ALIGNED=1)
# Unaligned operands (element by element), an epilogue, and the reduced precisions.
check(medium_large_unaligned ${medium_large} -DK_GROUPS=2 -DA_ALIGNED=0 -DB_ALIGNED=0)
check(large_epilogue ${large} -DBIAS=2 -DACTIVATION=1 -DA_ALIGNED=1 -DB_ALIGNED=1)
check(medium_large_tf32 ${medium_large} -DPRECISION=1 -DA_ALIGNED=1 -DB_ALIGNED=1)
check(medium_tf32_k_groups_2 ${medium} -DPRECISION=1 -DK_GROUPS=2 -DA_ALIGNED=1 -DB_ALIGNED=1)
message(STATUS "blocked.cl: every variant assembles for sm_90 without spills:${report}")
