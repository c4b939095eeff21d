# Checks kernels/wgmma.cl without an NVIDIA GPU, as wgmma_ptxas_check.cmake does the probe:
# clang's NVPTX back end compiles each variant (operands substituted inside the marked
# comments), the PTX gets the header NVIDIA's OpenCL compiler writes on an H200 (.target
# sm_90), the library's rewrite (clgemm-ptx-rewrite) retargets it to sm_90a, and ptxas must
# assemble it without spilling registers or serializing the wgmma. The variants: both
# precisions, an epilogue, and other tiles, depths and stages (the compile and the bound in
# nvptx_kernel.cmake). Only a run on the H200 (the precision tests' wgmma cases) shows that the
# kernel computes the product.
#   cmake -DCLANG=... -DPTXAS=... -DREWRITE=... -DKERNELS=... -DWORK=...
#         -P wgmma_kernel_ptxas_check.cmake
file(MAKE_DIRECTORY ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/nvptx_kernel.cmake)

set(report "")
function(check name)
  nvptx_compile(ptx ${name} wgmma.cl ${ARGN})
  set(marked "//@ wgmma\\.mma_async\\.sync\\.aligned\\.m64n(64|128|192|256)k8\\.f32\\.tf32\\.tf32 {%f")
  if(NOT ptx MATCHES "${marked}")
    message(FATAL_ERROR "wgmma.cl ${ARGN}: no marked wgmma with registers in the PTX")
  endif()
  # The work-group's bound, where the variant names its warpgroups (nvptx_kernel.cmake).
  string(REGEX MATCH "-DWARPGROUPS=([0-9]+)" warpgroups "${ARGN}")
  if(warpgroups)
    math(EXPR items "${CMAKE_MATCH_1} * 128")
    bound_entry(ptx ${items})
  endif()
  string(REGEX REPLACE "\n\\.version [0-9]+\\.[0-9]+" "\n.version 8.0" ptx "${ptx}")
  string(REGEX REPLACE "\n\\.target sm_[0-9]+" "\n.target sm_90" ptx "${ptx}")
  file(WRITE ${WORK}/${name}.sm90.ptx "${ptx}")
  execute_process(COMMAND ${REWRITE} ${WORK}/${name}.sm90.ptx ${WORK}/${name}.sm90a.ptx
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "clgemm-ptx-rewrite failed on wgmma.cl ${ARGN}:\n${output}")
  endif()
  ptxas_assemble(output sm_90a ${WORK}/${name}.sm90a.ptx "wgmma.cl ${ARGN}")
  if(output MATCHES "[Ss]eriali[sz]")
    message(FATAL_ERROR "ptxas serializes the wgmma of wgmma.cl ${ARGN}:\n${output}")
  endif()
  string(REGEX MATCH "Used ([0-9]+) registers[^\n]*" used "${output}")
  # A variant meant to run two work-groups of 256 on a multiprocessor must fit 65536 / 512 = 128
  # registers (max_registers, set around its check).
  if(DEFINED max_registers AND CMAKE_MATCH_1 GREATER max_registers)
    message(FATAL_ERROR "wgmma.cl ${ARGN} needs ${CMAKE_MATCH_1} registers, more than "
                        "${max_registers}:\n${output}")
  endif()
  set(report "${report}\n  ${name} (${ARGN}): ${used}" PARENT_SCOPE)
endfunction()

# The derived tiles (128 x 64, TILE_K 16, three stages) in both precisions; transposes do not
# change the kernel (its operands are packed K-major), the epilogue does.
foreach(precision 1 2)
  check(wgmma_${precision} -DPRECISION=${precision})
endforeach()
# An epilogue, one warpgroup, n64, n128 and n256, shallow and deep slices, two to six stages.
check(wgmma_epilogue -DPRECISION=2 -DBIAS=2 -DACTIVATION=1)
check(wgmma_64x64x32_s2 -DTILE_M=64 -DTILE_N=64 -DTILE_K=32 -DSTAGES=2)
check(wgmma_64x64x32_s2_3x -DTILE_M=64 -DTILE_N=64 -DTILE_K=32 -DSTAGES=2 -DPRECISION=2)
check(wgmma_128x128x16_s2 -DTILE_N=128 -DTILE_K=16 -DSTAGES=2)
check(wgmma_128x128x16_s2_3x -DTILE_N=128 -DTILE_K=16 -DSTAGES=2 -DPRECISION=2)
check(wgmma_64x128x16_s3_3x -DTILE_M=64 -DTILE_N=128 -DSTAGES=3 -DPRECISION=2)
check(wgmma_128x256x8_s3 -DTILE_N=256 -DTILE_K=8 -DSTAGES=3)
check(wgmma_128x128x8_s5 -DTILE_N=128 -DTILE_K=8 -DSTAGES=5)
check(wgmma_64x256x8_s4 -DTILE_M=64 -DTILE_N=256 -DTILE_K=8 -DSTAGES=4)
check(wgmma_64x64x8_s6 -DTILE_M=64 -DTILE_N=64 -DTILE_K=8 -DSTAGES=6)
# Two work-groups of 256 on a multiprocessor: the tuned TF32 tiles (128 x 128 x 24, A in
# registers, three stages) and 192 columns (m64n192k8) with A through the pages; with A in
# registers 192 columns take more than 128 registers (one work-group per multiprocessor).
set(max_registers 128)
check(wgmma_tuned_128x128x24_s3 -DA_REGISTERS=1 -DTILE_N=128 -DTILE_K=24 -DSTAGES=3)
check(wgmma_128x192x16_s2 -DTILE_N=192 -DTILE_K=16 -DSTAGES=2)
check(wgmma_128x192x8_s4_last_warp -DTILE_N=192 -DTILE_K=8 -DSTAGES=4 -DLAST_WARP_REFILLS=1)
unset(max_registers)
check(wgmma_registers_128x192x8_s4 -DA_REGISTERS=1 -DTILE_N=192 -DTILE_K=8 -DSTAGES=4)
# Two blocks of 64 rows per warpgroup, through the pages and with A in registers.
check(wgmma_256x128x8_s3 -DTILE_M=256 -DTILE_N=128 -DTILE_K=8 -DSTAGES=3)
check(wgmma_registers_256x128x16_s4 -DA_REGISTERS=1 -DTILE_M=256 -DTILE_N=128
      -DTILE_K=16 -DSTAGES=4)
check(wgmma_registers_256x64x16_s4_3x -DA_REGISTERS=1 -DTILE_M=256 -DTILE_N=64
      -DTILE_K=16 -DSTAGES=4 -DPRECISION=2)
check(wgmma_registers_128x256x16_s2 -DA_REGISTERS=1 -DTILE_N=256 -DTILE_K=16 -DSTAGES=2)
check(wgmma_registers_128x128x32_s2_3x -DA_REGISTERS=1 -DTILE_N=128 -DTILE_K=32 -DSTAGES=2
      -DPRECISION=2)
check(wgmma_registers_64x64x8_s6 -DA_REGISTERS=1 -DTILE_M=64 -DTILE_N=64 -DTILE_K=8 -DSTAGES=6)
check(wgmma_registers_epilogue -DA_REGISTERS=1 -DTILE_M=256 -DTILE_N=128
      -DTILE_K=16 -DSTAGES=4 -DBIAS=2 -DACTIVATION=1)
# A loaded as the caller stores it (A_REGISTERS 2), both orientations, both precisions, the
# tuned entries' tiles and two blocks of 64 rows per warpgroup.
check(wgmma_stored_a_128x128x24_s3 -DA_REGISTERS=2 -DTILE_N=128 -DTILE_K=24 -DSTAGES=3)
check(wgmma_stored_a_t_128x128x24_s3 -DA_REGISTERS=2 -DTRANS_A=1 -DTILE_N=128 -DTILE_K=24
      -DSTAGES=3)
check(wgmma_stored_a_128x64x32_s4_3x -DA_REGISTERS=2 -DTILE_K=32 -DSTAGES=4
      -DLAST_WARP_REFILLS=1 -DPRECISION=2)
check(wgmma_stored_a_256x128x16_s4 -DA_REGISTERS=2 -DTILE_M=256 -DTILE_N=128 -DTILE_K=16
      -DSTAGES=4 -DBIAS=2 -DACTIVATION=1)
check(wgmma_stored_a_t_64x64x32_s2_3x -DA_REGISTERS=2 -DTRANS_A=1 -DTILE_M=64 -DTILE_N=64
      -DTILE_K=32 -DSTAGES=2 -DPRECISION=2)
# Four warpgroups of one block of 64 rows each (512 work-items, at most 128 registers each).
check(wgmma_4wg_registers_256x128x16_s4 -DWARPGROUPS=4 -DA_REGISTERS=1 -DTILE_M=256
      -DTILE_N=128 -DTILE_K=16 -DSTAGES=4)
check(wgmma_4wg_256x128x8_s3 -DWARPGROUPS=4 -DTILE_M=256 -DTILE_N=128 -DTILE_K=8 -DSTAGES=3)
check(wgmma_4wg_registers_256x64x32_s4_3x -DWARPGROUPS=4 -DA_REGISTERS=1 -DTILE_M=256
      -DTILE_N=64 -DTILE_K=32 -DSTAGES=4 -DPRECISION=2 -DLAST_WARP_REFILLS=1)
# One warpgroup of two blocks.
check(wgmma_1wg_128x64x16_s3 -DWARPGROUPS=1 -DTILE_M=128 -DTILE_N=64 -DTILE_K=16 -DSTAGES=3)
# The last warp done with a page refilling it, in both precisions.
check(wgmma_last_warp_128x128x24_s3 -DA_REGISTERS=1 -DTILE_N=128 -DTILE_K=24 -DSTAGES=3
      -DLAST_WARP_REFILLS=1)
check(wgmma_last_warp_128x64x32_s4_3x -DA_REGISTERS=1 -DTILE_K=32 -DSTAGES=4
      -DLAST_WARP_REFILLS=1 -DPRECISION=2)
# Split-K (SLICED_K): the derived tiles in both precisions, A read as stored transposed, an
# epilogue (left to the reduction).
check(wgmma_sliced_1 -DSLICED_K=1 -DA_REGISTERS=1 -DTILE_K=32)
check(wgmma_sliced_2 -DSLICED_K=1 -DA_REGISTERS=1 -DTILE_K=32 -DPRECISION=2)
check(wgmma_sliced_stored_a_t -DSLICED_K=1 -DA_REGISTERS=2 -DTRANS_A=1 -DTILE_N=128 -DTILE_K=32
      -DSTAGES=2 -DBIAS=2 -DACTIVATION=1)
message(STATUS "wgmma.cl: every variant's rewritten PTX assembles for sm_90a:${report}")
