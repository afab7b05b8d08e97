#pragma once
// Refuses, before a single weight is read, a pipeline whose weights would not fit in memory in
// the formats the plan gives them: loading it anyway ends with the kernel killing the process
// (no message, work lost) or with hours of swapping.
#include <c10/core/Device.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/common/weights.h"
#include "numerics/precision_policy.h"

namespace hs {

struct ComponentWeights {
    std::string name;  // plan prefix: "transformer", "vae", ...
    const WeightMap* weights = nullptr;
};

// Bytes the weights take once loaded: per tensor, its elements times the size of the dtype the
// policy gives "<component>.<tensor name>" (emulated formats are held in fp32: 4 bytes).
uint64_t weightBytes(const std::vector<ComponentWeights>& parts, const PrecisionPolicy& policy);

// Memory a load may use: $HALFSCOPE_MEMORY_LIMIT_MB (decimal megabytes) when set, a cap the
// user chooses; else MemAvailable from /proc/meminfo for the CPU; nullopt when unknown (other
// systems; CUDA devices, whose free memory LibTorch 1.13's C++ API does not report).
std::optional<uint64_t> memoryBudget(const c10::Device& device);

// Throws PipelineError naming the need per component and the budget when the weights plus a
// quarter for activations exceed the budget.
void checkWeightsFit(const std::string& dir, const std::vector<ComponentWeights>& parts,
                     const PrecisionPolicy& policy);

}  // namespace hs
