# cli.accuracy_tiny: runs clgemm-accuracy on a tiny problem (M = N = 32, K = 64 and 256) in the
# three precisions, with --dump, and checks that it succeeded (the tool exits 1 when a documented
# guarantee fails: 3xtf32's max normalised error above 2x fp32's, or tf32's not above fp32's),
# that the table has a row per K and precision, and that the dump holds both cases' inputs.
# Run as
#   cmake -DACCURACY=<clgemm-accuracy> -DWORK=<scratch directory> -P accuracy_check.cmake
cmake_minimum_required(VERSION 3.20)  # policies: quoted strings in if() are not variables
file(REMOVE_RECURSE "${WORK}")
execute_process(
  COMMAND "${ACCURACY}" --mn 32 --k 64,256 --precisions fp32,tf32,3xtf32 --dump "${WORK}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clgemm-accuracy exited with ${rc}")
endif()

foreach(k 64 256)
  foreach(precision fp32 tf32 3xtf32)
    if(NOT out MATCHES "\n +${k}  ${precision} +[0-9]")
      message(FATAL_ERROR "no table row for K=${k} ${precision}")
    endif()
  endforeach()
endforeach()
if(NOT out MATCHES "guarantees [^\n]*: hold")
  message(FATAL_ERROR "the guarantees line does not say 'hold'")
endif()

# The dump: a manifest naming 32 x K and K x 32 float32 files of the right size.
file(READ "${WORK}/manifest.json" manifest)
string(JSON cases LENGTH "${manifest}" cases)
if(NOT cases EQUAL 2)
  message(FATAL_ERROR "expected 2 cases in manifest.json:\n${manifest}")
endif()
foreach(index 0 1)
  string(JSON k GET "${manifest}" cases ${index} k)
  math(EXPR bytes "32 * ${k} * 4")
  foreach(matrix a_file b_file)
    string(JSON name GET "${manifest}" cases ${index} ${matrix})
    file(SIZE "${WORK}/${name}" size)
    if(NOT size EQUAL bytes)
      message(FATAL_ERROR "${name}: ${size} bytes, expected ${bytes}")
    endif()
  endforeach()
endforeach()
