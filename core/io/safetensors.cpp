// Memory-mapped safetensors reader, sharded tensor sets and the atomic writer.
#include "io/safetensors.h"

#include <torch/torch.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "base/affixes.h"
#include "base/enum_names.h"
#include "io/atomic_file.h"
#include "io/bounded_read.h"
#include "io/float8.h"
#include "io/mapped_guard.h"
#include "io/model_folder.h"
#include "io/platform_file.h"

// The format is little-endian and tensors are views of the raw bytes: a big-endian host would
// need a byte-swapping copy, which nothing here does.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors views need little-endian");

namespace hs {

namespace fs = std::filesystem;

namespace {

// The safetensors dtypes LibTorch has (no float8 in LibTorch 1.13).
constexpr std::pair<StDType, torch::ScalarType> kStTypes[] = {
    {StDType::F64, torch::kFloat64}, {StDType::F32, torch::kFloat32},
    {StDType::F16, torch::kFloat16}, {StDType::BF16, torch::kBFloat16},
    {StDType::I64, torch::kInt64},   {StDType::I32, torch::kInt32},
    {StDType::I16, torch::kInt16},   {StDType::I8, torch::kInt8},
    {StDType::U8, torch::kUInt8},    {StDType::BOOL, torch::kBool}};

std::optional<StDType> stDTypeOf(torch::ScalarType t) {
    return firstOf(kStTypes, t);
}

struct Fd {
    platform::NativeFile fd;
    ~Fd() { platform::closeFile(fd); }
};

}  // namespace

std::optional<torch::ScalarType> scalarTypeOf(StDType t) {
    return secondOf(kStTypes, t);
}

// ---- SafetensorsFile ------------------------------------------------------------------------

std::shared_ptr<SafetensorsFile> SafetensorsFile::open(const std::string& path) {
    // Not blocked by a FIFO without a writer (platform::openForRead); made blocking once the
    // file is known to be regular (where it means nothing anyway).
    std::string error;
    Fd fd{platform::openForRead(path, error)};
    if (fd.fd == platform::kNoFile) throw FileError(path, "cannot open: " + error);
    platform::FileStatus st;
    if (!platform::fileStatus(fd.fd, st, error)) throw FileError(path, "cannot stat: " + error);
    if (!st.regular) throw FileError(path, "weights file is " + st.kind + ", not a regular file");
    platform::makeBlocking(fd.fd);

    std::shared_ptr<SafetensorsFile> f(new SafetensorsFile());
    f->m_path = path;
    f->m_size = st.size;
    try {
        if (f->m_size < 8) {
            // Too short to map usefully; the parser turns it into the right message.
            uint8_t buf[8] = {};
            const int64_t got = platform::readSome(fd.fd, buf, sizeof buf, error);
            parseStHeader(buf, got < 0 ? 0 : size_t(got), f->m_size);
        }
        void* p = platform::mapReadOnly(fd.fd, f->m_size, error);
        if (!p) throw FileError(path, "cannot map: " + error);
        f->m_map = p;  // owned from here: the destructor unmaps, also when parsing throws
        f->m_fd = fd.fd;
        fd.fd = platform::kNoFile;
        // Guarded before the header is read: the file may shrink while it is parsed.
        f->m_guard = registerMapping(p, f->m_size, f->m_fd, f->m_path.c_str());
        f->m_header = parseStHeader(static_cast<const uint8_t*>(p), f->m_size, f->m_size);
        f->checkIntact();
    } catch (const FileError&) {
        throw;
    } catch (const std::exception& e) {
        throw FileError(path, e.what());
    }
    for (size_t i = 0; i < f->m_header.tensors.size(); ++i)
        f->m_index.emplace(f->m_header.tensors[i].name, i);
    f->m_self = f;
    return f;
}

SafetensorsFile::~SafetensorsFile() {
    unregisterMapping(m_guard);
    platform::unmap(m_map, m_size);
    platform::closeFile(m_fd);
}

void SafetensorsFile::checkIntact() const {
    const std::string damage = mappingDamage(m_guard);
    if (!damage.empty()) throw FileError(m_path, damage);
    if (m_guard < 0 && m_fd != platform::kNoFile) {  // unguarded (table full): the size check
        platform::FileStatus st;
        std::string error;
        if (platform::fileStatus(m_fd, st, error) && st.size < m_size)
            throw FileError(m_path, "file shrank to " + std::to_string(st.size) +
                                        " bytes after it was opened (was " +
                                        std::to_string(m_size) + ")");
    }
}

const StTensorInfo* SafetensorsFile::find(const std::string& name) const {
    auto it = m_index.find(name);
    return it == m_index.end() ? nullptr : &m_header.tensors[it->second];
}

torch::Tensor SafetensorsFile::tensor(const std::string& name) const {
    const StTensorInfo* info = find(name);
    if (!info) throw FileError(m_path, "no tensor named '" + name + "'");
    const std::optional<Float8> f8 = float8Of(info->dtype);
    // float8 (no LibTorch type) is decoded into float32, which holds every value exactly.
    auto opts = torch::TensorOptions().dtype(f8 ? torch::kFloat32 : *scalarTypeOf(info->dtype));
    if (info->numel() == 0) return torch::empty(info->shape, opts);
    checkIntact();  // a view of a file that lost its bytes would read zeros

    const uint8_t* data =
        static_cast<const uint8_t*>(m_map) + 8 + m_header.headerSize + info->begin;
    const size_t bytes = info->end - info->begin;
    if (f8) {
        auto t = torch::empty(info->shape, opts);
        decodeFloat8(*f8, data, t.data_ptr<float>(), bytes);
        checkIntact();  // the decode read zeros if the file shrank meanwhile
        return t;
    }
    if (info->dtype == StDType::BOOL) {
        // A bool byte other than 0/1 is undefined behaviour in LibTorch's kernels.
        for (size_t i = 0; i < bytes; ++i)
            if (data[i] > 1)
                throw FileError(m_path, "tensor '" + name + "': BOOL byte " +
                                            std::to_string(data[i]) + " is neither 0 nor 1");
        checkIntact();
    }
    // Headers are not padded by every writer, so data may start at any byte; LibTorch kernels
    // assume element alignment, so a misaligned tensor is copied instead of viewed.
    if (reinterpret_cast<uintptr_t>(data) % stDTypeSize(info->dtype) != 0) {
        auto t = torch::empty(info->shape, opts);
        std::memcpy(t.data_ptr(), data, bytes);
        checkIntact();  // the copy read zeros if the file shrank meanwhile
        return t;
    }
    // The deleter holds the file, so the mapping outlives every view of it.
    std::shared_ptr<const SafetensorsFile> keep = m_self.lock();
    return torch::from_blob(
        const_cast<uint8_t*>(data), info->shape, [keep](void*) {}, opts);
}

void SafetensorsFile::prefetch(const std::string& name) const {
    const StTensorInfo* info = find(name);
    if (!info || info->begin == info->end) return;
    static const uintptr_t page = uintptr_t(platform::pageSize());
    const auto first = reinterpret_cast<uintptr_t>(m_map) + 8 + m_header.headerSize + info->begin;
    const uintptr_t start = first & ~(page - 1);
    const size_t len = size_t(first + (info->end - info->begin) - start);
    // Best effort: a failure only means the pages fault in one by one later.
    platform::prefetchPages(reinterpret_cast<void*>(start), len);
}

// ---- TensorSet ------------------------------------------------------------------------------

namespace {

// `s` cut to `max` bytes with control characters as \xNN: a NUL would end the message there.
std::string visible(const std::string& s, size_t max) {
    std::string out;
    for (size_t i = 0; i < s.size() && i < max; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7f) {
            static const char* hex = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += char(c);
        }
    }
    return s.size() > max ? out + "..." : out;
}

}  // namespace

// A shard name from an index: a file name or a relative path below the index's folder. The
// name itself is judged, not where it leads: a shard that is a symlink inside the folder (the
// Hugging Face cache links every file to a blob elsewhere) is fine.
void checkShardName(const std::string& index, const std::string& tensor, const std::string& shard) {
    auto refuse = [&](const std::string& why) {
        throw FileError(index, "weight_map entry '" + visible(tensor, 80) + "': shard name '" +
                                   visible(shard, 120) + "' " + why);
    };
    if (shard.empty()) refuse("is empty");
    for (unsigned char c : shard)  // a NUL would cut the name short when the file is opened
        if (c < 0x20 || c == 0x7f) refuse("holds a control character");
    const fs::path rel(shard);
    if (rel.is_absolute() || shard[0] == '/')
        refuse("is absolute; it must be a relative path inside the folder");
    for (const auto& part : rel)
        if (part == "..")
            refuse("climbs out with '..'; it must be a relative path inside the folder");
}

TensorSet TensorSet::open(const std::string& path) {
    TensorSet set;
    set.m_source = path;
    if (!endsWith(path, ".json")) {
        set.m_files.push_back(SafetensorsFile::open(path));
        for (const auto& t : set.m_files[0]->tensors()) set.m_where.emplace(t.name, 0);
        return set;
    }

    // Sharded: {"metadata": {...}, "weight_map": {"tensor name": "shard file", ...}}.
    nlohmann::json index = readJsonFile(path);
    if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
        throw FileError(path, "not a sharded-checkpoint index: no \"weight_map\" object");
    const auto& wm = index["weight_map"];
    if (wm.empty()) throw FileError(path, "\"weight_map\" is empty");
    std::map<std::string, std::set<std::string>> byShard;  // shard file -> assigned names
    std::map<std::string, std::string> assigned;           // name -> shard file
    for (auto it = wm.begin(); it != wm.end(); ++it) {
        if (!it.value().is_string())
            throw FileError(path, "weight_map entry '" + it.key() + "' is not a file name");
        const std::string shard = it.value().get<std::string>();
        checkShardName(path, it.key(), shard);
        byShard[shard].insert(it.key());
        assigned[it.key()] = shard;
    }
    const fs::path dir = fs::path(path).parent_path();
    for (const auto& [shard, names] : byShard) {
        const std::string shardPath = (dir / shard).string();
        if (!fs::exists(shardPath))
            throw FileError(
                path, "shard '" + shard + "' listed in the index is missing (" + shardPath + ")");
        auto file = SafetensorsFile::open(shardPath);
        for (const auto& t : file->tensors()) {
            auto a = assigned.find(t.name);
            if (a == assigned.end())
                throw FileError(path, "shard '" + shard + "' holds tensor '" + t.name +
                                          "', which the index does not list");
            if (a->second != shard)
                throw FileError(path, "tensor '" + t.name + "' is in shard '" + shard +
                                          "' but the index assigns it to '" + a->second + "'");
        }
        for (const auto& n : names)
            if (!file->find(n))
                throw FileError(path, "tensor '" + n + "' is assigned to shard '" + shard +
                                          "', which does not hold it");
        const size_t idx = set.m_files.size();
        set.m_files.push_back(file);
        for (const auto& n : names) set.m_where.emplace(n, idx);
    }
    return set;
}

void TensorSet::prefetch(const std::string& name) const {
    auto it = m_where.find(name);
    if (it != m_where.end()) m_files[it->second]->prefetch(name);
}

void TensorSet::checkIntact(const std::string& name) const {
    if (name.empty()) {
        for (const auto& f : m_files) f->checkIntact();
        return;
    }
    auto it = m_where.find(name);
    if (it != m_where.end()) m_files[it->second]->checkIntact();
}

void checkMappedTensor(const torch::Tensor& t) {
    if (!t.defined() || !t.device().is_cpu() || t.numel() == 0) return;
    const int slot = mappingOf(t.data_ptr());
    if (slot < 0) return;
    const std::string damage = mappingDamage(slot);
    if (!damage.empty()) throw FileError(mappingPath(slot), damage);
}

std::vector<std::string> TensorSet::names() const {
    std::vector<std::string> out;
    out.reserve(m_where.size());
    for (const auto& kv : m_where) out.push_back(kv.first);  // std::map: already sorted
    return out;
}

bool TensorSet::contains(const std::string& name) const {
    return m_where.count(name) > 0;
}

const StTensorInfo& TensorSet::info(const std::string& name) const {
    auto it = m_where.find(name);
    if (it == m_where.end()) throw FileError(m_source, "no tensor named '" + name + "'");
    return *m_files[it->second]->find(name);
}

torch::Tensor TensorSet::tensor(const std::string& name) const {
    auto it = m_where.find(name);
    if (it == m_where.end()) throw FileError(m_source, "no tensor named '" + name + "'");
    return m_files[it->second]->tensor(name);
}

// ---- writer ---------------------------------------------------------------------------------

void writeSafetensors(const std::string& path,
                      const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata) {
    // Everything that can be checked is checked before the temporary file exists.
    struct Item {
        const std::string* name;
        const torch::Tensor* t;
        StDType dtype;
        uint64_t bytes;
    };
    std::vector<Item> items;
    for (const auto& [name, t] : tensors) {
        if (name == "__metadata__") throw FileError(path, "'__metadata__' cannot name a tensor");
        if (!t.defined()) throw FileError(path, "tensor '" + name + "' is undefined");
        auto dt = stDTypeOf(t.scalar_type());
        if (!dt)
            throw FileError(path, "tensor '" + name + "': dtype " +
                                      std::string(c10::toString(t.scalar_type())) +
                                      " cannot be stored in safetensors by this writer");
        items.push_back({&name, &t, *dt, uint64_t(t.numel()) * stDTypeSize(*dt)});
    }
    std::sort(items.begin(), items.end(),
              [](const Item& a, const Item& b) { return *a.name < *b.name; });
    for (size_t i = 1; i < items.size(); ++i)
        if (*items[i].name == *items[i - 1].name)
            throw FileError(path, "tensor name '" + *items[i].name + "' given twice");

    nlohmann::json header = nlohmann::json::object();
    uint64_t offset = 0;
    for (const auto& it : items) {
        header[*it.name] = {{"dtype", stDTypeName(it.dtype)},
                            {"shape", it.t->sizes().vec()},
                            {"data_offsets", {offset, offset + it.bytes}}};
        offset += it.bytes;
    }
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::string text;
    try {
        text = header.dump();
    } catch (const nlohmann::json::exception& e) {  // a name or value that is not UTF-8
        throw FileError(path, std::string("cannot write the header: ") + e.what());
    }
    // Spaces (valid JSON whitespace) pad the header so the data area starts 8-byte aligned and
    // every tensor whose offset is a multiple of its size can be viewed in place.
    text.append((8 - text.size() % 8) % 8, ' ');
    uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = uint8_t(uint64_t(text.size()) >> (8 * i));

    AtomicFile out(path);
    out.write(len, 8);
    out.write(text.data(), text.size());
    for (const auto& it : items) {
        // One tensor at a time on the CPU: writing a model from the GPU never holds a second
        // full copy in host memory.
        torch::Tensor c = it.t->detach().to(torch::kCPU).contiguous();
        if (it.bytes) out.write(c.data_ptr(), it.bytes);
    }
    out.commit();
}

}  // namespace hs
