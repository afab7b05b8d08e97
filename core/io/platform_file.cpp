#include "io/platform_file.h"

#ifdef _WIN32
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0A00  // Windows 10: PrefetchVirtualMemory (8+), GetFileInformationByHandleEx
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <algorithm>
#include <cwchar>
#else
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#endif

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14; older C libraries lack the name
#endif

namespace hs::platform {

#ifdef _WIN32

namespace {

HANDLE h(NativeFile f) {
    return reinterpret_cast<HANDLE>(f);
}

std::string lastErrorText() {
    const DWORD code = ::GetLastError();
    char buf[512] = {0};
    DWORD n =
        ::FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr, code,
                         MAKELANGID(LANG_ENGLISH, SUBLANG_DEFAULT), buf, sizeof buf, nullptr);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == '.')) buf[--n] = 0;
    return n ? std::string(buf, n) : "Windows error " + std::to_string(code);
}

// UTF-8 (the engine's strings) to the UTF-16 the W functions take.
std::wstring wide(const std::string& s) {
    if (s.empty()) return {};
    const int n = ::MultiByteToWideChar(CP_UTF8, 0, s.data(), int(s.size()), nullptr, 0);
    std::wstring w(size_t(n), L'\0');
    ::MultiByteToWideChar(CP_UTF8, 0, s.data(), int(s.size()), w.data(), n);
    return w;
}

}  // namespace

NativeFile openForRead(const std::string& path, std::string& error) {
    // BACKUP_SEMANTICS opens a folder as well, so that the caller can say "is a folder" instead
    // of "access denied". FILE_SHARE_DELETE: another program may replace the file meanwhile,
    // as on Linux.
    HANDLE f = ::CreateFileW(wide(path).c_str(), GENERIC_READ,
                             FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                             OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
    if (f == INVALID_HANDLE_VALUE) {
        error = lastErrorText();
        return kNoFile;
    }
    return reinterpret_cast<NativeFile>(f);
}

void makeBlocking(NativeFile) {}  // a Windows pipe opened by name does not wait for a writer

void closeFile(NativeFile f) {
    if (f != kNoFile) ::CloseHandle(h(f));
}

bool fileStatus(NativeFile f, FileStatus& out, std::string& error) {
    const DWORD type = ::GetFileType(h(f));
    out = FileStatus{};
    if (type == FILE_TYPE_PIPE) {
        out.kind = "a pipe (FIFO)";
        return true;
    }
    if (type == FILE_TYPE_CHAR) {
        out.kind = "a device";
        return true;
    }
    BY_HANDLE_FILE_INFORMATION info{};
    if (!::GetFileInformationByHandle(h(f), &info)) {
        error = lastErrorText();
        return false;
    }
    out.size = (uint64_t(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
    const uint64_t t =
        (uint64_t(info.ftLastWriteTime.dwHighDateTime) << 32) | info.ftLastWriteTime.dwLowDateTime;
    out.mtimeNs = int64_t(t) * 100;
    out.inode = (uint64_t(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
    out.device = info.dwVolumeSerialNumber;
    if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
        out.kind = "a folder";
    else if (type != FILE_TYPE_DISK)
        out.kind = "not a regular file";
    else
        out.regular = true;
    return true;
}

bool pathStatus(const std::string& path, FileStatus& out, std::string& error) {
    const NativeFile f = openForRead(path, error);
    if (f == kNoFile) return false;
    const bool ok = fileStatus(f, out, error);
    closeFile(f);
    return ok;
}

int64_t readSome(NativeFile f, void* buf, size_t n, std::string& error) {
    DWORD got = 0;
    const DWORD want = DWORD(std::min<size_t>(n, size_t(1) << 30));
    if (!::ReadFile(h(f), buf, want, &got, nullptr)) {
        if (::GetLastError() == ERROR_HANDLE_EOF || ::GetLastError() == ERROR_BROKEN_PIPE) return 0;
        error = lastErrorText();
        return -1;
    }
    return int64_t(got);
}

int64_t readAt(NativeFile f, void* buf, size_t n, uint64_t offset, std::string& error) {
    OVERLAPPED at{};
    at.Offset = DWORD(offset & 0xFFFFFFFFu);
    at.OffsetHigh = DWORD(offset >> 32);
    DWORD got = 0;
    const DWORD want = DWORD(std::min<size_t>(n, size_t(1) << 30));
    if (!::ReadFile(h(f), buf, want, &got, &at)) {
        if (::GetLastError() == ERROR_HANDLE_EOF) return 0;
        error = lastErrorText();
        return -1;
    }
    return int64_t(got);
}

NativeFile createExclusive(const std::string& path, bool& exists, std::string& error) {
    // CREATE_NEW fails on any existing name, a symbolic link included (it is not followed).
    HANDLE f = ::CreateFileW(wide(path).c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                             FILE_ATTRIBUTE_NORMAL, nullptr);
    if (f == INVALID_HANDLE_VALUE) {
        const DWORD code = ::GetLastError();
        exists = code == ERROR_FILE_EXISTS || code == ERROR_ALREADY_EXISTS;
        error = lastErrorText();
        return kNoFile;
    }
    exists = false;
    return reinterpret_cast<NativeFile>(f);
}

bool writeAll(NativeFile f, const void* data, size_t n, std::string& error) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        DWORD w = 0;
        if (!::WriteFile(h(f), p, DWORD(std::min<size_t>(n, size_t(1) << 30)), &w, nullptr)) {
            error = lastErrorText();
            return false;
        }
        p += w;
        n -= w;
    }
    return true;
}

bool flushToDisk(NativeFile f, std::string& error) {
    if (::FlushFileBuffers(h(f))) return true;
    error = lastErrorText();
    return false;
}

bool closeChecked(NativeFile f, std::string& error) {
    if (::CloseHandle(h(f))) return true;
    error = lastErrorText();
    return false;
}

bool replaceFile(const std::string& from, const std::string& to, std::string& error) {
    if (::MoveFileExW(wide(from).c_str(), wide(to).c_str(),
                      MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
        return true;
    error = lastErrorText();
    return false;
}

void syncParentFolder(const std::string&) {}  // MOVEFILE_WRITE_THROUGH did it

void removeFile(const std::string& path) {
    ::DeleteFileW(wide(path).c_str());
}

unsigned processId() {
    return unsigned(::GetCurrentProcessId());
}

void* mapReadOnly(NativeFile f, size_t len, std::string& error) {
    // The view keeps the section alive: the mapping handle is closed at once. Windows refuses to
    // truncate a file while a view of it exists, so the shrink that mapped_guard catches on
    // Linux cannot happen here.
    HANDLE section = ::CreateFileMappingW(h(f), nullptr, PAGE_READONLY, 0, 0, nullptr);
    if (!section) {
        error = lastErrorText();
        return nullptr;
    }
    void* p = ::MapViewOfFile(section, FILE_MAP_READ, 0, 0, len);
    if (!p) error = lastErrorText();
    ::CloseHandle(section);
    return p;
}

void unmap(void* base, size_t) {
    if (base) ::UnmapViewOfFile(base);
}

size_t pageSize() {
    SYSTEM_INFO si;
    ::GetSystemInfo(&si);
    return size_t(si.dwPageSize);
}

void prefetchPages(void* p, size_t len) {
    WIN32_MEMORY_RANGE_ENTRY range{p, len};
    ::PrefetchVirtualMemory(::GetCurrentProcess(), 1, &range, 0);
}

void dropPages(void*, size_t) {}

void* loadModule(const std::string& path, std::string& error) {
    // ALTERED_SEARCH_PATH: the module's own folder is searched for the DLLs it needs. Windows
    // binds each DLL's imports to the DLL named at link time, so the protobuf clash that
    // RTLD_DEEPBIND avoids on Linux does not arise.
    HMODULE m = ::LoadLibraryExW(wide(path).c_str(), nullptr, LOAD_WITH_ALTERED_SEARCH_PATH);
    if (!m) error = lastErrorText();
    return reinterpret_cast<void*>(m);
}

void* moduleSymbol(void* module, const char* name) {
    return reinterpret_cast<void*>(::GetProcAddress(static_cast<HMODULE>(module), name));
}

void* processSymbol(const char*) {
    return nullptr;  // no tcmalloc on Windows: nothing to look up
}

std::string executablePath() {
    std::wstring buf(32768, L'\0');
    const DWORD n = ::GetModuleFileNameW(nullptr, buf.data(), DWORD(buf.size()));
    if (n == 0 || n >= buf.size()) return {};
    const int len =
        ::WideCharToMultiByte(CP_UTF8, 0, buf.data(), int(n), nullptr, 0, nullptr, nullptr);
    std::string out(size_t(len), '\0');
    ::WideCharToMultiByte(CP_UTF8, 0, buf.data(), int(n), out.data(), len, nullptr, nullptr);
    return out;
}

#else  // POSIX

namespace {

int fd(NativeFile f) {
    return int(f);
}

std::string kindOf(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a pipe (FIFO)";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

void fill(const struct stat& st, FileStatus& out) {
    out = FileStatus{};
    out.regular = S_ISREG(st.st_mode);
    if (!out.regular) out.kind = kindOf(st.st_mode);
    out.size = uint64_t(st.st_size);
    out.mtimeNs = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    out.ctimeNs = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    out.inode = static_cast<uint64_t>(st.st_ino);
    out.device = static_cast<uint64_t>(st.st_dev);
}

}  // namespace

NativeFile openForRead(const std::string& path, std::string& error) {
    const int f = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (f < 0) {
        error = std::strerror(errno);
        return kNoFile;
    }
    return f;
}

void makeBlocking(NativeFile f) {
    ::fcntl(fd(f), F_SETFL, ::fcntl(fd(f), F_GETFL) & ~O_NONBLOCK);
}

void closeFile(NativeFile f) {
    if (f >= 0) ::close(fd(f));
}

bool fileStatus(NativeFile f, FileStatus& out, std::string& error) {
    struct stat st {};
    if (::fstat(fd(f), &st) != 0) {
        error = std::strerror(errno);
        return false;
    }
    fill(st, out);
    return true;
}

bool pathStatus(const std::string& path, FileStatus& out, std::string& error) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;
        struct stat lst {};
        if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
            std::error_code ec;
            const auto target = std::filesystem::read_symlink(path, ec);
            error = "dangling symlink to " + (ec ? std::string("?") : target.string());
        } else {
            error = std::strerror(err);
        }
        return false;
    }
    fill(st, out);
    return true;
}

int64_t readSome(NativeFile f, void* buf, size_t n, std::string& error) {
    for (;;) {
        const ssize_t got = ::read(fd(f), buf, n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) error = std::strerror(errno);
        return int64_t(got);
    }
}

int64_t readAt(NativeFile f, void* buf, size_t n, uint64_t offset, std::string& error) {
    for (;;) {
        const ssize_t got = ::pread(fd(f), buf, n, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) error = std::strerror(errno);
        return int64_t(got);
    }
}

NativeFile createExclusive(const std::string& path, bool& exists, std::string& error) {
    // O_EXCL refuses any existing entry, a symlink included (whatever it points to), and
    // O_NOFOLLOW makes sure of it on file systems where O_EXCL alone is not enough.
    const int f = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (f >= 0) {
        exists = false;
        return f;
    }
    exists = errno == EEXIST || errno == ELOOP;
    error = std::strerror(errno);
    return kNoFile;
}

bool writeAll(NativeFile f, const void* data, size_t n, std::string& error) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        // Linux writes at most ~2 GiB per call; loop for partial writes and EINTR.
        ssize_t w = ::write(fd(f), p, std::min<size_t>(n, size_t(1) << 30));
        if (w < 0) {
            if (errno == EINTR) continue;
            error = std::strerror(errno);
            return false;
        }
        p += w;
        n -= size_t(w);
    }
    return true;
}

bool flushToDisk(NativeFile f, std::string& error) {
    if (::fsync(fd(f)) == 0) return true;
    error = std::strerror(errno);
    return false;
}

bool closeChecked(NativeFile f, std::string& error) {
    if (::close(fd(f)) == 0) return true;
    error = std::strerror(errno);
    return false;
}

bool replaceFile(const std::string& from, const std::string& to, std::string& error) {
    if (::rename(from.c_str(), to.c_str()) == 0) return true;
    error = std::strerror(errno);
    return false;
}

void syncParentFolder(const std::string& path) {
    const auto slash = path.rfind('/');
    const std::string dir =
        slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

void removeFile(const std::string& path) {
    ::unlink(path.c_str());
}

unsigned processId() {
    return unsigned(::getpid());
}

void* mapReadOnly(NativeFile f, size_t len, std::string& error) {
    // MAP_PRIVATE + PROT_READ: the pages are the page cache's own (no copy), and a stray write
    // through a view faults loudly instead of changing the file.
    void* p = ::mmap(nullptr, len, PROT_READ, MAP_PRIVATE, fd(f), 0);
    if (p != MAP_FAILED) return p;
    error = std::strerror(errno);
    return nullptr;
}

void unmap(void* base, size_t len) {
    if (base) ::munmap(base, len);
}

size_t pageSize() {
    return size_t(::sysconf(_SC_PAGESIZE));
}

void prefetchPages(void* p, size_t len) {
    if (::madvise(p, len, MADV_POPULATE_READ) != 0) ::madvise(p, len, MADV_WILLNEED);
}

void dropPages(void* p, size_t len) {
    ::madvise(p, len, MADV_DONTNEED);
}

void* loadModule(const std::string& path, std::string& error) {
    void* m = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!m) error = ::dlerror();
    return m;
}

void* moduleSymbol(void* module, const char* name) {
    return ::dlsym(module, name);
}

void* processSymbol(const char* name) {
    return ::dlsym(RTLD_DEFAULT, name);
}

std::string executablePath() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.string();
}

#endif

}  // namespace hs::platform
