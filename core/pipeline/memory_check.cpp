#include "pipeline/memory_check.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "io/safetensors.h"
#include "numerics/format.h"
#include "pipeline/pipeline_error.h"

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

uint64_t weightBytes(const std::vector<ComponentWeights>& parts, const PrecisionPolicy& policy) {
    uint64_t total = 0;
    for (const auto& part : parts)
        for (const auto& [name, tensor] : *part.weights) {
            const Format f = policy.plan().resolve(part.name + "." + name, Format::FP32);
            const bool twoBytes = f != Format::FP32 && policy.executionOf(f) == Execution::Native;
            total += uint64_t(tensor.numel()) * (twoBytes ? 2 : 4);
        }
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
        << (!device.is_cpu() ? ". Run the large components in bf16 or fp16, or free memory."
            : policy.bf16Execution() == Execution::Native
                ? ". Run the large components in bf16 (fp16 is emulated in fp32 tensors on the "
                  "CPU, so it saves nothing), or free memory."
                : ". On the CPU fp16 and bf16 are emulated in fp32 tensors, so neither saves "
                  "memory here; native bf16 holds 2 bytes a weight (--cpu-bf16 native, fast only "
                  "on a CPU with bf16 instructions), or free memory.");
    throw PipelineError(msg.str());
}

}  // namespace hs
