# cli.bench_tiny: runs clgemm-bench on two tiny square sizes and one odd shape with two kernels
# and no peers, then checks the CSV (a row per kernel and shape, with the arithmetic intensity
# and the ceiling from the given peaks) and the JSON (the same rows under "results", with the
# platform and the peaks the chart needs; cli.bench_chart draws it with tools/bench/plot_bench.py).
# Run as
#   cmake -DBENCH=<clgemm-bench> -DWORK=<scratch directory> -P bench_check.cmake
cmake_minimum_required(VERSION 3.20)  # policies: quoted strings in if() are not variables
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(
  COMMAND "${BENCH}" --sizes 64,96 --shapes 33x65x17 --kernels blocked,tile --peers none
          --min-time 0.01 --peak-gflops 100 --bandwidth-gbs 10
          --json "${WORK}/results.json" --csv "${WORK}/results.csv"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clgemm-bench exited with ${rc}")
endif()

foreach(file results.json results.csv)
  if(NOT EXISTS "${WORK}/${file}")
    message(FATAL_ERROR "clgemm-bench did not write ${file}")
  endif()
endforeach()

# CSV: the header, then 2 kernels x 3 shapes. tile at 64^3 with TILE 16 has intensity 64/18
# (2*64^3 FLOP over 4*(2*64^3/16 + 64^2) bytes) and ceiling 10 GB/s times that.
file(STRINGS "${WORK}/results.csv" rows)
list(LENGTH rows count)
if(NOT count EQUAL 7)
  message(FATAL_ERROR "expected 7 CSV lines, got ${count}")
endif()
list(GET rows 0 header)
if(NOT header MATCHES "intensity_flop_per_byte,ceiling_gflops,trans_a,trans_b$")
  message(FATAL_ERROR "CSV header lacks the intensity, ceiling and transpose columns: ${header}")
endif()
# Columns: ...,m,n,k,batch_count,bias,activation,median_seconds,gflops,runs,back_to_back_seconds,
# back_to_back_gflops,batch,verified,intensity,ceiling,trans_a,trans_b.
foreach(expected ",blocked,64,64,64,1,none,none," ",tile,96,96,96," ",tile,33,65,17,"
                 ",tile,64,64,64,1,none,none,[^,]*,[^,]*,[0-9]+,[^,]*,[^,]*,[0-9]+,true,3\\.5555[0-9]*,35\\.5555")
  if(NOT ";${rows};" MATCHES "${expected}")
    message(FATAL_ERROR "no CSV row matches '${expected}'")
  endif()
endforeach()

# JSON: the same six rows; tile at 64^3 with its intensity and ceiling, and on every row the
# platform and the peaks given.
file(READ "${WORK}/results.json" document)
string(JSON json GET "${document}" results)
string(JSON rows LENGTH "${json}")
if(NOT rows EQUAL 6)
  message(FATAL_ERROR "expected 6 JSON rows, got ${rows}")
endif()
math(EXPR last "${rows} - 1")
set(tile_64 FALSE)
foreach(i RANGE ${last})
  string(JSON platform GET "${json}" ${i} platform)
  string(JSON peak GET "${json}" ${i} peak_gflops)
  string(JSON bandwidth GET "${json}" ${i} bandwidth_gbs)
  if(platform STREQUAL "" OR NOT peak MATCHES "^100(\\.0*)?$" OR
     NOT bandwidth MATCHES "^10(\\.0*)?$")
    message(FATAL_ERROR "JSON row ${i}: platform '${platform}', peaks ${peak} and ${bandwidth}")
  endif()
  string(JSON contender GET "${json}" ${i} contender)
  string(JSON m GET "${json}" ${i} m)
  string(JSON n GET "${json}" ${i} n)
  if(contender STREQUAL "tile" AND m EQUAL 64 AND n EQUAL 64)
    string(JSON intensity GET "${json}" ${i} intensity_flop_per_byte)
    string(JSON ceiling GET "${json}" ${i} ceiling_gflops)
    if(NOT intensity MATCHES "^3\\.5555" OR NOT ceiling MATCHES "^35\\.5555")
      message(FATAL_ERROR "tile at 64^3: intensity ${intensity}, ceiling ${ceiling}")
    endif()
    set(tile_64 TRUE)
  endif()
endforeach()
if(NOT tile_64)
  message(FATAL_ERROR "no JSON row for tile at 64x64x64")
endif()

# --transa/--transb: the odd shape with B alone transposed, verified, named so in the JSON and
# marked in the CSV's last two columns.
execute_process(
  COMMAND "${BENCH}" --shapes 33x65x17 --transb t --kernels auto,blocked --peers none
          --min-time 0.01 --json "${WORK}/transposed.json" --csv "${WORK}/transposed.csv"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clgemm-bench --transb t exited with ${rc}")
endif()
file(STRINGS "${WORK}/transposed.csv" rows)
foreach(expected ",auto,33,65,17,.*,true,[^,]*,[^,]*,n,t" ",blocked,33,65,17,.*,true,[^,]*,[^,]*,n,t")
  if(NOT ";${rows};" MATCHES "${expected}")
    message(FATAL_ERROR "no CSV row matches '${expected}'")
  endif()
endforeach()
file(READ "${WORK}/transposed.json" document)
string(JSON shape GET "${document}" results 0 shape)
string(JSON trans_b GET "${document}" results 0 trans_b)
if(NOT shape STREQUAL "33x65x17/NT" OR NOT trans_b STREQUAL "ON")
  message(FATAL_ERROR "JSON row 0: shape '${shape}', trans_b '${trans_b}'")
endif()
