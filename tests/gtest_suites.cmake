# One ctest entry per GoogleTest suite, read from the sources at configure time.
#
# A test process pays ~0.4 s before its first test (LibTorch's and Qt's libraries loading, their
# static initialisers); with one process per test that was about a quarter of the suite's time.
# So each suite runs in one process, named by the suite ("ShippedDemo"), and the suites listed
# after SPLIT get one entry per test ("ShippedDemo.Fp16VaeBreaksOnlyTheDecode") so that their
# long tests spread over the cores. A registration check (tests/check_registration.cmake) runs
# the executable's --gtest_list_tests and fails on any test that no entry runs, so a test written
# in a way this reader misses cannot drop out silently.
#
# halfscope_add_suites(TARGET
#     SOURCES file...          the files holding TEST / TEST_F / TEST_P lines
#     [SPLIT suite...]         one entry per test
#     [SERIAL suite...]        RUN_SERIAL: timing assertions, or they load every core
#     [LOCK suite=resource...] RESOURCE_LOCK
#     [ENVIRONMENT VAR=value...] [TIMEOUT seconds])
# Every entry runs on one thread (HALFSCOPE_THREADS=1, OMP_NUM_THREADS=1), so `ctest -jN` runs
# N entries side by side on N cores; the Qt platform is offscreen; each entry has its own XDG
# folders.
set(HALFSCOPE_TEST_ENVIRONMENT
    "HALFSCOPE_THREADS=1" "OMP_NUM_THREADS=1" "OMP_WAIT_POLICY=PASSIVE"
    "QT_QPA_PLATFORM=offscreen")

function(halfscope_add_suites target)
  cmake_parse_arguments(A "" "TIMEOUT" "SOURCES;SPLIT;SERIAL;LOCK;ENVIRONMENT" ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 1500)
  endif()
  set(suites)
  set(registered)
  foreach(src ${A_SOURCES})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${src})
    file(STRINGS ${src} lines REGEX "^TEST(_F|_P)?\\(")
    foreach(line ${lines})
      if(NOT line MATCHES "^TEST(_F|_P)?\\(([A-Za-z0-9_]+), *([A-Za-z0-9_]+)\\)")
        message(FATAL_ERROR "${src}: a TEST line not on one line: ${line}")
      endif()
      set(suite ${CMAKE_MATCH_2})
      set(name ${CMAKE_MATCH_3})
      if(suite IN_LIST A_SPLIT)
        if(NOT name MATCHES "^DISABLED_")
          halfscope_add_suite_entry(${target} "${suite}.${name}" "${suite}.${name}:*/${suite}.${name}/*")
          list(APPEND registered "${suite}.${name}")
        endif()
        list(APPEND suites ${suite})
      elseif(NOT suite IN_LIST suites)
        list(APPEND suites ${suite})
        halfscope_add_suite_entry(${target} "${suite}" "${suite}.*:*/${suite}.*")
        list(APPEND registered "${suite}.*")
      endif()
    endforeach()
  endforeach()
  foreach(suite ${A_SPLIT})
    if(NOT suite IN_LIST suites)
      message(FATAL_ERROR "halfscope_add_suites(${target}): SPLIT names no suite: ${suite}")
    endif()
  endforeach()
  # The registration check: every test the executable holds is run by an entry above.
  set(list_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_registered.txt)
  string(REPLACE ";" "\n" text "${registered}")
  file(WRITE ${list_file} "${text}\n")
  add_test(NAME Registration.${target}
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${target}> -DREGISTERED=${list_file}
                   -P ${PROJECT_SOURCE_DIR}/tests/check_registration.cmake)
  set_tests_properties(Registration.${target} PROPERTIES
      ENVIRONMENT "${HALFSCOPE_TEST_ENVIRONMENT}" TIMEOUT 120)
endfunction()

# One entry: a ctest test NAME running TARGET on the tests that FILTER selects.
macro(halfscope_add_suite_entry target name filter)
  add_test(NAME ${name} COMMAND ${target} --gtest_filter=${filter})
  # Settings, run histories and caches of its own, so entries running side by side never share a
  # settings file.
  set(_home ${CMAKE_CURRENT_BINARY_DIR}/homes/${name})
  set(_env ${HALFSCOPE_TEST_ENVIRONMENT} ${A_ENVIRONMENT} "XDG_CONFIG_HOME=${_home}/config"
      "XDG_DATA_HOME=${_home}/data" "XDG_CACHE_HOME=${_home}/cache")
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${_env}" TIMEOUT ${A_TIMEOUT})
  string(REGEX REPLACE "\\..*" "" _suite "${name}")
  if(_suite IN_LIST A_SERIAL)
    set_tests_properties(${name} PROPERTIES RUN_SERIAL ON)
  endif()
  foreach(_lock ${A_LOCK})
    if(_lock MATCHES "^${_suite}=(.*)$")
      set_property(TEST ${name} APPEND PROPERTY RESOURCE_LOCK ${CMAKE_MATCH_1})
    endif()
  endforeach()
endmacro()
