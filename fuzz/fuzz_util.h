#pragma once
// Helpers shared by the libFuzzer targets: a private scratch folder for loaders that read files,
// splitting one input into several files, and the source tree's fixed data.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

// A broken invariant is a finding: print it and abort, as a sanitizer would.
#define check(ok)   \
    ((ok) ? (void)0 \
          : (std::fprintf(stderr, "check failed: %s (line %d)\n", #ok, __LINE__), std::abort()))

namespace hs::fuzz {

// A folder of this process's own under the system temp folder, created on first use, emptied of
// the files a previous input wrote by each writeFiles call.
const std::string& scratchDir();

// Writes `files` (name, bytes) into scratchDir() after removing every file there; returns
// scratchDir().
const std::string& writeFiles(const std::vector<std::pair<std::string, std::string_view>>& files);

// `data` cut at each occurrence of `sep` into at most `maxParts` parts (the last one keeps the
// rest, separators included).
std::vector<std::string_view> splitParts(std::string_view data, std::string_view sep,
                                         size_t maxParts);

// <source tree>/<rel>, or $HALFSCOPE_FUZZ_SOURCE_DIR/<rel> when that is set (a moved binary).
std::string sourcePath(const std::string& rel);

// For the targets whose input's first byte picks a mode, which link mode_byte_main.cpp (libFuzzer's
// entry points) and define these two:
//   warmUp   loads the fixed data once, before the first input
//   runMode  runs one input: its first byte `mode`, the other bytes `rest` (an empty input runs
//            nothing)
void warmUp();
void runMode(uint8_t mode, std::string_view rest);

}  // namespace hs::fuzz

namespace hs::fuzz {

// An exception that escaped a loader but is neither the loader's own error type nor a
// std::runtime_error (a nlohmann type_error, std::out_of_range, ...): the user would see a raw
// library message. Aborts (a finding) when HALFSCOPE_FUZZ_STRICT=1, else it is ignored so that
// a long run goes on looking for crashes.
void escapedException(const std::exception& e);

}  // namespace hs::fuzz
