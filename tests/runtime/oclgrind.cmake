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

# Registers oclgrind.<name>: every kernel through one test of the program (UnderOclgrind.<test>)
# under oclgrind with `checks`. oclgrind writes its reports to the log, which the program reads
# after each GEMM; a fatal simulator error goes to stderr instead.
function(clgemm_add_oclgrind_test name test checks)
  add_test(NAME oclgrind.${name}
    COMMAND ${OCLGRIND_EXECUTABLE} ${checks} --log ${CMAKE_CURRENT_BINARY_DIR}/oclgrind-${name}.log
            $<TARGET_FILE:clgemm-oclgrind-tests> --gtest_filter=*.${test}/*)
  set_tests_properties(oclgrind.${name} PROPERTIES
    LABELS oclgrind
    TIMEOUT 600
    # Under oclgrind its platform is the only one; the program checks it got it. Programs are
    # not cached on disk: the cache key cannot see oclgrind's --build-options.
    ENVIRONMENT "CLGEMM_PLATFORM=Oclgrind;CLGEMM_CACHE_DIR=off"
    FAIL_REGULAR_EXPRESSION "OCLGRIND FATAL ERROR")
endfunction()

# Invalid accesses are always checked. The derived options run optimised, as a device compiles
# them, with data-race and API checks. The smaller options add the uninitialised-value check,
# which needs unoptimised kernels (oclgrind 21.10's checker stops with "Unsupported
# instruction: freeze" on optimised vectorized.cl) and costs about four times as much.
clgemm_add_oclgrind_test(derived_options DerivedOptions "--data-races;--check-api")
clgemm_add_oclgrind_test(smaller_options SmallerOptions
  "--data-races;--check-api;--uninitialized;--build-options;-cl-opt-disable")
# The batched and epilogue variants, with the derived options.
clgemm_add_oclgrind_test(batched_epilogue BatchedWithEpilogue "--data-races;--check-api")
