#pragma once
// Probe points: model code declares each point once, with its name and granularity,
//   ProbePoint m_ff{path + ".ff", ProbeLevel::Layer};
// and passes intermediate results through it:
//   x = probes.point(m_ff, x);
// A point (a) stores the tensor as its format would (PrecisionPolicy::store: rounded where the
// format is emulated), and (b) records statistics when its granularity is within the chosen
// level (ProbeRecorder). The recorder remembers the first recorded point, in call order, that
// held a non-finite value.
#include <torch/types.h>

#include <optional>
#include <string>
#include <vector>

#include "numerics/precision_policy.h"
#include "numerics/tensor_stats.h"
#include "records/probe_types.h"

namespace hs {

struct ProbePoint {
    std::string name;  // the module path the point belongs to, e.g. "vae.decoder.conv_in"
    ProbeLevel level = ProbeLevel::Op;
    // The point holds a block's residual stream (the running sum a block adds its sub-layers'
    // outputs to, and the block's output): where the remedies clamp and fp32-residual act.
    bool residual = false;
    ProbePoint() = default;
    ProbePoint(std::string n, ProbeLevel l, bool residualStream = false)
        : name(std::move(n)), level(l), residual(residualStream) {}
};
// A point on a residual stream: ProbePoint(name, level, kResidualStream).
constexpr bool kResidualStream = true;

// Statistics of the points a run passes through, one reduction each, copied off the device in
// one transfer per step.
class ProbeRecorder {
public:
    explicit ProbeRecorder(ProbeLevel level);

    ProbeLevel level() const { return m_level; }
    bool records(ProbeLevel granularity) const {
        return m_level != ProbeLevel::Off && granularity <= m_level;
    }
    void record(const ProbePoint& p, Format format, Execution execution, const torch::Tensor& y);

    void setStep(int step);
    int step() const { return m_step; }
    // Statistics gathered so far (pending device reductions are copied in one transfer first).
    const std::vector<ProbeRecord>& records();
    // Moves the records out, leaving the recorder empty but keeping the first non-finite point.
    std::vector<ProbeRecord> takeRecords();
    const std::optional<FirstNonFinite>& firstNonFinite();

    // Reduces the points of CPU tensors as CUDA tensors are reduced (statsVector on the
    // device, gathered and copied in one transfer when the step ends, the first non-finite
    // point found after that copy), so that the CPU's tests execute the GPU's path. Off: the CPU
    // kernel, which is faster there. For the recorders made while it is set.
    static void setDevicePathOnCpu(bool on);

private:
    void flush();

    ProbeLevel m_level;
    bool m_devicePath;  // reduce every point as a device tensor
    int m_step = -1;
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

// What a forward receives: the precision policy it runs under and the recorder of its points.
class ProbeContext {
public:
    ProbeContext(PrecisionPolicy policy, ProbeLevel level)
        : m_policy(std::move(policy)), m_recorder(level) {}
    ProbeContext(PrecisionPlan plan, torch::Device device, ProbeLevel level)
        : ProbeContext(PrecisionPolicy(std::move(plan), device), level) {}

    torch::Tensor point(const ProbePoint& p, const torch::Tensor& x);
    // As point(), for a tensor whose format is not its path's: a residual sum that type
    // promotion widened past its module's format (format of a + b, see promoted()).
    torch::Tensor pointAs(const ProbePoint& p, Format format, const torch::Tensor& x);
    // A tensor entering module `path` whose weights are `like` (PrecisionPolicy::enter).
    torch::Tensor enter(const std::string& path, const torch::Tensor& x,
                        const torch::Tensor& like) const {
        return m_policy.enter(path, x, like);
    }

    const PrecisionPolicy& policy() const { return m_policy; }
    ProbeRecorder& recorder() { return m_recorder; }
    const torch::Device& device() const { return m_policy.device(); }
    ProbeLevel level() const { return m_recorder.level(); }
    void setStep(int step) { m_recorder.setStep(step); }
    const std::vector<ProbeRecord>& records() { return m_recorder.records(); }
    std::vector<ProbeRecord> takeRecords() { return m_recorder.takeRecords(); }
    const std::optional<FirstNonFinite>& firstNonFinite() { return m_recorder.firstNonFinite(); }

private:
    PrecisionPolicy m_policy;
    ProbeRecorder m_recorder;
};

}  // namespace hs
