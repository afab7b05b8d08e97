#pragma once
// The library as a table (one line per entry, errors in full below it) and as JSON.
#include <nlohmann/json.hpp>
#include <string>

#include "library/library_entry.h"

namespace hs {

nlohmann::json toJson(const LibraryEntry& e);
nlohmann::json toJson(const LibraryReport& r);
std::string formatLibrary(const LibraryReport& r);
// "23.8 GB", "4.1 MB", "512 B".
std::string bytesText(uint64_t n);

}  // namespace hs
