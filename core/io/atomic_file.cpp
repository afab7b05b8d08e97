#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "io/safetensors_header.h"  // FileError

namespace hs {

namespace {

std::string errnoText() {
    return std::strerror(errno);
}

std::string parentDir(const std::string& path) {
    auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

// pid + a process-wide counter: two writers of the same path, in this process or another,
// never share a temporary file.
std::atomic<unsigned> g_counter{0};

std::string tempName(const std::string& path, unsigned n) {
    return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(n);
}

}  // namespace

std::string atomicTempPath(const std::string& path, unsigned ahead) {
    return tempName(path, g_counter.load() + ahead);
}

AtomicFile::AtomicFile(const std::string& path) : m_path(path) {
    // O_EXCL refuses any existing entry, a symlink included (whatever it points to), and
    // O_NOFOLLOW makes sure of it on file systems where O_EXCL alone is not enough; a name that
    // exists is skipped, never reused.
    for (int attempt = 0; attempt < kAtomicTempAttempts; ++attempt) {
        m_temp = tempName(path, g_counter++);
        m_fd = ::open(m_temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (m_fd >= 0) return;
        if (errno != EEXIST && errno != ELOOP) break;
    }
    const std::string why = errno == EEXIST || errno == ELOOP
                                ? std::to_string(kAtomicTempAttempts) +
                                      " temporary names in a row already exist (planted files?)"
                                : errnoText();
    const std::string temp = m_temp;
    m_temp.clear();  // nothing of ours to remove
    throw FileError(path, "cannot create temporary file " + temp + ": " + why);
}

AtomicFile::~AtomicFile() {
    if (m_fd >= 0) ::close(m_fd);
    if (!m_committed && !m_temp.empty()) ::unlink(m_temp.c_str());
}

void AtomicFile::write(const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        // Linux writes at most ~2 GiB per call; loop for partial writes and EINTR.
        ssize_t w = ::write(m_fd, p, std::min<size_t>(n, size_t(1) << 30));
        if (w < 0) {
            if (errno == EINTR) continue;
            throw FileError(m_path, "cannot write " + m_temp + ": " + errnoText());
        }
        p += w;
        n -= size_t(w);
    }
}

void AtomicFile::commit() {
    if (::fsync(m_fd) != 0) throw FileError(m_path, "cannot flush " + m_temp + ": " + errnoText());
    int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0) throw FileError(m_path, "cannot close " + m_temp + ": " + errnoText());
    if (::rename(m_temp.c_str(), m_path.c_str()) != 0)
        throw FileError(m_path, "cannot rename " + m_temp + " into place: " + errnoText());
    m_committed = true;
    // Make the rename itself durable; failing here loses nothing already written, so it is
    // best effort.
    int dfd = ::open(parentDir(m_path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

void writeFileAtomically(const std::string& path, const void* data, size_t n) {
    AtomicFile f(path);
    f.write(data, n);
    f.commit();
}

}  // namespace hs
