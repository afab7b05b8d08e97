#pragma once
// The library's memory between launches: what each safetensors file's header said, keyed by
// the file's path and checked against its size, mtime (ns), inode and device, so a second scan
// of an unchanged tree reads no header. One JSON file, written atomically (io/atomic_file.h);
// a missing, corrupt or older-version file is an empty cache, never an error.
#include <optional>
#include <string>
#include <unordered_map>

#include "library/library_entry.h"

namespace hs {

// $XDG_CACHE_HOME/halfscope/library.json, else ~/.cache/halfscope/library.json; "" when neither
// variable is set.
std::string defaultLibraryCachePath();

class LibraryCache {
public:
    // Loads `path` ("" : an in-memory cache that save() does not write). `problem` gets why an
    // existing file was ignored ("" when it was read or absent).
    explicit LibraryCache(std::string path, std::string* problem = nullptr);

    // The cached probe of `current.path` when its size, mtime, inode and device equal
    // `current`'s (a stat just taken).
    std::optional<FileProbe> find(const FileProbe& current) const;
    void put(const FileProbe& probe);
    // Writes the cache, dropping files that no longer exist. Throws FileError.
    void save() const;
    size_t size() const { return m_files.size(); }

private:
    std::string m_path;
    std::unordered_map<std::string, FileProbe> m_files;
};

}  // namespace hs
