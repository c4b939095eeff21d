# cli.bench_ratios: runs tools/bench/bench_ratios.py on the JSON that cli.bench_suite_tiny wrote and a
# hand-made cuBLAS JSON in tools/device/cublas_suite.py's form (written here: every tiny shape
# kept there at 1000 GFLOP/s per call and 2000 back to back, so each ratio is the contender's
# GFLOP/s over those), then checks the rows, the geometric means and the GEMV-like bandwidths;
# then a shape untransposed beside itself with B transposed, each against its own cuBLAS row.
# Run as
#   cmake -DPYTHON=<python3> -DSCRIPT=<bench_ratios.py> -DBENCH_JSON=<suite.json>
#         -DWORK=<directory> -P bench_ratios_check.cmake
cmake_minimum_required(VERSION 3.20)  # policies: quoted strings in if() are not variables
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

set(rows "")
foreach(shape "32;32;32" "64;64;64" "63;63;63" "128;8;128" "128;128;8" "1;128;128" "8;128;128"
              "16;64;256")
  list(GET shape 0 m)
  list(GET shape 1 n)
  list(GET shape 2 k)
  math(EXPR flops "2 * ${m} * ${n} * ${k}")
  # seconds = flops / (GFLOP/s * 1e9): flops * 1e-12 per call, (5 * flops) * 1e-13 back to back.
  math(EXPR five_flops "5 * ${flops}")
  foreach(precision fp32 tf32)
    string(APPEND rows "{\"contender\": \"cublas-${precision}\", \"library\": \"cublas\", "
      "\"precision\": \"${precision}\", \"m\": ${m}, \"n\": ${n}, \"k\": ${k}, "
      "\"median_seconds\": ${flops}e-12, \"gflops\": 1000.0, \"runs\": 10, "
      "\"back_to_back_seconds\": ${five_flops}e-13, \"back_to_back_gflops\": 2000.0, "
      "\"batch\": 100, \"batches\": 3, \"checked_elements\": 4, "
      "\"max_normalised_error\": 1e-7, \"verified\": true},\n")
  endforeach()
endforeach()
string(REGEX REPLACE ",\n$" "\n" rows "${rows}")
file(WRITE "${WORK}/cublas.json"
  "{\"tool\": \"cublas_suite.py\", \"device\": \"hand-made\", \"cublas_version\": 120000, "
  "\"suite\": \"tiny\", \"max_size\": 100, \"source\": \"bench_ratios_check.cmake\", "
  "\"results\": [\n${rows}], \"geometric_means\": []}\n")

execute_process(
  COMMAND "${PYTHON}" "${SCRIPT}" "${BENCH_JSON}" "${WORK}/cublas.json" --bandwidth-gbs 100
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench_ratios.py exited with ${rc}")
endif()
foreach(expected
    "\n64x64x64 +cublas-fp32 +1000\\.0 +1\\.00x +2000\\.0 +1\\.00x\n"
    "\n64x64x64 +cublas-tf32 +1000\\.0 +1\\.00x"
    "\n64x64x64 +auto +[0-9.]+ +0\\.[0-9]+x +[0-9.]+ +0\\.[0-9]+x\n"
    "\n16x64x256 +blocked +[0-9.]+ +0\\.[0-9]+x"
    "geometric mean of GFLOP/s over the 8 common shapes:"
    "\ncublas-fp32 +8 +1000\\.0 +1\\.00x +2000\\.0 +1\\.00x\n"
    "\nauto +8 +[0-9.]+ +0\\.[0-9]+x +[0-9.]+ +0\\.[0-9]+x\n"
    "GEMV-like shapes \\(min\\(M, N\\) <= 32, 8x below the others\\): bandwidth .* against 100 GB/s"
    "\n1x128x128 +auto +0\\.067 +[0-9.]+ +[0-9.]+%"
    "\n8x128x128 +cublas-fp32 +0\\.074 +[0-9.]+ +[0-9.]+% +[0-9.]+ +[0-9.]+%")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "the output lacks '${expected}'")
  endif()
endforeach()
string(REGEX REPLACE "^.*GEMV-like" "" gemv "${out}")
if(gemv MATCHES "\n(32x32x32|63x63x63|16x64x256|128x128x8) ")
  message(FATAL_ERROR "a shape that is not GEMV-like is listed as such:\n${gemv}")
endif()

# The same shape untransposed and with B transposed (clgemm-bench --transb t, its rows'
# trans_b): two shapes, each against its own cuBLAS row, the second labelled /NT.
file(WRITE "${WORK}/bench-nt.json"
  "{\"results\": [\n"
  "{\"contender\": \"auto\", \"m\": 16, \"n\": 4096, \"k\": 4096, \"median_seconds\": 1e-4, "
  "\"gflops\": 1500.0, \"back_to_back_seconds\": 1e-4, \"back_to_back_gflops\": 1500.0, "
  "\"trans_a\": false, \"trans_b\": false, \"verified\": true},\n"
  "{\"contender\": \"auto\", \"m\": 16, \"n\": 4096, \"k\": 4096, \"median_seconds\": 2e-4, "
  "\"gflops\": 500.0, \"back_to_back_seconds\": 2e-4, \"back_to_back_gflops\": 500.0, "
  "\"trans_a\": false, \"trans_b\": true, \"verified\": true}]}\n")
file(WRITE "${WORK}/cublas-nt.json"
  "{\"results\": [\n"
  "{\"contender\": \"cublas-fp32\", \"m\": 16, \"n\": 4096, \"k\": 4096, \"median_seconds\": 1e-4, "
  "\"gflops\": 1000.0, \"back_to_back_seconds\": 1e-4, \"back_to_back_gflops\": 1000.0, "
  "\"trans_a\": false, \"trans_b\": false, \"verified\": true},\n"
  "{\"contender\": \"cublas-fp32\", \"m\": 16, \"n\": 4096, \"k\": 4096, \"median_seconds\": 1e-4, "
  "\"gflops\": 1000.0, \"back_to_back_seconds\": 1e-4, \"back_to_back_gflops\": 1000.0, "
  "\"trans_a\": false, \"trans_b\": true, \"verified\": true}]}\n")
execute_process(
  COMMAND "${PYTHON}" "${SCRIPT}" "${WORK}/bench-nt.json" "${WORK}/cublas-nt.json"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench_ratios.py on transposed rows exited with ${rc}")
endif()
foreach(expected "\n16x4096x4096 +auto +1500\\.0 +1\\.50x" "\n16x4096x4096/NT +auto +500\\.0 +0\\.50x"
                 "over the 2 common shapes")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "the output on transposed rows lacks '${expected}'")
  endif()
endforeach()
