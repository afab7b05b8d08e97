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

std::optional<MemoryBudget> memoryBudget(const c10::Device& device,
                                         const std::optional<GpuMemoryCap>& cap) {
    if (const char* env = std::getenv("HALFSCOPE_MEMORY_LIMIT_MB")) {
        char* end = nullptr;
        const double mb = std::strtod(env, &end);
        // Bounded: a budget of more than an exabyte is no budget (and would overflow the bytes).
        if (end != env && mb > 0 && mb < 1e12)
            return MemoryBudget{uint64_t(mb * 1e6), MemoryBudget::Source::Environment};
    }
    if (device.is_cuda()) {
        if (!cap || !(cap->capGiB > 0)) return std::nullopt;
        return MemoryBudget{uint64_t(cap->capGiB * double(uint64_t(1) << 30)),
                            MemoryBudget::Source::GpuCap};
    }
    if (!device.is_cpu()) return std::nullopt;
    std::ifstream f("/proc/meminfo");
    for (std::string key; f >> key;) {
        uint64_t kb = 0;
        f >> kb;
        if (key == "MemAvailable:") return MemoryBudget{kb * 1024, MemoryBudget::Source::Available};
        f.ignore(256, '\n');
    }
    return std::nullopt;
}

std::optional<MemoryBudget> memoryBudget(const c10::Device& device) {
    return memoryBudget(device, device.is_cuda()
                                    ? gpuMemoryCapOf(device.has_index() ? device.index() : 0)
                                    : std::nullopt);
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
    if (need + need / 4 <= budget->bytes) return;
    std::ostringstream msg;
    msg << dir << ": the weights need " << human(need) << " in this plan (";
    for (size_t i = 0; i < parts.size(); ++i)
        msg << (i ? ", " : "") << parts[i].name << " " << human(weightBytes({parts[i]}, policy));
    msg << "), plus room for activations, but only " << human(budget->bytes)
        << (budget->source == MemoryBudget::Source::Environment
                ? " is allowed (HALFSCOPE_MEMORY_LIMIT_MB)"
            : budget->source == MemoryBudget::Source::GpuCap ? " is allowed (GPU memory cap)"
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

// "24 GB available", "16 GB (GPU memory cap)", "8 GB (HALFSCOPE_MEMORY_LIMIT_MB)".
std::string budgetText(const MemoryBudget& b) {
    switch (b.source) {
        case MemoryBudget::Source::Environment:
            return human(b.bytes) + " (HALFSCOPE_MEMORY_LIMIT_MB)";
        case MemoryBudget::Source::GpuCap:
            return human(b.bytes) + " (GPU memory cap)";
        case MemoryBudget::Source::Available:
            break;
    }
    return human(b.bytes) + " available";
}

// The message id `stem` + ".env", ".available" or ".gpu_cap", after where the budget comes from.
std::string bySource(const std::string& stem, const MemoryBudget& b) {
    switch (b.source) {
        case MemoryBudget::Source::Environment:
            return stem + ".env";
        case MemoryBudget::Source::GpuCap:
            return stem + ".gpu_cap";
        case MemoryBudget::Source::Available:
            break;
    }
    return stem + ".available";
}

}  // namespace

LoadModeChoice chooseLoadModes(const std::string& dir, const std::vector<ComponentWeights>& parts,
                               const PrecisionPolicy& policy) {
    return chooseLoadModes(dir, parts, policy, memoryBudget(policy.device()));
}

LoadModeChoice chooseLoadModes(const std::string& dir, const std::vector<ComponentWeights>& parts,
                               const PrecisionPolicy& policy,
                               const std::optional<MemoryBudget>& budget) {
    LoadModeChoice r;
    r.modes.assign(parts.size(), LoadMode::Full);
    std::vector<PartNeed> needs;
    uint64_t total = 0;
    for (const auto& part : parts) {
        needs.push_back(needOf(part, policy));
        total += needs.back().whole;
    }
    if (!budget || fits(total, budget->bytes)) {
        r.descriptionMessage = {
            {budget ? bySource("memory.whole", *budget) : "memory.whole.unknown", {human(total)}}};
        if (budget) r.descriptionMessage.front().args.push_back(human(budget->bytes));
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
        if (!fits(total, budget->bytes)) continue;
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
        d.push_back({bySource("memory.budget", *budget), {human(budget->bytes)}});
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
