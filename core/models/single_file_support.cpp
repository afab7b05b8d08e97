#include "models/single_file_support.h"

#include <cstdio>
#include <map>

namespace hs {

std::string dtypeShortName(c10::ScalarType t) {
    switch (t) {
        case torch::kBFloat16:
            return "bf16";
        case torch::kFloat16:
            return "fp16";
        case torch::kFloat32:
            return "fp32";
        case torch::kFloat64:
            return "fp64";
        default:
            return c10::toString(t);
    }
}

LayoutKeys::LayoutKeys(WeightMap keys, std::string prefix, std::string layout, std::string path)
    : m_keys(std::move(keys)),
      m_prefix(std::move(prefix)),
      m_layout(std::move(layout)),
      m_path(std::move(path)) {
    std::map<c10::ScalarType, int64_t> elements;
    for (const auto& kv : m_keys)
        if (kv.second.is_floating_point()) elements[kv.second.scalar_type()] += kv.second.numel();
    int64_t best = -1;
    for (const auto& [type, n] : elements)
        if (n > best) best = n, m_dtype = dtypeShortName(type);
}

std::vector<std::string> LayoutKeys::keys() const {
    std::vector<std::string> k;
    for (const auto& kv : m_keys) k.push_back(kv.first);
    return k;
}

void LayoutKeys::fail(const std::string& what) const {
    throw WeightError(where() + what);
}

const torch::Tensor& LayoutKeys::peek(const std::string& key) const {
    auto it = m_keys.find(key);
    if (it == m_keys.end()) fail("missing tensor '" + fileKey(key) + "'");
    return it->second;
}

int64_t LayoutKeys::size(const std::string& key, int64_t dim, int64_t lo, int64_t hi) const {
    return sizeOf(peek(key), key, dim, lo, hi);
}

int64_t LayoutKeys::sizeOf(const torch::Tensor& t, const std::string& key, int64_t dim, int64_t lo,
                           int64_t hi) const {
    if (dim >= t.dim())
        fail("'" + fileKey(key) + "' has " + std::to_string(t.dim()) + " dimensions, expected " +
             "at least " + std::to_string(dim + 1));
    const int64_t n = t.size(dim);
    if (n < lo || n > hi)
        fail("'" + fileKey(key) + "' has size " + std::to_string(n) + " in dimension " +
             std::to_string(dim) + ", expected " + std::to_string(lo) + " to " +
             std::to_string(hi));
    return n;
}

const torch::Tensor& LayoutKeys::matrix(const std::string& key) const {
    const torch::Tensor& t = peek(key);
    if (t.dim() != 2)
        fail("tensor '" + fileKey(key) + "' has shape " + shapeText(t.sizes()) +
             ", expected a 2-D weight");
    return t;
}

int64_t LayoutKeys::matrixSize(const std::string& key, int64_t dim) const {
    matrix(key);
    return size(key, dim);
}

int64_t LayoutKeys::quotient(int64_t n, int64_t by, const std::string& what,
                             const std::string& key) const {
    if (by < 1 || n % by != 0)
        fail(what + " " + std::to_string(n) + " (from '" + fileKey(key) +
             "') is not a multiple of " + std::to_string(by));
    return n / by;
}

torch::Tensor LayoutKeys::take(const std::string& key, int64_t dims) {
    torch::Tensor t = peek(key);
    if (dims >= 0 && t.dim() != dims)
        fail("tensor '" + fileKey(key) + "' has shape " + shapeText(t.sizes()) + ", expected " +
             std::to_string(dims) + " dimensions");
    m_keys.erase(key);
    return t;
}

torch::Tensor LayoutKeys::takeIfPresent(const std::string& key) {
    return has(key) ? take(key) : torch::Tensor();
}

int LayoutKeys::countBlocks(const std::string& head, const std::string& what) const {
    std::set<long> found;
    for (auto it = m_keys.lower_bound(head); it != m_keys.end(); ++it) {
        const std::string& k = it->first;
        if (k.compare(0, head.size(), head) != 0) break;
        const auto dot = k.find('.', head.size());
        const std::string number = k.substr(head.size(), dot - head.size());
        if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos ||
            number.size() > 4)
            fail("unexpected tensor '" + fileKey(k) + "' (expected " + fileKey(head) + "N.*)");
        found.insert(std::stol(number));
    }
    if (found.empty()) return 0;
    const long count = *found.rbegin() + 1;
    if (count > kMaxLayers)
        fail(what + " " + std::to_string(*found.rbegin()) + " is past the limit of " +
             std::to_string(kMaxLayers) + " blocks");
    for (long i = 0; i < count; ++i)
        if (!found.count(i))
            fail(what + " " + std::to_string(i) + " is missing: no '" + fileKey(head) +
                 std::to_string(i) + ".*' tensors, though " + what + "s up to " +
                 std::to_string(count - 1) + " are there");
    return static_cast<int>(count);
}

void LayoutKeys::finish() const {
    if (m_keys.empty()) return;
    std::string list;
    int shown = 0;
    for (const auto& kv : m_keys) {
        if (shown++ == 5) break;
        list += (list.empty() ? "'" : ", '") + fileKey(kv.first) + "'";
    }
    if (m_keys.size() > 5) list += " and " + std::to_string(m_keys.size() - 5) + " more";
    fail(std::to_string(m_keys.size()) + " tensor(s) this layout does not know: " + list);
}

void LayoutKeys::movePair(WeightMap& out, const std::string& from, const std::string& to) {
    out[to + ".weight"] = take(from + ".weight");
    out[to + ".bias"] = take(from + ".bias");
}

std::string parameterCountText(int64_t n) {
    char buf[32];
    if (n >= 100000000)  // 0.86 B for SD 1.x's UNet
        std::snprintf(buf, sizeof buf, "%.2f B", n / 1e9);
    else if (n >= 1000000)
        std::snprintf(buf, sizeof buf, "%.2f M", n / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.1f k", n / 1e3);
    return buf;
}

std::string weightsDtypeText(const WeightMap& all) {
    std::map<c10::ScalarType, int64_t> elements;
    for (const auto& kv : all)
        if (kv.second.is_floating_point()) elements[kv.second.scalar_type()] += kv.second.numel();
    int64_t best = -1;
    std::string name = "no floating";
    for (const auto& [type, n] : elements)
        if (n > best) best = n, name = dtypeShortName(type);
    return name + " weights";
}

int64_t parameterCountOf(const WeightMap& weights) {
    int64_t n = 0;
    for (const auto& kv : weights) n += kv.second.numel();
    return n;
}

}  // namespace hs
