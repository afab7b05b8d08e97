#pragma once
// The operating system's file, mapping and module calls the engine needs, behind one small
// interface: POSIX (Linux) and Win32 (Windows, built with clang-cl; checked with MinGW-w64 by
// tests/packaging/check_windows_sources.sh). Callers keep their own error messages; the calls
// here return false / kNoFile / nullptr and put the system's reason in `error`. No LibTorch.
#include <cstddef>
#include <cstdint>
#include <string>

namespace hs::platform {

// An open file: a file descriptor on POSIX, a HANDLE on Windows.
using NativeFile = intptr_t;
constexpr NativeFile kNoFile = -1;

struct FileStatus {
    bool regular = false;
    std::string kind;  // when not regular: "a folder", "a pipe (FIFO)", "a device", ...
    uint64_t size = 0;
    int64_t mtimeNs = 0;  // last write, nanoseconds (Windows: since 1601, 100 ns steps)
    int64_t ctimeNs = 0;  // last change of contents or metadata (Windows: 0, not read)
    uint64_t inode = 0;   // Windows: the file index
    uint64_t device = 0;  // Windows: the volume serial number
};

// Opens `path` for reading. It does not wait on a FIFO without a writer (O_NONBLOCK, cleared by
// makeBlocking once the caller knows the file is regular); on Windows a folder opens too, so
// that fileStatus can name it.
NativeFile openForRead(const std::string& path, std::string& error);
void makeBlocking(NativeFile f);
void closeFile(NativeFile f);
bool fileStatus(NativeFile f, FileStatus& out, std::string& error);
// stat() of a path, following links. A dangling symlink's error is "dangling symlink to T".
bool pathStatus(const std::string& path, FileStatus& out, std::string& error);

// Reads at the current position: bytes read, 0 at end of file, -1 on error (EINTR retried).
int64_t readSome(NativeFile f, void* buf, size_t n, std::string& error);
// Reads at `offset` without moving the position (pread; ReadFile with an OVERLAPPED offset).
int64_t readAt(NativeFile f, void* buf, size_t n, uint64_t offset, std::string& error);

// Creates `path` for writing; fails if any entry (a symlink included) has that name, and then
// `exists` is true. Mode 0644 on POSIX.
NativeFile createExclusive(const std::string& path, bool& exists, std::string& error);
// Writes the whole buffer (partial writes and EINTR looped).
bool writeAll(NativeFile f, const void* data, size_t n, std::string& error);
bool flushToDisk(NativeFile f, std::string& error);  // fsync; FlushFileBuffers
bool closeChecked(NativeFile f, std::string& error);
// Renames `from` over `to`, replacing it (rename; MoveFileExW REPLACE_EXISTING|WRITE_THROUGH).
bool replaceFile(const std::string& from, const std::string& to, std::string& error);
// Makes a rename in the folder of `path` durable (fsync of the folder on POSIX; the rename is
// already written through on Windows). Best effort.
void syncParentFolder(const std::string& path);
void removeFile(const std::string& path);
unsigned processId();

// Maps `len` bytes of `f` read-only (copy-on-write private on POSIX). nullptr on failure.
void* mapReadOnly(NativeFile f, size_t len, std::string& error);
void unmap(void* base, size_t len);
size_t pageSize();
// Reads the pages of [p, p+len) in ahead of use (MADV_POPULATE_READ, else MADV_WILLNEED;
// PrefetchVirtualMemory). Best effort.
void prefetchPages(void* p, size_t len);
// Drops the (clean, file-backed) pages of [p, p+len) from memory; they are read again from the
// file on next use (MADV_DONTNEED; VirtualUnlock + OfferVirtualMemory is not safe for file
// views, so nothing on Windows).
void dropPages(void* p, size_t len);

// Loads a shared module by path (dlopen RTLD_NOW|RTLD_LOCAL|RTLD_DEEPBIND; LoadLibraryExW).
void* loadModule(const std::string& path, std::string& error);
void* moduleSymbol(void* module, const char* name);
// A symbol of the running program and the libraries it loaded (dlsym RTLD_DEFAULT), or nullptr.
void* processSymbol(const char* name);
// The running executable's path ("" when unknown).
std::string executablePath();

}  // namespace hs::platform
