#include "pipeline/memory_check.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>

#include "base/pipeline_error.h"
#include "io/safetensors.h"
#include "numerics/format.h"

namespace hs {
namespace {

// Decimal units, as the limit variable and file managers use them.
std::string human(uint64_t bytes) {
    std::ostringstream o;
    o.precision(3);
    if (bytes >= uint64_t(1e9))
        o << double(bytes) / 1e9 << " GB";
    else
        o << double(bytes) / 1e6 << " MB";
    return o.str();
}

}  // namespace

uint64_t tensorBytes(const WeightMap& weights, const std::string& component,
                     const PrecisionPolicy& policy, const std::string& prefix) {
    uint64_t total = 0;
    for (auto it = weights.lower_bound(prefix); it != weights.end(); ++it) {
        if (it->first.compare(0, prefix.size(), prefix) != 0) break;
        const Format f = policy.plan().resolve(component + "." + it->first, Format::FP32);
        const bool twoBytes = !storesFp32(f) && policy.executionOf(f) == Execution::Native;
        total += uint64_t(it->second.numel()) * (twoBytes ? 2 : 4);
    }
    return total;
}

uint64_t storedBytes(const WeightMap& weights, const std::string& prefix) {
    uint64_t total = 0;
    for (auto it = weights.lower_bound(prefix); it != weights.end(); ++it) {
        if (it->first.compare(0, prefix.size(), prefix) != 0) break;
        total += uint64_t(it->second.numel()) * it->second.element_size();
    }
    return total;
}

uint64_t weightBytes(const std::vector<ComponentWeights>& parts, const PrecisionPolicy& policy) {
    uint64_t total = 0;
    for (const auto& part : parts) total += tensorBytes(*part.weights, part.name, policy);
    return total;
}

std::optional<uint64_t> memoryBudget(const c10::Device& device) {
    if (const char* env = std::getenv("HALFSCOPE_MEMORY_LIMIT_MB")) {
        char* end = nullptr;
        const double mb = std::strtod(env, &end);
        if (end != env && mb > 0) return uint64_t(mb * 1e6);
    }
    if (!device.is_cpu()) return std::nullopt;
    std::ifstream f("/proc/meminfo");
    for (std::string key; f >> key;) {
        uint64_t kb = 0;
        f >> kb;
        if (key == "MemAvailable:") return kb * 1024;
        f.ignore(256, '\n');
    }
    return std::nullopt;
}

namespace {

// What would make the weights smaller on this device.
const char* adviceFor(const PrecisionPolicy& policy) {
    if (!policy.device().is_cpu())
        return "Run the large components in bf16 or fp16, or free memory.";
    if (policy.bf16Execution() == Execution::Native)
        return "Run the large components in bf16 (fp16 is emulated in fp32 tensors on the CPU, so "
               "it saves nothing), or free memory.";
    return "On the CPU fp16 and bf16 are emulated in fp32 tensors, so neither saves memory here; "
           "native bf16 holds 2 bytes a weight (--cpu-bf16 native, fast only on a CPU with bf16 "
           "instructions), or free memory.";
}

}  // namespace

void checkWeightsFit(const std::string& dir, const std::vector<ComponentWeights>& parts,
                     const PrecisionPolicy& policy) {
    const auto& device = policy.device();
    const auto budget = memoryBudget(device);
    if (!budget) return;
    const uint64_t need = weightBytes(parts, policy);
    if (need + need / 4 <= *budget) return;
    std::ostringstream msg;
    msg << dir << ": the weights need " << human(need) << " in this plan (";
    for (size_t i = 0; i < parts.size(); ++i)
        msg << (i ? ", " : "") << parts[i].name << " " << human(weightBytes({parts[i]}, policy));
    msg << "), plus room for activations, but only " << human(*budget)
        << (std::getenv("HALFSCOPE_MEMORY_LIMIT_MB") ? " is allowed (HALFSCOPE_MEMORY_LIMIT_MB)"
                                                     : " of memory is available")
        << ". " << adviceFor(policy);
    throw PipelineError(msg.str());
}

namespace {

// What one part needs whole and streamed (its non-block weights plus its largest block).
struct PartNeed {
    uint64_t whole = 0, streamed = 0, stored = 0, largestBlock = 0;
    bool streamable = false;
};

PartNeed needOf(const ComponentWeights& part, const PrecisionPolicy& policy) {
    PartNeed n;
    n.whole = tensorBytes(*part.weights, part.name, policy);
    n.stored = storedBytes(*part.weights);
    uint64_t blocks = 0;
    for (const auto& prefix : blockPrefixesOf(*part.weights, part.blockStems)) {
        const uint64_t b = tensorBytes(*part.weights, part.name, policy, prefix);
        blocks += b;
        n.largestBlock = std::max(n.largestBlock, b);
        n.streamable = true;
    }
    n.streamed = n.whole - blocks + n.largestBlock;
    return n;
}

// How a streamed part's blocks are held, as a message: "... per block in fp32" (tf32 too),
// "in bf16" (native), "in fp32 (emulated fp16)".
Message streamedMessage(const std::string& component, const PartNeed& need,
                        const PrecisionPolicy& policy) {
    const Format f = policy.plan().resolve(component, Format::FP32);
    const bool emulated = !storesFp32(f) && policy.executionOf(f) != Execution::Native;
    return {emulated ? "memory.streamed_emulated" : "memory.streamed",
            {component, human(need.stored), human(need.largestBlock),
             storesFp32(f) ? "fp32" : formatName(f)}};
}

bool fits(uint64_t need, uint64_t budget) {
    return need + need / 4 <= budget;
}

bool budgetFromEnvironment() {
    return std::getenv("HALFSCOPE_MEMORY_LIMIT_MB") != nullptr;
}

std::string budgetText(uint64_t budget) {
    return human(budget) +
           (budgetFromEnvironment() ? " (HALFSCOPE_MEMORY_LIMIT_MB)" : " available");
}

}  // namespace

LoadModeChoice chooseLoadModes(const std::string& dir, const std::vector<ComponentWeights>& parts,
                               const PrecisionPolicy& policy) {
    LoadModeChoice r;
    r.modes.assign(parts.size(), LoadMode::Full);
    std::vector<PartNeed> needs;
    uint64_t total = 0;
    for (const auto& part : parts) {
        needs.push_back(needOf(part, policy));
        total += needs.back().whole;
    }
    const auto budget = memoryBudget(policy.device());
    if (!budget || fits(total, *budget)) {
        const std::string id = !budget                   ? "memory.whole.unknown"
                               : budgetFromEnvironment() ? "memory.whole.env"
                                                         : "memory.whole.available";
        r.descriptionMessage = {{id, {human(total)}}};
        if (budget) r.descriptionMessage.front().args.push_back(human(*budget));
        r.description = englishText(r.descriptionMessage);
        return r;
    }
    // Stream the largest streamable parts first: each one saves the most.
    std::vector<size_t> order(parts.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return needs[a].whole > needs[b].whole; });
    for (size_t i : order) {
        if (!needs[i].streamable) continue;
        r.modes[i] = LoadMode::Streamed;
        total -= needs[i].whole - needs[i].streamed;
        if (!fits(total, *budget)) continue;
        MessageText& d = r.descriptionMessage;
        std::string whole;
        uint64_t wholeBytes = 0;
        for (size_t j = 0; j < parts.size(); ++j) {
            if (r.modes[j] == LoadMode::Full) {
                whole += (whole.empty() ? "" : ", ") + parts[j].name;
                wholeBytes += needs[j].whole;
                continue;
            }
            if (!d.empty()) d.push_back({"memory.separator", {}});
            d.push_back(streamedMessage(parts[j].name, needs[j], policy));
        }
        if (!whole.empty()) d.push_back({"memory.rest_whole", {whole, human(wholeBytes)}});
        d.push_back({budgetFromEnvironment() ? "memory.budget.env" : "memory.budget.available",
                     {human(*budget)}});
        r.description = englishText(d);
        return r;
    }
    std::ostringstream msg;
    msg << dir << ": the weights do not fit in memory even streamed block by block: ";
    for (size_t i = 0; i < parts.size(); ++i) {
        msg << (i ? ", " : "") << parts[i].name << " " << human(needs[i].whole) << " whole";
        if (needs[i].streamable)
            msg << " or " << human(needs[i].streamed) << " streamed ("
                << human(needs[i].largestBlock) << " per block)";
    }
    msg << ", plus a quarter for activations, but the budget is " << budgetText(*budget) << ". "
        << adviceFor(policy);
    throw PipelineError(msg.str());
}

}  // namespace hs
