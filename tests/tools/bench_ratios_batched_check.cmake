# cli.bench_ratios_batched: runs tools/bench/bench_ratios.py on the JSON that cli.bench_batched_tiny
# wrote and a hand-made cuBLAS JSON in tools/device/cublas_suite.py's form (every batched-tiny
# shape at 1000 GFLOP/s per call and 2000 back to back), then checks the rows labelled with
# their batch and epilogue, the side-by-side table and the epilogue table. Run as
#   cmake -DPYTHON=<python3> -DSCRIPT=<bench_ratios.py> -DBENCH_JSON=<batched.json>
#         -DWORK=<directory> -P bench_ratios_batched_check.cmake
cmake_minimum_required(VERSION 3.20)  # policies: quoted strings in if() are not variables
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

set(rows "")
foreach(shape "16;16;16;64;none;none" "33;17;9;5;none;none" "64;64;64;1;col;gelu"
              "64;64;64;1;none;none" "65;63;31;1;row;relu" "32;32;32;8;col;relu")
  list(GET shape 0 m)
  list(GET shape 1 n)
  list(GET shape 2 k)
  list(GET shape 3 batch)
  list(GET shape 4 bias)
  list(GET shape 5 activation)
  math(EXPR flops "2 * ${batch} * ${m} * ${n} * ${k}")
  math(EXPR five_flops "5 * ${flops}")
  foreach(precision fp32 tf32)
    string(APPEND rows "{\"contender\": \"cublas-${precision}\", \"library\": \"cublas\", "
      "\"method\": \"hand-made\", \"precision\": \"${precision}\", \"m\": ${m}, \"n\": ${n}, "
      "\"k\": ${k}, \"batch_count\": ${batch}, \"bias\": \"${bias}\", "
      "\"activation\": \"${activation}\", \"median_seconds\": ${flops}e-12, \"gflops\": 1000.0, "
      "\"runs\": 10, \"back_to_back_seconds\": ${five_flops}e-13, "
      "\"back_to_back_gflops\": 2000.0, \"batch\": 100, \"batches\": 3, "
      "\"checked_elements\": 4, \"max_normalised_error\": 1e-7, \"verified\": true},\n")
  endforeach()
endforeach()
string(REGEX REPLACE ",\n$" "\n" rows "${rows}")
file(WRITE "${WORK}/cublas.json"
  "{\"tool\": \"cublas_suite.py\", \"device\": \"hand-made\", \"cublas_version\": 120000, "
  "\"suite\": \"batched-tiny\", \"max_size\": null, \"source\": \"bench_ratios_batched_check.cmake\", "
  "\"results\": [\n${rows}], \"geometric_means\": []}\n")

execute_process(
  COMMAND "${PYTHON}" "${SCRIPT}" "${BENCH_JSON}" "${WORK}/cublas.json"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench_ratios.py exited with ${rc}")
endif()
foreach(expected
    "\n16x16x16\\*64 +cublas-fp32 +1000\\.0 +1\\.00x +2000\\.0 +1\\.00x\n"
    "\n16x16x16\\*64 +auto +[0-9.]+ +[0-9.]+x"
    "\n64x64x64\\+colbias\\+gelu +clgemm-unfused +[0-9.]+ +[0-9.]+x"
    "geometric mean of GFLOP/s over the 6 common shapes:"
    "\nper call, each contender's GFLOP/s over cublas-fp32's on the shape"
    "\nM x N x K +cublas-fp32 +auto [^\n]*clgemm-unfused +cublas-tf32\n"
    "\n32x32x32\\*8\\+colbias\\+relu +1000\\.0 +[0-9.]+x [^\n]* 1\\.00x\n"
    "\nepilogues, per call: the fused call against clgemm-unfused"
    "\n64x64x64\\+colbias\\+gelu +auto +[0-9.]+ +[0-9.]+ +[0-9.]+x +[0-9.]+ +-?[0-9.]+%\n"
    "\n65x63x31\\+rowbias\\+relu +auto +[0-9.]+ +[0-9.]+ +[0-9.]+x +- +-\n")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "the output lacks '${expected}'")
  endif()
endforeach()
