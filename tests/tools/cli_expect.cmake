# One command-line check: runs the command given after "--", then requires its exact exit status
# and that its output (stdout and stderr together) matches a regular expression, and optionally
# that it does not match another. Registered through cli_expect() in tests/CMakeLists.txt; run as
#   cmake -DEXPECT_EXIT=<status> -DEXPECT_MATCH=<regex> [-DEXPECT_NO_MATCH=<regex>]
#         -P cli_expect.cmake -- <program> [arguments...]
# Whatever the expectation, a crash is never a pass: an abort or uncaught exception fails.
cmake_minimum_required(VERSION 3.20)  # policies: quoted strings in if() are not variables

set(command)
set(after_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(index RANGE 1 ${last})
  if(after_separator)
    list(APPEND command "${CMAKE_ARGV${index}}")
  elseif(CMAKE_ARGV${index} STREQUAL "--")
    set(after_separator TRUE)
  endif()
endforeach()
if(NOT command)
  message(FATAL_ERROR "cli_expect.cmake: no command after --")
endif()

execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(output "${out}${err}")
message("${output}")
if(NOT status STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "exit status ${status}, expected ${EXPECT_EXIT}")
endif()
if(NOT output MATCHES "${EXPECT_MATCH}")
  message(FATAL_ERROR "the output does not match '${EXPECT_MATCH}'")
endif()
if(DEFINED EXPECT_NO_MATCH AND output MATCHES "${EXPECT_NO_MATCH}")
  message(FATAL_ERROR "the output matches '${EXPECT_NO_MATCH}', which it must not")
endif()
if(output MATCHES "terminate called|Aborted|Segmentation fault|core dumped")
  message(FATAL_ERROR "the program crashed")
endif()
