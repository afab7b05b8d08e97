#pragma once
// Refuses, before a single weight is read, a pipeline whose weights would not fit in memory in
// the formats the plan gives them: loading it anyway ends with the kernel killing the process
// (no message, work lost) or with hours of swapping.
#include <c10/core/Device.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/common/weight_stream.h"
#include "models/common/weights.h"
#include "numerics/precision_policy.h"
#include "records/message.h"
#include "runtime/gpu_memory.h"

namespace hs {

struct ComponentWeights {
    std::string name;  // plan prefix: "transformer", "vae", ...
    const WeightMap* weights = nullptr;
    // The family's Family::blockStems when it can stream; empty: it loads whole.
    std::vector<std::string> blockStems;
};

// Bytes the weights take once loaded: per tensor, its elements times the size of the dtype the
// policy gives "<component>.<tensor name>" (emulated formats are held in fp32: 4 bytes).
uint64_t weightBytes(const std::vector<ComponentWeights>& parts, const PrecisionPolicy& policy);

// Memory a load may use, and where that figure comes from.
struct MemoryBudget {
    enum class Source {
        Environment,  // $HALFSCOPE_MEMORY_LIMIT_MB (decimal megabytes): a cap the user chooses
        Available,    // the CPU: MemAvailable from /proc/meminfo
        GpuCap,       // a CUDA device under --gpu-memory or the studio's cap (runtime/gpu_memory.h)
    };
    uint64_t bytes = 0;
    Source source = Source::Available;
};
// $HALFSCOPE_MEMORY_LIMIT_MB when set; else MemAvailable for the CPU, the cap set on a CUDA
// device (so a load on a large card under a 16 GB cap streams where a 16 GB card must); nullopt
// when unknown (other systems; a CUDA device without a cap: a load that does not fit ends in the
// out-of-memory message, runtime/gpu_memory.h).
std::optional<MemoryBudget> memoryBudget(const c10::Device& device);
// The same with the device's GPU cap given rather than read (memoryBudget passes
// gpuMemoryCapOf(index) for a CUDA device, nullopt for the CPU).
std::optional<MemoryBudget> memoryBudget(const c10::Device& device,
                                         const std::optional<GpuMemoryCap>& cap);

// Throws PipelineError naming the need per component and the budget when the weights plus a
// quarter for activations exceed the budget.
void checkWeightsFit(const std::string& dir, const std::vector<ComponentWeights>& parts,
                     const PrecisionPolicy& policy);

// Bytes of the tensors of `weights` whose keys start with `prefix` ("" for all), stored as they
// are (`stored`) or in the formats `policy` gives them under `component`.
uint64_t tensorBytes(const WeightMap& weights, const std::string& component,
                     const PrecisionPolicy& policy, const std::string& prefix = "");
uint64_t storedBytes(const WeightMap& weights, const std::string& prefix = "");

struct LoadModeChoice {
    std::vector<LoadMode> modes;  // per part, in the order given
    // One line for the log and the run record: "all loaded whole: 3.4 GB in this plan; budget
    // 24 GB", "transformer streamed block by block: 12.1 GB stored, 0.67 GB per block in fp32;
    // budget 24 GB".
    std::string description;
    MessageText descriptionMessage;  // the same as a message (records/message.h)
};

// The load mode of each part. Full for all when the weights plus a quarter for activations fit
// the budget (or the budget is unknown), as checkWeightsFit accepts. Else the largest parts that
// can stream (blockStems) switch to Streamed, one at a time, until the need fits, a streamed part
// needing its non-block weights plus its largest block in the plan's formats (the mapped file's
// pages are dropped after each conversion). Throws PipelineError naming each part's need whole
// and streamed, the budget, and that even streaming does not fit.
LoadModeChoice chooseLoadModes(const std::string& dir, const std::vector<ComponentWeights>& parts,
                               const PrecisionPolicy& policy);
// The same against a given budget (nullopt: unknown, everything whole).
LoadModeChoice chooseLoadModes(const std::string& dir, const std::vector<ComponentWeights>& parts,
                               const PrecisionPolicy& policy,
                               const std::optional<MemoryBudget>& budget);

}  // namespace hs
