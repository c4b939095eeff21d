# cli.bench_tiny: runs clgemm-bench on two tiny square sizes and one odd shape with two kernels
# and no peers, then checks the CSV (a row per kernel and shape, with the arithmetic intensity
# and the ceiling from the given peaks) and the SVG chart (a document with both panels, each
# kernel's line and its dashed ceiling). Run as
#   cmake -DBENCH=<clgemm-bench> -DWORK=<scratch directory> -P bench_check.cmake
cmake_minimum_required(VERSION 3.20)  # policies: quoted strings in if() are not variables
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(
  COMMAND "${BENCH}" --sizes 64,96 --shapes 33x65x17 --kernels blocked,tile --peers none
          --min-time 0.01 --peak-gflops 100 --bandwidth-gbs 10
          --svg "${WORK}/chart.svg" --csv "${WORK}/results.csv"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clgemm-bench exited with ${rc}")
endif()

foreach(file chart.svg results.csv)
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
if(NOT header MATCHES "intensity_flop_per_byte,ceiling_gflops$")
  message(FATAL_ERROR "CSV header lacks the intensity and ceiling columns: ${header}")
endif()
foreach(expected ",blocked,64,64,64," ",tile,96,96,96," ",tile,33,65,17,"
                 ",tile,64,64,64,[^,]*,[^,]*,[0-9]+,true,3\\.5555[0-9]*,35\\.5555")
  if(NOT ";${rows};" MATCHES "${expected}")
    message(FATAL_ERROR "no CSV row matches '${expected}'")
  endif()
endforeach()

# SVG: a complete document with both panels, both kernels in the legend, dashed ceilings.
file(READ "${WORK}/chart.svg" svg)
foreach(expected "^<svg xmlns=\"http://www.w3.org/2000/svg\"" "</svg>\n$" "<polyline "
                 "stroke-dasharray=\"7,4\"" ">blocked</text>" ">tile</text>" ">33x65x17</text>"
                 "square size n" "GFLOP/s \\(log scale\\)")
  if(NOT svg MATCHES "${expected}")
    message(FATAL_ERROR "the SVG lacks '${expected}'")
  endif()
endforeach()
