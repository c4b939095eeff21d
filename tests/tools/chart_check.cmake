# cli.bench_chart: draws the JSON that cli.bench_tiny wrote with tools/bench/plot_bench.py, as PNG and
# SVG in one call, and checks both: a PNG of some size with its signature, an SVG document whose
# root is <svg>, whose legend names both kernels and which has dashed ceilings. Run as
#   cmake -DPYTHON=<python3> -DSCRIPT=<plot_bench.py> -DJSON=<results.json> -DWORK=<directory>
#         -P chart_check.cmake
cmake_minimum_required(VERSION 3.20)  # policies: quoted strings in if() are not variables
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(
  COMMAND "${PYTHON}" "${SCRIPT}" "${JSON}" -o "${WORK}/chart.png" -o "${WORK}/chart.svg"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "plot_bench.py exited with ${rc}")
endif()

foreach(file chart.png chart.svg)
  if(NOT EXISTS "${WORK}/${file}")
    message(FATAL_ERROR "plot_bench.py did not write ${file}")
  endif()
  file(SIZE "${WORK}/${file}" size)
  if(size LESS 10000)
    message(FATAL_ERROR "${file} has only ${size} bytes: too small for a chart")
  endif()
endforeach()

file(READ "${WORK}/chart.png" signature LIMIT 8 HEX)
if(NOT signature STREQUAL "89504e470d0a1a0a")
  message(FATAL_ERROR "chart.png does not start with the PNG signature: ${signature}")
endif()

file(READ "${WORK}/chart.svg" svg)
foreach(expected "^<\\?xml " "\n<svg [^>]*xmlns=\"http://www.w3.org/2000/svg\"" "</svg>\n?$"
                 ">blocked<" ">tile<" ">33x65x17<" "GFLOP/s \\(log scale\\)" "stroke-dasharray")
  if(NOT svg MATCHES "${expected}")
    message(FATAL_ERROR "chart.svg lacks '${expected}'")
  endif()
endforeach()
