#pragma once
// Writing a file so that readers see either the old content or the complete new one, never half
// a file: write to "<path>.tmp-<pid>-<n>" beside it, fsync, rename over the target. A crash or an
// exception leaves the old file untouched (and removes the temporary one when it can).
// The temporary file is created with O_CREAT | O_EXCL | O_NOFOLLOW: a file or symlink planted at
// its name (in a shared or hostile folder) is never opened, truncated or followed; the next name
// is tried instead, a few times, then the write fails with a FileError.
#include <cstddef>
#include <cstdint>
#include <string>

namespace hs {

class AtomicFile {
public:
    // Creates the temporary file. Throws FileError naming `path`.
    explicit AtomicFile(const std::string& path);
    // Removes the temporary file unless commit() succeeded.
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(const void* data, size_t n);
    // fsync, close, rename into place, fsync the directory. Throws FileError.
    void commit();

    const std::string& path() const { return m_path; }
    const std::string& tempPath() const { return m_temp; }

private:
    std::string m_path;
    std::string m_temp;
    intptr_t m_fd = -1;  // platform::NativeFile
    bool m_committed = false;
};

// The temporary name the next AtomicFile of `path` tries first, then "+1", "+2"... (`ahead`):
// exposed so that tests can plant files at exactly those names.
std::string atomicTempPath(const std::string& path, unsigned ahead = 0);
// How many names an AtomicFile tries before it gives up.
constexpr int kAtomicTempAttempts = 8;

// The whole content at once (small files: images, JSON).
void writeFileAtomically(const std::string& path, const void* data, size_t n);

}  // namespace hs
