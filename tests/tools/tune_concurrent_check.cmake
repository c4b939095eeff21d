# cli.tune_concurrent: four clgemm-tune processes at once, each tuning another shape class of a
# tiny problem, all writing one tuning database and one state file. Afterwards both must be
# valid JSON holding all four classes: the writers took turns under the files' locks and merged
# rather than one overwriting another. Run as
#   cmake -DTUNE=<clgemm-tune> -DWORK=<scratch directory> -P tune_concurrent_check.cmake
cmake_minimum_required(VERSION 3.20)  # policies: quoted strings in if() are not variables
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(classes small skinny small-k medium)
set(common --kernel tile --size-scale 0.0625 --budget 2 --space TILE=4,8 --min-time 0.01
           --output "${WORK}/tuning.json" --state "${WORK}/state.json")

# execute_process runs its COMMANDs at the same time, as a pipeline: each writes its output to a
# file of its own, so none writes into the pipe of one that has already finished.
set(commands)
foreach(class IN LISTS classes)
  list(APPEND commands COMMAND sh -c "exec \"$0\" \"$@\" > \"${WORK}/${class}.log\" 2>&1"
       "${TUNE}" ${common} --classes ${class})
endforeach()
execute_process(${commands} RESULTS_VARIABLE statuses)
foreach(class IN LISTS classes)
  file(READ "${WORK}/${class}.log" log)
  message("${log}")
endforeach()
if(NOT statuses STREQUAL "0;0;0;0")
  message(FATAL_ERROR "clgemm-tune exit statuses: ${statuses}")
endif()

# string(JSON) fails on anything that is not valid JSON.
file(READ "${WORK}/tuning.json" database)
string(JSON entries LENGTH "${database}" entries)
set(found)
math(EXPR last "${entries} - 1")
foreach(index RANGE ${last})
  string(JSON class GET "${database}" entries ${index} shape_class)
  list(APPEND found ${class})
endforeach()
list(SORT found)
set(expected ${classes})
list(SORT expected)
if(NOT found STREQUAL expected)
  message(FATAL_ERROR "the database holds entries for '${found}', expected '${expected}':\n${database}")
endif()

file(READ "${WORK}/state.json" state)
string(JSON count LENGTH "${state}" classes)
set(found)
math(EXPR last "${count} - 1")
foreach(index RANGE ${last})
  string(JSON class GET "${state}" classes ${index} shape_class)
  string(JSON finished GET "${state}" classes ${index} finished)
  if(finished)
    list(APPEND found ${class})
  endif()
endforeach()
list(SORT found)
if(NOT found STREQUAL expected)
  message(FATAL_ERROR "the state file has finished classes '${found}', expected '${expected}'")
endif()
