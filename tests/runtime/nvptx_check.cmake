# Compiles the tensor-core kernels (tensorcore.cl, tensorcore_probe.cl; wgmma_probe.cl and
# wgmma.cl at the end) for NVIDIA's PTX with clang, for every variant the host builds (TRANS_A,
# TRANS_B, PRECISION, aligned or not), so a mistake in their OpenCL C or inline PTX shows on
# machines without an NVIDIA GPU. clang's NVPTX back end is not NVIDIA's OpenCL compiler, but both take
# the same asm operands; the H200 runs of tools/device/h200_tensorcore.sh are the real test.
# Each variant's PTX must hold the tensor-core instructions and no spills to local (stack)
# memory.
#   cmake -DCLANG=... -DKERNELS=... -DWORK=... -P nvptx_check.cmake
file(MAKE_DIRECTORY ${WORK})
set(common -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -Xclang -finclude-default-header
           -Xclang -target-cpu -Xclang sm_80 -O2 -S -I ${KERNELS}
           # clang's OpenCL mode accepts inline assembly only by its GNU spelling.
           -Dasm=__asm__ -Werror)

function(compile name source)
  execute_process(COMMAND ${CLANG} ${common} ${ARGN} -o ${WORK}/${name}.ptx ${KERNELS}/${source}
                  RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${source} ${ARGN} does not compile for NVPTX:\n${errors}")
  endif()
  file(READ ${WORK}/${name}.ptx ptx)
  if(NOT ptx MATCHES "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32")
    message(FATAL_ERROR "${source} ${ARGN}: no mma.sync in the PTX")
  endif()
  if(ptx MATCHES "\\.local")
    message(FATAL_ERROR "${source} ${ARGN}: the PTX uses local (stack) memory")
  endif()
endfunction()

compile(probe tensorcore_probe.cl)
foreach(trans_a 0 1)
  foreach(trans_b 0 1)
    foreach(precision 1 2)
      foreach(aligned 0 1)
        compile(tensorcore_${trans_a}${trans_b}${precision}${aligned} tensorcore.cl
                -DTRANS_A=${trans_a} -DTRANS_B=${trans_b} -DPRECISION=${precision}
                -DA_ALIGNED=${aligned} -DB_ALIGNED=${aligned})
      endforeach()
    endforeach()
  endforeach()
endforeach()
# The tuned shapes of tuning/h200.json, too (other tiles, depths and warp shapes).
compile(tensorcore_medium tensorcore.cl -DTILE_M=128 -DTILE_N=64 -DTILE_K=32 -DWARP_N=32
        -DSTAGES=2 -DA_ALIGNED=1 -DB_ALIGNED=1)
compile(tensorcore_small_warps tensorcore.cl -DTILE_M=64 -DTILE_N=64 -DTILE_K=32 -DWARP_M=32
        -DWARP_N=32 -DPRECISION=2 -DTRANS_B=1)
compile(tensorcore_deep tensorcore.cl -DTILE_K=8 -DSTAGES=4 -DPRECISION=2 -DTRANS_A=1)
# Split-K (SLICED_K) in both precisions, with an epilogue (left to the reduction).
compile(tensorcore_sliced_tf32 tensorcore.cl -DSLICED_K=1 -DA_ALIGNED=1 -DB_ALIGNED=1)
compile(tensorcore_sliced_3x tensorcore.cl -DSLICED_K=1 -DPRECISION=2 -DTRANS_B=1 -DBIAS=1
        -DACTIVATION=2)
# The wgmma probe: its sm_90a statements are marked comments (kernels/wgmma.clh) that the
# compiler fills with registers; ptxas checks the rewritten PTX where it is installed
# (kernels.wgmma_probe_ptxas).
execute_process(COMMAND ${CLANG} ${common} -o ${WORK}/wgmma_probe.ptx ${KERNELS}/wgmma_probe.cl
                RESULT_VARIABLE status ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "wgmma_probe.cl does not compile for NVPTX:\n${errors}")
endif()
file(READ ${WORK}/wgmma_probe.ptx ptx)
if(NOT ptx MATCHES "//@ wgmma\\.mma_async\\.sync\\.aligned\\.m64n8k8\\.f32\\.tf32\\.tf32 {%f")
  message(FATAL_ERROR "wgmma_probe.cl: no marked wgmma with registers in the PTX")
endif()
# The wgmma kernel and its operand pack in both precisions (the kernel reads packed, K-major
# operands whatever the transposes): the marked wgmma must hold the compiler's registers, and
# nothing may go to local (stack) memory; ptxas assembles the kernel for sm_90a where it is
# installed (kernels.wgmma_ptxas).
foreach(precision 1 2)
  set(name wgmma_${precision})
  execute_process(COMMAND ${CLANG} ${common} -DPRECISION=${precision} -o ${WORK}/${name}.ptx
                          ${KERNELS}/wgmma.cl
                  RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "wgmma.cl (${name}) does not compile for NVPTX:\n${errors}")
  endif()
  file(READ ${WORK}/${name}.ptx ptx)
  set(marked "//@ wgmma\\.mma_async\\.sync\\.aligned\\.m64n(64|128|256)k8\\.f32\\.tf32\\.tf32 {%f")
  if(NOT ptx MATCHES "${marked}")
    message(FATAL_ERROR "wgmma.cl (${name}): no marked wgmma with registers in the PTX")
  endif()
  if(ptx MATCHES "\\.local")
    message(FATAL_ERROR "wgmma.cl (${name}): the PTX uses local (stack) memory")
  endif()
  foreach(rows_along_k 0 1)
    set(name wgmma_pack_${precision}${rows_along_k})
    execute_process(COMMAND ${CLANG} ${common} -DPRECISION=${precision}
                            -DROWS_ALONG_K=${rows_along_k} -o ${WORK}/${name}.ptx
                            ${KERNELS}/wgmma_pack.cl
                    RESULT_VARIABLE status ERROR_VARIABLE errors)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "wgmma_pack.cl (${name}) does not compile for NVPTX:\n${errors}")
    endif()
  endforeach()
endforeach()
message(STATUS "tensorcore.cl, tensorcore_probe.cl, wgmma_probe.cl, wgmma.cl and wgmma_pack.cl "
               "compile for NVPTX in every variant")
