# ctest `no_shared_refs`: the repository carries its own test data
# (tests/data), so nothing under tests/ or scripts/, nor CMakeLists.txt, may
# name the data folder that used to sit beside the repository. Fails listing
# the files that do. Run: cmake -DSRC=<source dir> -P tests/no_shared_refs.cmake
cmake_policy(VERSION 3.18)
if(NOT SRC)
  message(FATAL_ERROR "no_shared_refs: pass -DSRC=<source dir>")
endif()
# built from parts, so this file does not match itself
set(needle "..")
string(APPEND needle "/" "shared")
file(GLOB_RECURSE files LIST_DIRECTORIES false "${SRC}/tests/*" "${SRC}/scripts/*")
list(APPEND files "${SRC}/CMakeLists.txt")
set(bad "")
set(n 0)
foreach(f IN LISTS files)
  math(EXPR n "${n} + 1")
  file(STRINGS "${f}" text) # the printable runs, so binary files are read whole too
  string(FIND "${text}" "${needle}" at)
  if(NOT at EQUAL -1)
    file(RELATIVE_PATH rel "${SRC}" "${f}")
    string(APPEND bad "\n  ${rel}")
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "no_shared_refs: these files name ${needle} (use tests/data, TYCHO_TEST_DATA):${bad}")
endif()
message(STATUS "no_shared_refs: ${n} files checked, none names ${needle}")
