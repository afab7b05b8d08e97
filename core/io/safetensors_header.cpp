// Strict parser for the safetensors header (see safetensors_header.h for the rules it enforces).
// Every check runs before any byte of tensor data is used, and each failure names what is wrong
// with a distinct message, so that a corrupt download is told apart from a wrong file.
#include "io/safetensors_header.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "io/bounded_read.h"

namespace hs {

namespace {

struct DTypeEntry {
    StDType type;
    const char* name;
    size_t size;
};

constexpr DTypeEntry kDTypes[] = {
    {StDType::F64, "F64", 8},   {StDType::F32, "F32", 4},         {StDType::F16, "F16", 2},
    {StDType::BF16, "BF16", 2}, {StDType::I64, "I64", 8},         {StDType::I32, "I32", 4},
    {StDType::I16, "I16", 2},   {StDType::I8, "I8", 1},           {StDType::U8, "U8", 1},
    {StDType::BOOL, "BOOL", 1}, {StDType::F8_E4M3, "F8_E4M3", 1}, {StDType::F8_E5M2, "F8_E5M2", 1},
};

[[noreturn]] void fail(const std::string& msg) {
    throw std::runtime_error(msg);
}

// Returns the offset of the first byte that breaks UTF-8 (overlong forms, surrogates and code
// points past U+10FFFF included), or npos. nlohmann checks strings itself, but this gives one
// clear message for any bad byte, wherever it is.
size_t firstInvalidUtf8(const uint8_t* s, size_t n) {
    size_t i = 0;
    while (i < n) {
        const uint8_t c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t len;
        uint32_t cp;
        if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return i;
        }
        if (i + len > n) return i;
        for (size_t k = 1; k < len; ++k) {
            if ((s[i + k] & 0xC0) != 0x80) return i;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        const uint32_t minCp = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
        if (cp < minCp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
        i += len;
    }
    return std::string::npos;
}

using json = nlohmann::json;

// nlohmann keeps the last of duplicate keys silently; the format forbids duplicates, and a
// second entry for a tensor name is exactly how a crafted file would hide data. The parser
// callback sees every key with its nesting, so duplicates are found without a second parse.
json parseRejectingDuplicates(const char* begin, const char* end) {
    std::vector<std::set<std::string>> open;  // keys seen in each object being parsed
    std::string duplicate;
    auto cb = [&](int /*depth*/, json::parse_event_t ev, json& parsed) {
        switch (ev) {
            case json::parse_event_t::object_start:
                open.emplace_back();
                break;
            case json::parse_event_t::object_end:
                if (!open.empty()) open.pop_back();
                break;
            case json::parse_event_t::key:
                if (!open.empty() && !open.back().insert(parsed.get<std::string>()).second &&
                    duplicate.empty())
                    duplicate = parsed.get<std::string>();
                break;
            default:
                break;
        }
        return true;
    };
    json j;
    try {
        j = json::parse(begin, end, cb, /*allow_exceptions=*/true);
    } catch (const json::exception& e) {
        fail("header is not valid JSON: " + boundedJsonError(e));
    }
    if (!duplicate.empty()) fail("header has the key '" + duplicate + "' more than once");
    return j;
}

// True (and the value) for a JSON number that is a non-negative integer.
bool asIndex(const json& v, uint64_t& out) {
    if (v.is_number_unsigned()) {
        out = v.get<uint64_t>();
        return true;
    }
    return false;
}

// A short rendering of a value for messages. Lists and objects are not dumped: dump() recurses,
// and a deeply nested value in a crafted header would overflow the stack.
std::string describe(const json& v) {
    if (v.is_array()) {
        bool flat = true;
        for (const auto& x : v) flat &= !x.is_structured();
        if (!flat || v.size() > 8) return "a list of " + std::to_string(v.size()) + " items";
    } else if (v.is_object()) {
        return "an object";
    }
    std::string s = v.dump();
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// shapeString, cut short: a crafted shape may list thousands of dimensions.
std::string shortShape(const std::vector<int64_t>& shape) {
    std::string s = shapeString(shape);
    return s.size() > 80 ? s.substr(0, 76) + "...]" : s;
}

StTensorInfo parseEntry(const std::string& name, const json& e) {
    const std::string where = "tensor '" + name + "': ";
    if (!e.is_object()) fail(where + "entry is not a JSON object");
    StTensorInfo t;
    t.name = name;

    auto dt = e.find("dtype");
    if (dt == e.end()) fail(where + "missing \"dtype\"");
    if (!dt->is_string()) fail(where + "\"dtype\" must be a string, got " + describe(*dt));
    auto parsed = parseStDType(dt->get<std::string>());
    if (!parsed) fail(where + "unknown dtype '" + dt->get<std::string>() + "'");
    t.dtype = *parsed;

    auto sh = e.find("shape");
    if (sh == e.end()) fail(where + "missing \"shape\"");
    if (!sh->is_array()) fail(where + "\"shape\" must be a list, got " + describe(*sh));
    // Torch counts elements in int64 and the byte size must fit in 64 bits too. Every partial
    // product is checked, zeros counted as one: [2^62, 4, 0] is empty, but LibTorch's own size
    // arithmetic (and the reference's left-to-right checked product) overflows on it, so it is
    // refused like [2^40, 2^40].
    bool hasZero = false;
    for (size_t i = 0; i < sh->size(); ++i) {
        const json& d = (*sh)[i];
        uint64_t v = 0;
        if (d.is_number_integer() && !d.is_number_unsigned())
            fail(where + "shape[" + std::to_string(i) + "] = " + describe(d) + " is negative");
        if (!asIndex(d, v))
            fail(where + "shape[" + std::to_string(i) + "] = " + describe(d) +
                 " is not a non-negative integer");
        if (v > uint64_t(std::numeric_limits<int64_t>::max()))
            fail(where + "shape " + describe(*sh) + " overflows: dimension too large");
        t.shape.push_back(int64_t(v));
        hasZero |= v == 0;
    }
    const int64_t es = int64_t(stDTypeSize(t.dtype));
    int64_t bounded = 1, boundedBytes = 0;
    for (int64_t d : t.shape)
        if (__builtin_mul_overflow(bounded, std::max<int64_t>(d, 1), &bounded))
            fail(where + "shape " + shortShape(t.shape) +
                 " overflows: its element count does not fit in 64 bits");
    if (__builtin_mul_overflow(bounded, es, &boundedBytes))
        fail(where + "shape " + shortShape(t.shape) + " overflows: " + stDTypeName(t.dtype) +
             " bytes do not fit in 64 bits");
    const uint64_t numel = hasZero ? 0 : uint64_t(bounded);

    auto off = e.find("data_offsets");
    if (off == e.end()) fail(where + "missing \"data_offsets\"");
    if (!off->is_array() || off->size() != 2 || !asIndex((*off)[0], t.begin) ||
        !asIndex((*off)[1], t.end))
        fail(where + "\"data_offsets\" must be a list of two non-negative integers, got " +
             describe(*off));
    if (t.begin > t.end)
        fail(where + "data_offsets begin " + std::to_string(t.begin) + " > end " +
             std::to_string(t.end));
    const uint64_t need = numel * uint64_t(es);
    if (t.end - t.begin != need)
        fail(where + "data_offsets span " + std::to_string(t.end - t.begin) + " bytes, but " +
             stDTypeName(t.dtype) + " " + shapeString(t.shape) + " needs " + std::to_string(need));
    return t;
}

}  // namespace

std::string stDTypeName(StDType t) {
    for (const auto& d : kDTypes)
        if (d.type == t) return d.name;
    return "?";
}

size_t stDTypeSize(StDType t) {
    for (const auto& d : kDTypes)
        if (d.type == t) return d.size;
    return 0;
}

std::optional<StDType> parseStDType(const std::string& name) {
    for (const auto& d : kDTypes)
        if (name == d.name) return d.type;
    return std::nullopt;
}

int64_t StTensorInfo::numel() const {
    // The parser refuses shapes whose product overflows; this info may come from elsewhere, so
    // the product is still checked, and a zero anywhere makes it 0 whatever comes before it.
    for (auto d : shape)
        if (d == 0) return 0;
    int64_t n = 1;
    for (auto d : shape)
        if (d < 0 || __builtin_mul_overflow(n, d, &n))
            throw std::overflow_error("tensor '" + name + "': shape " + shortShape(shape) +
                                      " has no valid element count (negative or over 64 bits)");
    return n;
}

std::string shapeString(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

StHeader parseStHeader(const uint8_t* bytes, size_t available, uint64_t fileSize) {
    if (fileSize < 8)
        fail("file has " + std::to_string(fileSize) +
             " bytes, shorter than 8 bytes (the header length alone takes 8)");
    if (available < 8) fail("internal error: fewer than 8 header bytes given");
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];  // little-endian on any host
    if (n == 0) fail("header length is 0");
    if (n > kMaxHeaderBytes)
        fail("header length " + std::to_string(n) + " exceeds the limit of " +
             std::to_string(kMaxHeaderBytes) + " bytes (not a safetensors file?)");
    if (n > fileSize - 8)
        fail("header length " + std::to_string(n) + " runs past the end of the file (" +
             std::to_string(fileSize) + " bytes; truncated or not a safetensors file?)");
    if (available < 8 + n) fail("internal error: header bytes not all given");

    const uint8_t* h = bytes + 8;
    const size_t bad = firstInvalidUtf8(h, n);
    if (bad != std::string::npos)
        fail("header is not valid UTF-8 (byte " + std::to_string(bad) + " of the header)");
    // Depth first: nlohmann builds one node per level, so a 100 MB "[[[[..." would take
    // gigabytes (and its recursive destructor the stack) before any other check ran.
    try {
        checkJsonDepth(std::string(reinterpret_cast<const char*>(h), n));
    } catch (const std::runtime_error& e) {
        fail(std::string("header: ") + e.what());
    }
    json j = parseRejectingDuplicates(reinterpret_cast<const char*>(h),
                                      reinterpret_cast<const char*>(h + n));
    if (!j.is_object()) fail("header is not a JSON object");
    if (h[0] != '{') fail("header must start with '{' (the format forbids leading whitespace)");

    StHeader out;
    out.headerSize = n;
    const uint64_t dataSize = fileSize - 8 - n;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key() == "__metadata__") {
            const json& m = it.value();
            if (m.is_null()) continue;  // the reference reads it as an Option: null is absent
            if (!m.is_object()) fail("\"__metadata__\" must be an object of strings");
            for (auto mi = m.begin(); mi != m.end(); ++mi) {
                if (!mi.value().is_string())
                    fail("\"__metadata__\" value for '" + mi.key() + "' is not a string, got " +
                         describe(mi.value()));
                out.metadata[mi.key()] = mi.value().get<std::string>();
            }
            continue;
        }
        StTensorInfo t = parseEntry(it.key(), it.value());
        if (t.end > dataSize)
            fail("tensor '" + t.name + "': data_offsets [" + std::to_string(t.begin) + ", " +
                 std::to_string(t.end) + "] run past the end of the data area (" +
                 std::to_string(dataSize) + " bytes; is the file truncated?)");
        out.tensors.push_back(std::move(t));
    }

    // Empty tensors (begin == end) sort before a tensor starting at the same offset, so they
    // never count as overlapping it.
    std::sort(out.tensors.begin(), out.tensors.end(),
              [](const StTensorInfo& a, const StTensorInfo& b) {
                  if (a.begin != b.begin) return a.begin < b.begin;
                  if (a.end != b.end) return a.end < b.end;
                  return a.name < b.name;
              });
    uint64_t covered = 0;
    const StTensorInfo* prev = nullptr;
    for (const auto& t : out.tensors) {
        if (t.begin < covered)
            fail("tensors '" + prev->name + "' [" + std::to_string(prev->begin) + ", " +
                 std::to_string(prev->end) + "] and '" + t.name + "' [" + std::to_string(t.begin) +
                 ", " + std::to_string(t.end) + "] overlap");
        if (t.begin > covered)
            fail("gap of " + std::to_string(t.begin - covered) + " bytes before tensor '" + t.name +
                 "' at offset " + std::to_string(t.begin) +
                 " (the format requires tensors to cover the data area without holes)");
        covered = t.end;
        prev = &t;
    }
    if (covered != dataSize)
        fail(std::to_string(dataSize - covered) +
             " trailing bytes after the last tensor are not covered by any tensor (the format "
             "forbids unindexed data)");
    return out;
}

}  // namespace hs
