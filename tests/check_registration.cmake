# Fails when the test executable EXE holds a test that no ctest entry runs. REGISTERED lists the
# entries' patterns, one a line: "Suite.*" (the whole suite) or "Suite.Name" (one test), written
# by halfscope_add_suites (tests/gtest_suites.cmake). Parameterised tests count by their suite and
# name without the instantiation's prefix and parameter ("Every/Suite.Name/0" is Suite.Name).
# Usage: cmake -DEXE=path -DREGISTERED=file -P check_registration.cmake
cmake_minimum_required(VERSION 3.22)
execute_process(COMMAND ${EXE} --gtest_list_tests OUTPUT_VARIABLE out RESULT_VARIABLE rc
                TIMEOUT 100)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} --gtest_list_tests exited ${rc}")
endif()
file(STRINGS ${REGISTERED} registered)
string(REPLACE "\n" ";" lines "${out}")
set(suite "")
set(count 0)
set(missing)
foreach(line ${lines})
  if(line MATCHES "^([A-Za-z0-9_/]+)\\.")
    set(suite ${CMAKE_MATCH_1})
    string(REGEX REPLACE "^[A-Za-z0-9_]+/" "" suite "${suite}")  # Prefix/Suite
    string(REGEX REPLACE "/[0-9]+$" "" suite "${suite}")          # typed: Suite/0
  elseif(line MATCHES "^  ([A-Za-z0-9_]+)" AND suite)
    set(name ${CMAKE_MATCH_1})
    math(EXPR count "${count} + 1")
    if(NOT name MATCHES "^DISABLED_" AND NOT "${suite}.*" IN_LIST registered
       AND NOT "${suite}.${name}" IN_LIST registered)
      list(APPEND missing "${suite}.${name}")
    endif()
  endif()
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "${EXE} lists no test")
endif()
if(missing)
  string(REPLACE ";" "\n  " text "${missing}")
  message(FATAL_ERROR "tests that no ctest entry runs (tests/gtest_suites.cmake reads TEST "
                      "lines of one line only):\n  ${text}")
endif()
message(STATUS "${count} tests, each run by a ctest entry")
