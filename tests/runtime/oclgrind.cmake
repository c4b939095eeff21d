# Kernel memory and race checking: clgemm-oclgrind-tests (oclgrind_test.cpp) runs every kernel
# of the catalogue on the oclgrind device simulator, which reports out-of-bounds accesses, data
# races, uninitialised values and OpenCL API misuse. `ctest -L oclgrind` runs only these.
find_program(OCLGRIND_EXECUTABLE oclgrind)
if(NOT OCLGRIND_EXECUTABLE)
  message(STATUS "oclgrind not found (tools/bootstrap.sh installs it): kernel checks skipped")
  return()
endif()
if(CLGEMM_SANITIZE)
  # oclgrind preloads its own OpenCL runtime, and AddressSanitizer refuses to start unless its
  # runtime is the first library loaded: the kernel checks belong to the plain build.
  return()
endif()

add_executable(clgemm-oclgrind-tests oclgrind_test.cpp)
target_link_libraries(clgemm-oclgrind-tests PRIVATE clgemm::clgemm GTest::gtest_main)

# The checks, one test of the program (UnderOclgrind.<test>) each, run under oclgrind with its
# options; oclgrind_discover.cmake registers them per kernel as oclgrind.<check>.<kernel> once the
# program is built. oclgrind writes its reports to the log, which the program reads after each
# GEMM; a fatal simulator error goes to stderr instead.
# Invalid accesses are always checked. The derived options run optimised, as a device compiles
# them, with data-race and API checks. The smaller options add the uninitialised-value check,
# which needs unoptimised kernels (oclgrind 21.10's checker stops with "Unsupported
# instruction: freeze" on optimised vectorized.cl) and costs about four times as much. The
# batched and epilogue variants run with the derived options; blocked's inner-loop options
# (WarpTiles, KGroups) and register_block's row blocks (RowBlocks) with every check, on small
# tiles.
set(oclgrind_checks ${CMAKE_CURRENT_BINARY_DIR}/oclgrind-checks.txt)
file(WRITE ${oclgrind_checks}
  "DerivedOptions|derived_options|--data-races --check-api\n"
  "SmallerOptions|smaller_options|--data-races --check-api --uninitialized --build-options -cl-opt-disable\n"
  "BatchedWithEpilogue|batched_epilogue|--data-races --check-api\n"
  "WarpTiles|warp_tiles|--data-races --check-api --uninitialized --build-options -cl-opt-disable\n"
  "KGroups|k_groups|--data-races --check-api --uninitialized --build-options -cl-opt-disable\n"
  "RowBlocks|row_blocks|--data-races --check-api --uninitialized --build-options -cl-opt-disable\n")
set(oclgrind_tests ${CMAKE_CURRENT_BINARY_DIR}/oclgrind-tests.cmake)
add_custom_command(TARGET clgemm-oclgrind-tests POST_BUILD
  COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:clgemm-oclgrind-tests>
          -DOCLGRIND=${OCLGRIND_EXECUTABLE} -DCHECKS=${oclgrind_checks}
          -DLOG_DIR=${CMAKE_CURRENT_BINARY_DIR} -DOUTPUT=${oclgrind_tests}
          -P ${CMAKE_CURRENT_SOURCE_DIR}/oclgrind_discover.cmake
  BYPRODUCTS ${oclgrind_tests}
  VERBATIM)
# ctest reads the generated list once the program is built (before that, no oclgrind test).
set(oclgrind_include ${CMAKE_CURRENT_BINARY_DIR}/oclgrind-include.cmake)
file(WRITE ${oclgrind_include}
  "if(EXISTS \"${oclgrind_tests}\")\n  include(\"${oclgrind_tests}\")\nendif()\n")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${oclgrind_include})
