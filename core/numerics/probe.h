#pragma once
// Probe points: model code passes intermediate results through named points
//   x = probes.point("transformer.transformer_blocks.3.ff", ProbeLevel::Layer, x);
// A point (a) applies the storage rounding of its format when that format is emulated on the
// device (fp16 on CPU: every op output rounded to fp16, as a GPU stores it), and (b) records
// statistics when the point's granularity is within the chosen level. The context remembers the
// first recorded point, in call order, that held a non-finite value.
#include <torch/types.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "numerics/format.h"
#include "numerics/precision_plan.h"
#include "records/probe_types.h"
#include "numerics/tensor_stats.h"

namespace hs {

class ProbeContext {
public:
    ProbeContext(PrecisionPlan plan, torch::Device device, ProbeLevel level);

    torch::Tensor point(const std::string& name, ProbeLevel granularity, const torch::Tensor& x);

    // Format that the plan gives `path` (fp32 when no rule matches).
    Format formatFor(const std::string& path) const;
    Execution executionFor(const std::string& path) const;
    // dtype that weights and activations of `path` use on this device.
    torch::ScalarType computeTypeFor(const std::string& path) const;

    const PrecisionPlan& plan() const { return m_plan; }
    const torch::Device& device() const { return m_device; }
    ProbeLevel level() const { return m_level; }
    void setLevel(ProbeLevel l) { m_level = l; }
    void setStep(int step);
    int step() const { return m_step; }

    // Statistics gathered so far (pending device reductions are copied in one transfer first).
    const std::vector<ProbeRecord>& records();
    // Moves the records out, leaving the context empty but keeping the first non-finite point.
    std::vector<ProbeRecord> takeRecords();
    const std::optional<FirstNonFinite>& firstNonFinite();

private:
    struct PointInfo {
        Format format;
        Execution execution;
    };
    const PointInfo& info(const std::string& name);
    void flush();

    PrecisionPlan m_plan;
    torch::Device m_device;
    ProbeLevel m_level;
    int m_step = -1;
    std::unordered_map<std::string, PointInfo> m_info;
    std::vector<ProbeRecord> m_records;
    std::vector<std::pair<size_t, torch::Tensor>> m_pending;  // record index, packed stats
    std::optional<ProbeRecord> m_lastTaken;  // last record moved out by takeRecords()
    std::optional<FirstNonFinite> m_first;
    size_t m_scanned = 0;  // records already checked for the first non-finite point
    size_t m_taken = 0;    // records moved out so far

    // The last CPU tensor reduced and its statistics: a block's output is often the very tensor
    // its last layer returned (VAE up-blocks, mid-blocks), and it is the largest one around.
    // It holds the tensor, so that no new tensor can take its address while it is compared.
    struct LastStats {
        torch::Tensor tensor;
        int64_t version = -1;
        TensorStats stats;
    };
    LastStats m_last;
    const TensorStats& cpuStatsOf(const torch::Tensor& y);
};

}  // namespace hs
