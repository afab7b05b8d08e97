#include "diagnosis/blocks.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "records/run_types.h"

namespace hs {

namespace {

std::vector<std::string> splitPath(const std::string& path) {
    std::vector<std::string> segs;
    size_t start = 0;
    while (true) {
        size_t dot = path.find('.', start);
        segs.push_back(
            path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return segs;
}

std::string joinPath(const std::vector<std::string>& segs, size_t n) {
    std::string s;
    for (size_t i = 0; i < n && i < segs.size(); ++i) {
        if (i) s += '.';
        s += segs[i];
    }
    return s;
}

bool isNumber(const std::string& s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// Sub-models that hold blocks rather than being one: descended into.
bool isContainer(const std::string& s) {
    return s == "decoder" || s == "encoder" || s == "text_model";
}

// Numbered module lists (diffusers / transformers names; "block" is T5's).
bool isList(const std::string& s) {
    return s == "transformer_blocks" || s == "single_transformer_blocks" || s == "up_blocks" ||
           s == "down_blocks" || s == "layers" || s == "block" || s == "blocks";
}

}  // namespace

std::string componentOf(const std::string& path) {
    return path.substr(0, path.find('.'));
}

std::string blockOf(const std::string& path) {
    const auto segs = splitPath(path);
    size_t i = 1;  // segment 0 is the component
    while (i < segs.size() && isContainer(segs[i])) ++i;
    if (i >= segs.size()) return path;
    if (isList(segs[i]) && i + 1 < segs.size() && isNumber(segs[i + 1]))
        return joinPath(segs, i + 2);
    return joinPath(segs, i + 1);
}

bool isRepeatedBlock(const std::string& block) {
    const auto segs = splitPath(block);
    if (segs.size() < 2) return false;
    if (segs.back() == "mid_block") return true;
    return isNumber(segs.back()) && isList(segs[segs.size() - 2]);
}

std::vector<std::string> blocksInCallOrder(const std::vector<ProbeRecord>& probes,
                                           const std::string& component, bool repeatedOnly) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& p : probes) {
        if (!component.empty() && componentOf(p.name) != component) continue;
        std::string b = blockOf(p.name);
        if (repeatedOnly && !isRepeatedBlock(b)) continue;
        if (seen.insert(b).second) out.push_back(std::move(b));
    }
    // A block that is an ancestor of another (a probe named "vae.decoder" itself) would catch
    // that one too in a plan rule: it is no candidate.
    std::vector<std::string> kept;
    for (const auto& b : out) {
        const bool ancestor = std::any_of(out.begin(), out.end(), [&](const std::string& c) {
            return c.size() > b.size() && c.compare(0, b.size(), b) == 0 && c[b.size()] == '.';
        });
        if (!ancestor) kept.push_back(b);
    }
    return kept;
}

std::vector<std::string> blocksInCallOrder(const RunRecord& run, const std::string& component,
                                           bool repeatedOnly) {
    return blocksInCallOrder(run.probes, component, repeatedOnly);
}

std::string describeBlocks(const std::vector<std::string>& blocks) {
    if (blocks.empty()) return "none";
    bool sameComponent = true;
    for (const auto& b : blocks) sameComponent &= componentOf(b) == componentOf(blocks.front());
    // Group "<list>.<N>" blocks by list, in first-appearance order.
    std::vector<std::string> order;
    std::map<std::string, std::vector<long>> numbers;
    for (const auto& b : blocks) {
        std::string shown = b;
        if (sameComponent && b.find('.') != std::string::npos) shown = b.substr(b.find('.') + 1);
        const auto dot = shown.rfind('.');
        std::string key = shown;
        long n = -1;
        if (isRepeatedBlock(b) && dot != std::string::npos && isNumber(shown.substr(dot + 1))) {
            key = shown.substr(0, dot);
            n = std::stol(shown.substr(dot + 1));
        }
        if (!numbers.count(key)) order.push_back(key);
        if (n >= 0)
            numbers[key].push_back(n);
        else
            numbers[key];
    }
    std::string out;
    for (const auto& key : order) {
        if (!out.empty()) out += ", ";
        out += key;
        auto nums = numbers[key];
        if (nums.empty()) continue;
        std::sort(nums.begin(), nums.end());
        nums.erase(std::unique(nums.begin(), nums.end()), nums.end());
        out += ' ';
        for (size_t i = 0; i < nums.size();) {
            size_t j = i;
            while (j + 1 < nums.size() && nums[j + 1] == nums[j] + 1) ++j;
            if (i) out += ',';
            out += std::to_string(nums[i]);
            if (j > i) out += '-' + std::to_string(nums[j]);
            i = j + 1;
        }
    }
    return out;
}

}  // namespace hs
