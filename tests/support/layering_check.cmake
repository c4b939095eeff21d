# Checks that every include between the library's folders points down the layers
# (src/CMakeLists.txt): api -> host -> choice -> launch -> plan -> catalog -> runtime ->
# problem -> support. Fails naming each file whose include points up.
#   cmake -DSOURCE=<absolute path of src/> -P layering_check.cmake
cmake_minimum_required(VERSION 3.20)
set(layers api host choice launch plan catalog runtime problem support)
# The known exceptions: Context::State's plan() is a member of the struct that
# launch/context_state.hpp defines, so its file includes it from below; and that struct holds
# the host engine's staging sets (host/engine_sets.hpp).
set(allowed "plan/call_plan.cpp -> launch" "launch/context_state.hpp -> host")

file(GLOB_RECURSE files RELATIVE ${SOURCE} ${SOURCE}/*.cpp ${SOURCE}/*.hpp)
set(upward "")
foreach(file IN LISTS files)
  string(REGEX MATCH "^[a-z_]+" from "${file}")
  list(FIND layers "${from}" from_rank)
  if(from_rank LESS 0)
    continue()
  endif()
  file(STRINGS ${SOURCE}/${file} includes REGEX "^#include \"[a-z_]+/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^#include \"([a-z_]+)/.*" "\\1" to "${line}")
    list(FIND layers "${to}" to_rank)
    if(to_rank LESS 0 OR to_rank GREATER_EQUAL from_rank)
      continue()
    endif()
    if(NOT "${file} -> ${to}" IN_LIST allowed)
      string(APPEND upward "\n  ${file}: ${line} (${to}/ is above ${from}/)")
    endif()
  endforeach()
endforeach()
if(upward)
  message(FATAL_ERROR "includes that point up the layers (${layers}):${upward}")
endif()
list(LENGTH files count)
message(STATUS "layering: ${count} files, every include points down")
