# Checks the wgmma path of kernels/wgmma_probe.cl without an NVIDIA GPU: clang's NVPTX back end
# compiles it as NVIDIA's OpenCL compiler would (operands substituted inside the marked
# comments), the PTX is given the header NVIDIA's compiler writes (.target sm_90), ptxas for
# sm_90 accepts it as it is, and refuses it with the markers simply deleted (wgmma needs
# sm_90a); then the library's rewrite (clgemm-ptx-rewrite) makes PTX that ptxas assembles for
# sm_90a. clang's OpenCL target has no library, so get_local_id and barrier are defined here.
# The H200 run of the wgmma probe (internal.Wgmma.*) remains the real test.
#   cmake -DCLANG=... -DPTXAS=... -DREWRITE=... -DKERNELS=... -DWORK=... -P wgmma_ptxas_check.cmake
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/wgmma_probe_nvptx.cl [=[
// The two OpenCL built-ins the probe calls, for clang's NVPTX target.
size_t __attribute__((overloadable)) get_local_id(uint dimension) {
  return dimension == 0   ? __nvvm_read_ptx_sreg_tid_x()
         : dimension == 1 ? __nvvm_read_ptx_sreg_tid_y()
                          : __nvvm_read_ptx_sreg_tid_z();
}
void __attribute__((overloadable)) barrier(cl_mem_fence_flags flags) {
  __asm__ volatile("bar.sync 0;" ::: "memory");
}
#include "wgmma_probe.cl"
]=])

execute_process(
  COMMAND ${CLANG} -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -Xclang -finclude-default-header
          -Xclang -target-cpu -Xclang sm_80 -O2 -S -I ${KERNELS} -Dasm=__asm__ -Werror
          -o ${WORK}/compiled.ptx ${WORK}/wgmma_probe_nvptx.cl
  RESULT_VARIABLE status ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "wgmma_probe.cl does not compile for NVPTX:\n${errors}")
endif()
file(READ ${WORK}/compiled.ptx ptx)
set(f "%f[0-9]+")
set(r "%r[0-9]+")
set(marked "//@ wgmma\\.mma_async\\.sync\\.aligned\\.m64n8k8\\.f32\\.tf32\\.tf32 ")
string(APPEND marked "{${f}, ${f}, ${f}, ${f}}, {${r}, ${r}, ${r}, ${r}}, ")
string(APPEND marked "%rd[0-9]+, accumulate, 1, 1;")
if(NOT ptx MATCHES "${marked}")
  message(FATAL_ERROR "the marked wgmma in the PTX does not hold the compiler's registers")
endif()

# The header NVIDIA's OpenCL compiler writes on an H200 (its .version is 9.0; sm_90a needs 8.0).
string(REGEX REPLACE "\n\\.version [0-9]+\\.[0-9]+" "\n.version 8.0" ptx "${ptx}")
string(REGEX REPLACE "\n\\.target sm_[0-9]+" "\n.target sm_90" ptx "${ptx}")
file(WRITE ${WORK}/sm90.ptx "${ptx}")

function(ptxas architecture input expect)
  execute_process(COMMAND ${PTXAS} -arch=${architecture} -v -o ${WORK}/${architecture}.cubin
                          ${input}
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(expect STREQUAL "accepts" AND NOT status EQUAL 0)
    message(FATAL_ERROR "ptxas -arch=${architecture} refuses ${input}:\n${output}")
  elseif(expect STREQUAL "refuses" AND status EQUAL 0)
    message(FATAL_ERROR "ptxas -arch=${architecture} accepts ${input}, which it should refuse")
  endif()
  set(ptxas_output "${output}" PARENT_SCOPE)
endfunction()

ptxas(sm_90 ${WORK}/sm90.ptx accepts)
string(REPLACE "//@ " "" unmarked "${ptx}")
file(WRITE ${WORK}/unmarked.ptx "${unmarked}")
ptxas(sm_90 ${WORK}/unmarked.ptx refuses)

execute_process(COMMAND ${REWRITE} ${WORK}/sm90.ptx ${WORK}/sm90a.ptx
                RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT status EQUAL 0 OR NOT output MATCHES "4 marked statements")
  message(FATAL_ERROR "clgemm-ptx-rewrite failed:\n${output}")
endif()
file(READ ${WORK}/sm90a.ptx rewritten)
if(rewritten MATCHES "//@" OR NOT rewritten MATCHES "\n\\.target sm_90a, texmode_independent\n"
   OR NOT rewritten MATCHES "\nwgmma\\.mma_async\\.sync\\.aligned\\.m64n8k8")
  message(FATAL_ERROR "the rewritten PTX still has markers or lacks the sm_90a target")
endif()
ptxas(sm_90a ${WORK}/sm90a.ptx accepts)
if(NOT ptxas_output MATCHES "0 bytes spill stores, 0 bytes spill loads")
  message(FATAL_ERROR "the probe spills registers:\n${ptxas_output}")
endif()
message(STATUS "wgmma_probe.cl: the rewritten PTX assembles for sm_90a\n${ptxas_output}")
