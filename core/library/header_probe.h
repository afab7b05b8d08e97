#pragma once
// One safetensors file described from its header alone: the first 8 + N bytes are read with
// pread (never mapped, so no page of the data area is touched), the tensors become meta tensors
// (shape and dtype, no storage) and the single-file detectors and conversions run on those.
#include <string>

#include "library/library_entry.h"

namespace hs {

// Reads `path`'s header and describes it. Never throws: a missing, truncated, corrupt,
// unreadable or non-regular file gets `error` set (with the size and times it has, if any).
FileProbe probeSafetensorsFile(const std::string& path);

// stat() of `path` (symlinks followed) into `p`'s size, mtime, inode and device. False, with
// `p.error` set, when it cannot be stat'ed (a dangling symlink says where it points).
bool statForProbe(const std::string& path, FileProbe& p);

// Safetensors headers read by this process so far (the cache tests count them).
int headerReadCount();

}  // namespace hs
