#pragma once
// safetensors files: memory-mapped reader (tensors are views into the mapping), strict header
// validation, sharded checkpoints (*.safetensors.index.json), and an atomic writer.
//
// A mapped file that shrinks while it is open (another program truncates or rewrites it) cannot
// crash the process: reads past its new end see zeros (io/mapped_guard.h), and every reader of
// the views asks checkIntact() (or checkMappedTensor()) afterwards, which throws FileError.
//
// Layout: [u64 little-endian header length N][N bytes of JSON header][data area]
// header: {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
//          "__metadata__": {"key": "string", ...}}; offsets are relative to the data area.
#include <torch/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

// The dtype table, FileError, the header structs and parseStHeader() live in a header without
// LibTorch so that the fuzzer and other torch-free code can use them.
#include "io/safetensors_header.h"

namespace hs {

class SafetensorsFile {
public:
    // Maps the file read-only and validates its header. Only a regular file is opened (a
    // symlink to one is followed); a FIFO, a device or a folder is refused before any read can
    // block. Throws FileError.
    static std::shared_ptr<SafetensorsFile> open(const std::string& path);
    ~SafetensorsFile();

    const std::string& path() const { return m_path; }
    uint64_t fileSize() const { return m_size; }
    const std::vector<StTensorInfo>& tensors() const { return m_header.tensors; }
    const std::map<std::string, std::string>& metadata() const { return m_header.metadata; }
    const StTensorInfo* find(const std::string& name) const;

    // CPU tensor viewing the mapped bytes (no copy; read-only memory: cast or clone before
    // writing). The view keeps the mapping alive. F8_E4M3 and F8_E5M2 (no LibTorch type) are
    // decoded into a float32 tensor of their own instead (io/float8.h): exact, 4 bytes an
    // element. Throws FileError when the file has shrunk since it was opened.
    torch::Tensor tensor(const std::string& name) const;

    // Throws FileError "file shrank to N bytes after it was opened (was M)" when the file lost
    // bytes since it was opened or a read of the mapping ran past its end (and saw zeros). Call
    // it after reading views, before trusting what was read. One fstat.
    void checkIntact() const;

    // Maps the tensor's pages in one system call (MADV_POPULATE_READ; readahead hint on kernels
    // older than 5.14) instead of one page fault per 4-64 KiB on first touch. Call it just
    // before reading a tensor that will be read whole; calling it for every tensor up front
    // would read a model larger than RAM twice. Unknown names are ignored.
    void prefetch(const std::string& name) const;

private:
    SafetensorsFile() = default;
    std::string m_path;
    uint64_t m_size = 0;
    void* m_map = nullptr;
    intptr_t m_fd = -1;  // platform::NativeFile, kept open for the size check
    int m_guard = -1;    // io/mapped_guard.h slot
    StHeader m_header;
    std::map<std::string, size_t> m_index;
    std::weak_ptr<SafetensorsFile> m_self;
};

// A set of tensors spread over one or more files: a single .safetensors file, or a sharded
// checkpoint given by its *.safetensors.index.json ({"weight_map": {name: shard file}}).
// Throws FileError (naming `index` and `tensor`) unless `shard`, a weight_map value of a
// *.safetensors.index.json, is a relative path inside the index's folder: not empty, no control
// characters, not absolute, no "..". Where it leads is not judged (the Hugging Face cache links
// every file to a blob).
void checkShardName(const std::string& index, const std::string& tensor, const std::string& shard);

class TensorSet {
public:
    static TensorSet open(const std::string& path);
    std::vector<std::string> names() const;  // sorted
    bool contains(const std::string& name) const;
    const StTensorInfo& info(const std::string& name) const;
    torch::Tensor tensor(const std::string& name) const;
    void prefetch(const std::string& name) const;  // see SafetensorsFile::prefetch
    // SafetensorsFile::checkIntact of the file holding `name`; of every file when empty.
    void checkIntact(const std::string& name = "") const;
    const std::vector<std::shared_ptr<SafetensorsFile>>& files() const { return m_files; }
    std::string source() const { return m_source; }  // the path it was opened from
private:
    std::string m_source;
    std::vector<std::shared_ptr<SafetensorsFile>> m_files;
    std::map<std::string, size_t> m_where;  // name -> index into m_files
};

// LibTorch's type for a stored dtype; none for float8 (LibTorch 1.13 has none).
std::optional<torch::ScalarType> scalarTypeOf(StDType t);

// When `t` views a mapped safetensors file that has shrunk since it was opened, throws FileError
// naming the file; nothing for any other tensor. For code that holds views without their file
// (a WeightMap): call it after reading them.
void checkMappedTensor(const torch::Tensor& t);

// Writes tensors (any device; copied to CPU, made contiguous) to a temporary file beside `path`
// and renames it into place, so a crash never leaves half a file.
void writeSafetensors(const std::string& path,
                      const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

}  // namespace hs
