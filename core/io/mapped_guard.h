#pragma once
// Reads of a mapped file that shrinks after it was mapped. A page of a file mapping past the
// file's new end raises SIGBUS on the next read, which would kill the process: another program
// (a download manager, `git lfs`, a sync client) may truncate or rewrite a model file while the
// studio holds it mapped. Registered mappings are guarded by one SIGBUS handler: a fault inside
// one maps zero pages over the rest of it, marks it as shrunk and returns, so the read completes
// (with zeros) wherever it ran, LibTorch kernels and worker threads included. Readers then ask
// whether their bytes are still the file's (checkMapping) and turn a shrunk file into an error.
// Faults outside registered mappings keep their default action. No LibTorch here.
#include <cstddef>
#include <cstdint>
#include <string>

namespace hs {

// Registers `len` bytes mapped at `base` from the open file `fd` (kept open by the caller while
// registered) named `path` (its storage must outlive the registration). Installs the handler
// on first use. Returns a slot for the other calls, or -1 when the table is full (the mapping
// is then unguarded: a shrink is still found by checkMapping's size check, a read may crash).
// `fd` is a platform::NativeFile (io/platform_file.h).
int registerMapping(const void* base, size_t len, intptr_t fd, const char* path);
void unregisterMapping(int slot);

// Empty while the file still has every mapped byte, no read faulted and it is the file it was
// when mapped (device, inode, size, modification and change times); otherwise what happened:
// "file shrank to N bytes after it was opened (was M)", "file changed after it was opened ...".
// One fstat.
std::string mappingDamage(int slot);

// The slot whose mapping holds `p`, or -1; the path a slot was registered with.
int mappingOf(const void* p);
std::string mappingPath(int slot);

}  // namespace hs
