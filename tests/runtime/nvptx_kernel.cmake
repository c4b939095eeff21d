# Helpers of the offline PTX checks of whole kernels (wgmma_kernel_ptxas_check.cmake,
# blocked_ptxas_check.cmake), included by them: a kernel compiled by clang's NVPTX back end with
# the built-ins of nvptx_builtins.clh, the work-group bound NVIDIA's compiler writes into the
# entry, and ptxas's verdict. They take CLANG, PTXAS, KERNELS and WORK from the including script.

# Compiles kernels/`kernel` (a file name) with the options in ARGN into ${WORK}/`name`.ptx and
# reads it into `out`; a compile error fails the check.
function(nvptx_compile out name kernel)
  file(WRITE ${WORK}/${kernel}.nvptx.cl "#include \"nvptx_builtins.clh\"\n#include \"${kernel}\"\n")
  execute_process(
    COMMAND ${CLANG} -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -Xclang
            -finclude-default-header -Xclang -target-cpu -Xclang sm_80 -O2 -S -I ${KERNELS}
            -I ${CMAKE_CURRENT_FUNCTION_LIST_DIR} -Dasm=__asm__ -Werror ${ARGN}
            -o ${WORK}/${name}.ptx ${WORK}/${kernel}.nvptx.cl
    RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${kernel} ${ARGN} does not compile for NVPTX:\n${errors}")
  endif()
  file(READ ${WORK}/${name}.ptx ptx)
  set(${out} "${ptx}" PARENT_SCOPE)
endfunction()

# NVIDIA's compiler writes reqd_work_group_size into the entry as .reqntid, which bounds
# ptxas's registers (65536 / work-items); clang's NVPTX target leaves it out, so it is added to
# the PTX in `ptx_var`.
function(bound_entry ptx_var items)
  set(ptx "${${ptx_var}}")
  string(FIND "${ptx}" ".entry" entry)
  string(SUBSTRING "${ptx}" ${entry} -1 tail)
  string(FIND "${tail}" "\n{" body)
  math(EXPR body "${entry} + ${body}")
  string(SUBSTRING "${ptx}" 0 ${body} head)
  string(SUBSTRING "${ptx}" ${body} -1 tail)
  set(${ptx_var} "${head}\n.reqntid ${items}, 1, 1${tail}" PARENT_SCOPE)
endfunction()

# Assembles `ptx_file` with CUDA's ptxas (PTXAS from the including script) for `arch`, into
# `out` its report (-v); a refusal or a spill of registers fails the check, naming `what`.
function(ptxas_assemble out arch ptx_file what)
  execute_process(COMMAND ${PTXAS} -arch=${arch} -v -o ${ptx_file}.cubin ${ptx_file}
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "ptxas -arch=${arch} refuses ${what}:\n${output}")
  endif()
  if(NOT output MATCHES "0 bytes spill stores, 0 bytes spill loads")
    message(FATAL_ERROR "${what} spills registers:\n${output}")
  endif()
  set(${out} "${output}" PARENT_SCOPE)
endfunction()
