# Family knowledge stays in the families: no string literal in core/, app/ or widgets/ names a
# model class a family loads (FluxTransformer2DModel, CLIPTextModel, ...), except in
# core/families/ (the families), core/denoising/ (the pipeline shapes, which name their own
# denoiser) and core/demo/ (the demo model's own definition); core/models/, the registry API,
# names none either. The class names are read from the
# families' `classNames = {...}` and makeFamily heads. And no strategy casts with componentAs<>. Run as
#   cmake -DSOURCE_DIR=<repo> -P tests/check_family_names.cmake
cmake_minimum_required(VERSION 3.16)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<repo> -P check_family_names.cmake")
endif()
get_filename_component(SOURCE_DIR "${SOURCE_DIR}" ABSOLUTE)

# The class names.
set(names "")
file(GLOB_RECURSE family_files "${SOURCE_DIR}/core/families/*.cpp")
foreach(f IN LISTS family_files)
  file(READ "${f}" text)
  # Family::classNames, or the second field of makeFamily's FamilyHead {name, {classes}, ...}.
  string(REGEX MATCHALL "classNames = {[^}]*}" blocks "${text}")
  string(REGEX MATCHALL "makeFamily<[^>]*>[(][^{]*{\"[^\"]*\",[^{]*{[^}]*}" heads "${text}")
  list(APPEND blocks ${heads})
  foreach(b IN LISTS blocks)
    string(REGEX MATCHALL "\"[A-Za-z0-9_]+\"" quoted "${b}")
    foreach(q IN LISTS quoted)
      string(REPLACE "\"" "" q "${q}")
      list(APPEND names "${q}")
    endforeach()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES names)
list(LENGTH names count)
if(count EQUAL 0)
  message(FATAL_ERROR "no family class names found under ${SOURCE_DIR}/core/families")
endif()

set(bad "")
file(GLOB_RECURSE sources RELATIVE "${SOURCE_DIR}"
     "${SOURCE_DIR}/core/*.cpp" "${SOURCE_DIR}/core/*.h" "${SOURCE_DIR}/app/*.cpp"
     "${SOURCE_DIR}/app/*.h" "${SOURCE_DIR}/widgets/*.cpp" "${SOURCE_DIR}/widgets/*.h")
foreach(rel IN LISTS sources)
  if(rel MATCHES "^core/(families|denoising|demo)/")
    continue()
  endif()
  file(READ "${SOURCE_DIR}/${rel}" text)
  # One list item a line: semicolons would split them, so they go first.
  string(REPLACE ";" "<sc>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    string(STRIP "${line}" trimmed)
    if(trimmed MATCHES "^(//|/\\*|\\*)")  # a comment line
      continue()
    endif()
    string(REPLACE "'\"'" "" line "${line}")
    string(REPLACE "'\\\"'" "" line "${line}")
    # Literals in order, up to a line comment.
    string(REGEX MATCHALL "\"([^\"\\\\]|\\\\.)*\"|//.*" tokens "${line}")
    foreach(t IN LISTS tokens)
      if(t MATCHES "^//")
        break()
      endif()
      foreach(n IN LISTS names)
        string(FIND "${t}" "${n}" at)
        if(NOT at EQUAL -1)
          list(APPEND bad "${rel}:${number}: a string literal names the family class ${n}")
          break()
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()

# Strategies reach other families' components through their roles (models/roles.h), not casts.
file(GLOB_RECURSE strategies RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/core/denoising/*")
foreach(rel IN LISTS strategies)
  file(READ "${SOURCE_DIR}/${rel}" text)
  string(FIND "${text}" "componentAs<" at)
  if(NOT at EQUAL -1)
    list(APPEND bad "${rel}: componentAs<...> casts a component; use the role accessors")
  endif()
endforeach()

if(bad)
  list(JOIN bad "\n" text)
  message(FATAL_ERROR "${text}\nAsk the family or the strategy instead (docs/ADDING_A_MODEL.md).")
endif()
message(STATUS "no family class name (${count} names) in a string literal outside the families")
