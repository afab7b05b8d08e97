#pragma once
// The safetensors header: dtypes, tensor entries and the strict validating parser. No LibTorch
// here, so the fuzzer (and anything else torch-free) can build it alone; io/safetensors.h adds
// the mapped reader and the writer on top.
//
// Validation follows the format's reference implementation (huggingface/safetensors), which is
// stricter than "whatever parses": the header must start with '{', keys must be unique, and the
// tensors must cover the data area exactly, with no holes, no overlaps and no trailing bytes
// (the spec forbids holes to prevent polyglot files; the reference rejects trailing bytes as
// MetadataIncompleteBuffer). A file Halfscope accepts therefore also loads in Python.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hs {

enum class StDType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL, F8_E4M3, F8_E5M2 };
std::string stDTypeName(StDType t);
size_t stDTypeSize(StDType t);
// "F32" -> StDType::F32; nullopt for names the format or this reader does not know.
std::optional<StDType> parseStDType(const std::string& name);

// Every problem with a file is reported as this, naming the file and what is wrong.
class FileError : public std::runtime_error {
public:
    FileError(const std::string& path, const std::string& what)
        : std::runtime_error(path + ": " + what), m_path(path) {}
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

struct StTensorInfo {
    std::string name;
    StDType dtype;
    std::vector<int64_t> shape;
    uint64_t begin = 0;  // byte offsets relative to the data area
    uint64_t end = 0;
    int64_t numel() const;
};

struct StHeader {
    uint64_t headerSize = 0;            // N
    std::vector<StTensorInfo> tensors;  // sorted by begin offset
    std::map<std::string, std::string> metadata;
};

// Largest header accepted (the format's own reference implementation uses 100 MB).
constexpr uint64_t kMaxHeaderBytes = 100ull << 20;

// Parses and validates the header from the first bytes of a file of `fileSize` bytes.
// `bytes` holds at least min(fileSize, 8 + N) bytes. Throws std::runtime_error with a specific
// message (no path; callers wrap it). Pure function, the fuzzing entry point.
StHeader parseStHeader(const uint8_t* bytes, size_t available, uint64_t fileSize);

// "[2, 3]": shapes in messages.
std::string shapeString(const std::vector<int64_t>& shape);

}  // namespace hs
