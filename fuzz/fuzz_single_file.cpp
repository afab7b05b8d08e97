// libFuzzer target: single-file checkpoint detection and conversion (models/single_file.cpp and
// the per-family layouts) on synthetic weight maps. The input edits the key set of one real
// fixture (names, shapes and dtypes from a safetensors header in tests/data, or a key list in
// fuzz/data; tensors are zero-filled, so only shapes matter). Built once over every fixture
// (fuzz_single_file) and once per layout (fuzz_single_file_<layout>, kHalfscopeFuzzLayout
// naming it), so that ten minutes of fuzzing are ten minutes on that layout's converter:
//   byte 0: the fixture (mod the count), byte 1: a prefix to move every key under ("" keeps
//   them), then 5-byte edits [op, a, b, c, d]:
//     0 remove key (a,b) | 1 set dim c of key (a,b) to d, or for d >= 250 to a hostile size
//     (2^62 with another dim 0, 2^31, 2^24 + 1, 2^32 + 1, size + 1, see hostileSize)
//     | 2 drop or add a dim of key (a,b)
//     3 rename key (a,b): digit at position c becomes d % 10, or cut at c
//     4 copy key (a,b) under another fixture's name (c,d) | 5 change the dtype of key (a,b)
//     6 move key (a,b) under prefix c
//   the bytes after the edits are appended to one key's name.
// detectSingleFile and convertSingleFile must either convert or throw WeightError /
// ConfigError naming the key; a converted component's config must be accepted by its family's
// reader. Any other escape goes to hs::fuzz::escapedException.
#include <torch/torch.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_util.h"
#include "io/safetensors_header.h"
#include "models/common/weights.h"
#include "models/single_file.h"

namespace {

struct Key {
    std::string name;
    std::vector<int64_t> shape;
    torch::ScalarType dtype;
};

torch::ScalarType torchType(hs::StDType t) {
    switch (t) {
        case hs::StDType::F16:
            return torch::kHalf;
        case hs::StDType::BF16:
            return torch::kBFloat16;
        case hs::StDType::F64:
            return torch::kDouble;
        case hs::StDType::I64:
            return torch::kLong;
        case hs::StDType::I32:
            return torch::kInt;
        default:
            return torch::kFloat;
    }
}

// A fuzz/data key list: {"name": ["F32", [shape...]], ...}, written from a test fixture's header.
std::vector<Key> readKeyList(const std::string& rel) {
    std::ifstream in(hs::fuzz::sourcePath(rel));
    const nlohmann::json j = nlohmann::json::parse(in);
    std::vector<Key> keys;
    for (const auto& [name, v] : j.items()) {
        const std::string t = v.at(0).get<std::string>();
        keys.push_back({name, v.at(1).get<std::vector<int64_t>>(),
                        t == "F16"    ? torch::kHalf
                        : t == "BF16" ? torch::kBFloat16
                                      : torch::kFloat});
    }
    return keys;
}

std::vector<Key> readKeys(const std::string& rel) {
    if (rel.size() > 10 && rel.compare(rel.size() - 10, 10, ".keys.json") == 0)
        return readKeyList(rel);
    std::ifstream in(hs::fuzz::sourcePath(rel), std::ios::binary);
    uint8_t len8[8] = {};
    in.read(reinterpret_cast<char*>(len8), 8);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = n << 8 | len8[i];
    in.seekg(0, std::ios::end);
    const uint64_t fileSize = uint64_t(in.tellg());
    if (n > (64u << 20) || 8 + n > fileSize) std::abort();  // a broken fixture
    std::vector<uint8_t> head(8 + n);
    in.seekg(0);
    in.read(reinterpret_cast<char*>(head.data()), std::streamsize(head.size()));
    const hs::StHeader h = hs::parseStHeader(head.data(), head.size(), fileSize);
    std::vector<Key> keys;
    for (const auto& t : h.tensors) keys.push_back({t.name, t.shape, torchType(t.dtype)});
    return keys;
}

struct Fixture {
    const char* layout;  // the per-layout target that fuzzes it
    const char* path;    // from the source tree
};

const Fixture kFixtures[] = {
    {"ldm", "tests/data/golden/sd15_single.safetensors"},
    {"flux_bfl", "tests/data/golden/flux_bfl.safetensors"},
    {"qwenimage", "tests/data/qwenimage/comfy_qwen_image.safetensors"},
    {"cosmos", "tests/data/cosmos/anima_original.safetensors"},
    {"wan_vae", "tests/data/wan_vae/qwen_vae_original.safetensors"},
    {"clip", "tests/data/golden/clip/model.safetensors"},
    {"t5", "tests/data/golden/t5/model.safetensors"},
    {"qwen", "tests/data/golden/qwen2/model.safetensors"},
    {"openclip", "fuzz/data/sd21_single.keys.json"},
    {"openclip", "fuzz/data/sdxl_single.keys.json"},
};

}  // namespace

// Defined by each target's one-line source (fuzz/CMakeLists.txt): "" for every fixture.
extern const char* const kHalfscopeFuzzLayout;

namespace {

const std::vector<std::vector<Key>>& fixtures() {
    static const std::vector<std::vector<Key>> f = [] {
        const std::string layout = kHalfscopeFuzzLayout;
        std::vector<std::vector<Key>> all;
        for (const Fixture& x : kFixtures)
            if (layout.empty() || layout == x.layout) all.push_back(readKeys(x.path));
        if (all.empty()) std::abort();  // a layout no fixture has
        return all;
    }();
    return f;
}

const char* const kPrefixes[] = {"",
                                 "model.diffusion_model.",
                                 "first_stage_model.",
                                 "cond_stage_model.transformer.",
                                 "cond_stage_model.model.",
                                 "conditioner.embedders.0.transformer.",
                                 "conditioner.embedders.1.model.",
                                 "text_encoders.clip_l.transformer.",
                                 "text_encoders.t5xxl.transformer.",
                                 "vae.",
                                 "model.",
                                 "net."};
constexpr size_t kPrefixCount = sizeof(kPrefixes) / sizeof(kPrefixes[0]);

constexpr int64_t kMaxElements = 1 << 22;  // per tensor, so that a grown dim stays cheap

// Sizes a file can give that no model has. 2^62 comes with another dimension set to 0, as a
// legal file holds it (no bytes); the others only where the tensor stays small enough to make.
int64_t hostileSize(Key& k, size_t dim, uint8_t pick) {
    switch (pick) {
        case 250:
            if (k.shape.size() >= 2) k.shape[dim == 0 ? 1 : 0] = 0;
            return int64_t(1) << 62;
        case 251:
            return int64_t(1) << 31;
        case 252:
            return (int64_t(1) << 24) + 1;
        case 253:
            return (int64_t(1) << 32) + 1;
        default:
            return k.shape[dim] + 1;
    }
}

// Zero-filled tensors of the keys' shapes; {} when one would be too large to make (a tensor
// with a 0 dimension is always made: it holds nothing, whatever its other sizes).
hs::WeightMap build(std::vector<Key> keys) {
    hs::WeightMap all;
    for (auto& k : keys) {
        bool empty = false;
        int64_t n = 1;
        for (int64_t& d : k.shape) {
            d = std::max<int64_t>(d, 0);
            empty = empty || d == 0;
        }
        // As the header parser: the product of the sizes other than 0, in bytes, must fit in
        // 64 bits even for an empty tensor (LibTorch refuses to make one otherwise).
        int64_t bytes = 8;
        for (const int64_t d : k.shape)
            if (__builtin_mul_overflow(bytes, std::max<int64_t>(d, 1), &bytes)) return {};
        for (const int64_t d : k.shape)
            if (!empty && (d > kMaxElements || (n *= d) > kMaxElements)) return {};
        all[k.name] = torch::zeros(k.shape, torch::TensorOptions().dtype(k.dtype));
    }
    return all;
}

void edit(std::vector<Key>& keys, const uint8_t* e) {
    if (keys.empty()) return;
    Key& k = keys[(size_t(e[1]) << 8 | e[2]) % keys.size()];
    switch (e[0] % 7) {
        case 0:
            keys.erase(keys.begin() + (&k - keys.data()));
            break;
        case 1:
            if (!k.shape.empty()) {
                const size_t dim = e[3] % k.shape.size();
                k.shape[dim] = e[4] < 250 ? int64_t(e[4]) : hostileSize(k, dim, e[4]);
            }
            break;
        case 2:
            if (e[3] % 2 && !k.shape.empty())
                k.shape.pop_back();
            else if (k.shape.size() < 5)
                k.shape.push_back(1 + e[4] % 4);
            break;
        case 3: {
            const size_t at = e[3] % (k.name.size() + 1);
            if (at < k.name.size() && k.name[at] >= '0' && k.name[at] <= '9')
                k.name[at] = char('0' + e[4] % 10);
            else
                k.name.resize(at);
            break;
        }
        case 4: {
            const auto& other = fixtures()[e[3] % fixtures().size()];
            if (!other.empty()) k.name = other[e[4] * 7919u % other.size()].name;
            break;
        }
        case 5: {
            const torch::ScalarType types[] = {torch::kHalf, torch::kBFloat16, torch::kFloat,
                                               torch::kLong, torch::kByte};
            k.dtype = types[e[3] % 5];
            break;
        }
        default:
            k.name = kPrefixes[e[3] % kPrefixCount] + k.name;
            break;
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fixtures();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) return 0;
    std::vector<Key> keys = fixtures()[data[0] % fixtures().size()];
    const std::string prefix = kPrefixes[data[1] % kPrefixCount];
    for (auto& k : keys) k.name = prefix + k.name;
    size_t i = 2;
    for (; i + 5 <= size && data[i] != 0xFF; i += 5) edit(keys, data + i);
    if (i < size && !keys.empty())
        keys[size % keys.size()].name.append(reinterpret_cast<const char*>(data) + i, size - i);
    const hs::WeightMap all = build(std::move(keys));
    try {
        hs::detectSingleFile(all);
        const hs::SingleFileContents c = hs::convertSingleFile(all, "fuzz.safetensors");
        for (const auto& comp : c.components)
            if (comp.className.empty() || comp.slot.empty()) std::abort();
    } catch (const std::runtime_error&) {  // WeightError, ConfigError
    } catch (const std::exception& e) {
        hs::fuzz::escapedException(e);
    }
    return 0;
}
