#pragma once
// The library's folders and cache from the command line (library, reproduce): --comfyui DIR,
// --a1111 DIR, --add DIR|FILE, --hf-cache DIR (each repeatable), --no-cache, --cache-file FILE,
// --max-entries N, --max-depth N.
#include "cli/command.h"
#include "library/library_scan.h"

namespace hs::cli {

#define HS_LIBRARY_OPTIONS \
    "comfyui", "a1111", "add", "hf-cache", "no-cache", "cache-file", "max-entries", "max-depth"

// Throws UsageError for a bound passed.
LibraryOptions libraryOptionsFrom(const Args& args);

}  // namespace hs::cli
