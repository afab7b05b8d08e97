#include "io/atomic_file.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "io/platform_file.h"
#include "io/safetensors_header.h"  // FileError

namespace hs {

namespace {

// pid + a process-wide counter: two writers of the same path, in this process or another,
// never share a temporary file.
std::atomic<unsigned> g_counter{0};

std::string tempName(const std::string& path, unsigned n) {
    return path + ".tmp-" + std::to_string(platform::processId()) + "-" + std::to_string(n);
}

}  // namespace

std::string atomicTempPath(const std::string& path, unsigned ahead) {
    return tempName(path, g_counter.load() + ahead);
}

AtomicFile::AtomicFile(const std::string& path) : m_path(path) {
    // The temporary file is created new: any existing entry of that name, a symlink included
    // (whatever it points to), is refused (platform::createExclusive); a name that exists is
    // skipped, never reused.
    std::string error;
    bool exists = false;
    for (int attempt = 0; attempt < kAtomicTempAttempts; ++attempt) {
        m_temp = tempName(path, g_counter++);
        m_fd = platform::createExclusive(m_temp, exists, error);
        if (m_fd != platform::kNoFile) return;
        if (!exists) break;
    }
    const std::string why = exists ? std::to_string(kAtomicTempAttempts) +
                                         " temporary names in a row already exist (planted files?)"
                                   : error;
    const std::string temp = m_temp;
    m_temp.clear();  // nothing of ours to remove
    throw FileError(path, "cannot create temporary file " + temp + ": " + why);
}

AtomicFile::~AtomicFile() {
    platform::closeFile(m_fd);
    if (!m_committed && !m_temp.empty()) platform::removeFile(m_temp);
}

void AtomicFile::write(const void* data, size_t n) {
    std::string error;
    if (!platform::writeAll(m_fd, data, n, error))
        throw FileError(m_path, "cannot write " + m_temp + ": " + error);
}

void AtomicFile::commit() {
    std::string error;
    if (!platform::flushToDisk(m_fd, error))
        throw FileError(m_path, "cannot flush " + m_temp + ": " + error);
    const platform::NativeFile fd = m_fd;
    m_fd = platform::kNoFile;
    if (!platform::closeChecked(fd, error))
        throw FileError(m_path, "cannot close " + m_temp + ": " + error);
    if (!platform::replaceFile(m_temp, m_path, error))
        throw FileError(m_path, "cannot rename " + m_temp + " into place: " + error);
    m_committed = true;
    // Make the rename itself durable; failing here loses nothing already written, so it is
    // best effort.
    platform::syncParentFolder(m_path);
}

void writeFileAtomically(const std::string& path, const void* data, size_t n) {
    AtomicFile f(path);
    f.write(data, n);
    f.commit();
}

}  // namespace hs
