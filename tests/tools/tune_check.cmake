# cli.tune_tiny: runs clgemm-tune on a tiny problem with two candidates of the cheap-to-build
# tile kernel, checks the database entry it writes, then checks that --resume reuses the
# finished class instead of measuring again. Run as
#   cmake -DTUNE=<clgemm-tune> -DWORK=<scratch directory> -P tune_check.cmake
cmake_minimum_required(VERSION 3.20)  # policies: quoted strings in if() are not variables
file(REMOVE_RECURSE "${WORK}")
set(common --kernel tile --classes small --size-scale 0.125 --budget 2 --space TILE=4,8
           --output "${WORK}/tuning.json" --state "${WORK}/state.json")

execute_process(COMMAND "${TUNE}" ${common} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clgemm-tune exited with ${rc}")
endif()

file(READ "${WORK}/tuning.json" json)
string(JSON entries LENGTH "${json}" entries)
string(JSON shape_class GET "${json}" entries 0 shape_class)
string(JSON kernel GET "${json}" entries 0 kernel)
string(JSON m GET "${json}" entries 0 m)
string(JSON tile GET "${json}" entries 0 options TILE)
string(JSON gflops GET "${json}" entries 0 gflops)
if(NOT entries EQUAL 1 OR NOT shape_class STREQUAL "small" OR NOT kernel STREQUAL "tile" OR
   NOT m EQUAL 64 OR tile LESS 1 OR NOT gflops GREATER 0)
  message(FATAL_ERROR "unexpected database:\n${json}")
endif()

execute_process(COMMAND "${TUNE}" ${common} --resume RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "already tuned")
  message(FATAL_ERROR "--resume did not reuse the finished class (exit ${rc})")
endif()
