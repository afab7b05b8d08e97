#include "numerics/probe.h"

#include <torch/torch.h>

#include <atomic>

#include "base/cancel.h"

namespace hs {

namespace {
std::atomic<bool> g_devicePathOnCpu{false};
}  // namespace

ProbeRecorder::ProbeRecorder(ProbeLevel level)
    : m_level(level), m_devicePath(g_devicePathOnCpu.load()) {}

void ProbeRecorder::setDevicePathOnCpu(bool on) {
    g_devicePathOnCpu = on;
}

// Every forward passes each block (and most layers) through a point: the cancellation check
// here stops any family within one block (base/cancel.h).
torch::Tensor ProbeContext::point(const ProbePoint& p, const torch::Tensor& x) {
    throwIfCancelled();
    const bool record = m_recorder.records(p.level);
    if (!record && m_policy.plan().empty()) return x;
    const auto& info = m_policy.info(p.name);
    torch::Tensor y = m_policy.store(p.name, x, p.residual);
    if (record && y.is_floating_point()) {
        if (p.residual && info.fp32Residual)
            m_recorder.record(p, Format::FP32, Execution::Emulated, y);
        else
            m_recorder.record(p, info.format, info.execution, y);
    }
    return y;
}

torch::Tensor ProbeContext::pointAs(const ProbePoint& p, Format format, const torch::Tensor& x) {
    throwIfCancelled();
    const bool record = m_recorder.records(p.level);
    if (p.residual && m_policy.info(p.name).fp32Residual) format = Format::FP32;
    const Execution execution = m_policy.executionOf(format);
    torch::Tensor y = m_policy.storeAs(p.name, format, x, p.residual);
    if (record && y.is_floating_point()) m_recorder.record(p, format, execution, y);
    return y;
}

void ProbeRecorder::record(const ProbePoint& p, Format format, Execution execution,
                           const torch::Tensor& y) {
    ProbeRecord r;
    r.name = p.name;
    r.granularity = p.level;
    r.step = m_step;
    r.format = format;
    r.execution = execution;
    if (y.device().is_cpu() && !m_devicePath) {
        r.stats = cpuStatsOf(y);
    } else {
        m_pending.emplace_back(m_records.size(), statsVector(y));
    }
    m_records.push_back(std::move(r));
}

void ProbeRecorder::setStep(int step) {
    flush();
    m_step = step;
}

const TensorStats& ProbeRecorder::cpuStatsOf(const torch::Tensor& y) {
    // Same memory, same layout, not written to since (the version counter): same statistics.
    // Inference-mode tensors have no version counter, so they are always reduced.
    if (y.is_inference()) {
        m_last = LastStats();
        m_last.stats = computeStats(y);
        return m_last.stats;
    }
    const auto& t = m_last.tensor;
    if (t.defined() && t.data_ptr() == y.data_ptr() && m_last.version == int64_t(y._version()) &&
        t.scalar_type() == y.scalar_type() && t.sizes() == y.sizes() && t.strides() == y.strides())
        return m_last.stats;
    m_last.tensor = y;
    m_last.version = int64_t(y._version());
    m_last.stats = computeStats(y);
    return m_last.stats;
}

void ProbeRecorder::flush() {
    if (!m_pending.empty()) {
        std::vector<torch::Tensor> vs;
        vs.reserve(m_pending.size());
        for (auto& p : m_pending) vs.push_back(p.second);
        auto host = torch::stack(vs).cpu().contiguous();  // the one transfer
        const double* d = host.data_ptr<double>();
        for (size_t i = 0; i < m_pending.size(); ++i)
            m_records[m_pending[i].first].stats = unpackStats(d + i * kStatsWidth);
        m_pending.clear();
    }
    if (m_first) {
        m_scanned = m_records.size();
        return;
    }
    for (; m_scanned < m_records.size(); ++m_scanned) {
        if (!m_records[m_scanned].stats.allFinite()) {
            FirstNonFinite f;
            f.at = m_records[m_scanned];
            if (m_scanned > 0)
                f.input = m_records[m_scanned - 1];
            else if (m_lastTaken)
                f.input = m_lastTaken;
            f.index = m_taken + m_scanned;
            m_first = std::move(f);
            m_scanned = m_records.size();
            break;
        }
    }
}

const std::vector<ProbeRecord>& ProbeRecorder::records() {
    flush();
    return m_records;
}

std::vector<ProbeRecord> ProbeRecorder::takeRecords() {
    flush();
    std::vector<ProbeRecord> out;
    out.swap(m_records);
    if (!out.empty()) m_lastTaken = out.back();
    m_taken += out.size();
    m_scanned = 0;
    return out;
}

const std::optional<FirstNonFinite>& ProbeRecorder::firstNonFinite() {
    flush();
    return m_first;
}

}  // namespace hs
