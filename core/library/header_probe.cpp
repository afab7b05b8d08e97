#include "library/header_probe.h"

#include <torch/torch.h>

#include <atomic>
#include <cstring>
#include <filesystem>

#include "inspect/inspect_headline.h"
#include "io/bounded_read.h"
#include "io/float8.h"
#include "io/platform_file.h"
#include "io/safetensors.h"
#include "io/safetensors_header.h"
#include "io/scaled_fp8.h"
#include "models/single_file.h"

namespace hs {

namespace {

std::atomic<int> g_headerReads{0};

// Reads exactly `n` bytes at `offset`; false at end of file.
bool readAt(platform::NativeFile fd, void* buf, size_t n, uint64_t offset) {
    auto* p = static_cast<uint8_t*>(buf);
    std::string error;
    while (n > 0) {
        const int64_t got = platform::readAt(fd, p, n, offset, error);
        if (got < 0) throw std::runtime_error("read failed: " + error);
        if (got == 0) return false;
        p += got;
        n -= static_cast<size_t>(got);
        offset += static_cast<uint64_t>(got);
    }
    return true;
}

StHeader readHeader(const std::string& path, uint64_t fileSize) {
    // Not blocked by a FIFO put in a model folder (platform::openForRead): statForProbe refused
    // non-regular files already; this covers a swap between the stat and the open.
    std::string error;
    const platform::NativeFile fd = platform::openForRead(path, error);
    if (fd == platform::kNoFile) throw std::runtime_error("cannot open: " + error);
    struct Closer {
        platform::NativeFile fd;
        ~Closer() { platform::closeFile(fd); }
    } closer{fd};
    platform::FileStatus st;
    if (!platform::fileStatus(fd, st, error) || !st.regular)
        throw std::runtime_error("not a regular file");
    ++g_headerReads;
    uint8_t lenBytes[8];
    if (fileSize < 8 || !readAt(fd, lenBytes, 8, 0))
        throw std::runtime_error("file of " + std::to_string(fileSize) +
                                 " bytes is too short for a safetensors header (8-byte length)");
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | lenBytes[i];
    if (n > kMaxHeaderBytes || n > fileSize - 8)
        throw std::runtime_error("header length " + std::to_string(n) + " exceeds " +
                                 (n > kMaxHeaderBytes
                                      ? "the 100 MB limit"
                                      : "the file size " + std::to_string(fileSize)));
    std::vector<uint8_t> bytes(8 + n);
    std::memcpy(bytes.data(), lenBytes, 8);
    if (!readAt(fd, bytes.data() + 8, n, 8))
        throw std::runtime_error("file ended inside its header");
    return parseStHeader(bytes.data(), bytes.size(), fileSize);
}

}  // namespace

int headerReadCount() {
    return g_headerReads.load();
}

bool statForProbe(const std::string& path, FileProbe& p) {
    p.path = path;
    platform::FileStatus st;
    if (!platform::pathStatus(path, st, p.error)) return false;
    p.size = st.size;
    p.mtimeNs = st.mtimeNs;
    p.inode = st.inode;
    p.device = st.device;
    if (!st.regular) {
        p.error = "not a regular file (" + st.kind + ")";
        return false;
    }
    return true;
}

FileProbe probeSafetensorsFile(const std::string& path) {
    FileProbe p;
    if (!statForProbe(path, p)) return p;
    StHeader header;
    try {
        header = readHeader(path, p.size);
    } catch (const std::exception& e) {
        p.error = e.what();
        return p;
    }
    const bool scaled = hasScaledFp8Marker(header.tensors);
    for (const auto& t : header.tensors) {
        if (isScaledFp8Bookkeeping(t.name, scaled)) continue;
        ++p.tensors;
        p.parameters += t.numel();
        p.dtypes[storedDtypeLabel(t.dtype, scaled)] += t.numel();  // "BF16", "scaled e4m3"
    }
    const WeightMap meta = layoutTensorsOf(header.tensors);
    try {
        p.layouts = detectSingleFile(meta);
        if (p.layouts.empty()) return p;
        const SingleFileContents f = convertSingleFile(meta, path);
        for (const auto& c : f.components)
            p.parts.push_back({c.slot, c.className, c.description, c.config.dump()});
        p.headline = singleFileHeadline(f, meta);
    } catch (const std::exception& e) {
        // The conversions' messages end with c10's backtrace on some errors: keep line one.
        std::string what = e.what();
        const auto nl = what.find('\n');
        p.conversionError = nl == std::string::npos ? what : what.substr(0, nl);
    }
    return p;
}

}  // namespace hs
