#include "pipeline/run_estimate.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

#include "base/cancel.h"

namespace hs {

uint64_t heldTensorBytes(const torch::nn::Module& module) {
    std::set<const void*> seen;
    uint64_t total = 0;
    auto add = [&](const torch::Tensor& t) {
        if (!t.defined() || !t.has_storage()) return;
        const auto& storage = t.storage();
        if (!storage.data() || !seen.insert(storage.data()).second) return;
        total += uint64_t(storage.nbytes());
    };
    for (const auto& p : module.parameters(true)) add(p);
    for (const auto& b : module.buffers(true)) add(b);
    return total;
}

namespace {

// A "Key:   123 kB" line of /proc/self/status, in bytes.
uint64_t statusBytes(const char* key) {
    FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    uint64_t out = 0;
    const size_t n = std::strlen(key);
    while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, key, n) == 0 && line[n] == ':') {
            unsigned long long kb = 0;
            if (std::sscanf(line + n + 1, "%llu", &kb) == 1) out = uint64_t(kb) * 1024;
            break;
        }
    std::fclose(f);
    return out;
}

}  // namespace

uint64_t ResidentMemory::current() {
    return statusBytes("VmRSS");
}

uint64_t ResidentMemory::peak() {
    return statusBytes("VmHWM");
}

bool ResidentMemory::resetPeak() {
    // "5" resets the peak resident size to the current one (Linux 4.0+).
    FILE* f = std::fopen("/proc/self/clear_refs", "w");
    if (!f) return false;
    const bool ok = std::fputs("5", f) >= 0;
    return std::fclose(f) == 0 && ok;
}

int64_t estimateCornerSide(int64_t n) {
    return std::min(n, std::max<int64_t>(8, n / 4));
}

double cornerDecodeSeconds(const torch::Tensor& x0,
                           const std::function<void(const torch::Tensor&)>& decode, bool warmUp) {
    try {
        const int64_t h = x0.size(-2), w = x0.size(-1);
        const int64_t ch = estimateCornerSide(h), cw = estimateCornerSide(w);
        const auto corner = x0.narrow(-2, 0, ch).narrow(-1, 0, cw);
        if (warmUp) decode(corner);
        const auto start = std::chrono::steady_clock::now();
        decode(corner);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return seconds * double(h * w) / double(ch * cw);
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception&) {
        return 0;
    }
}

int decodesAfterStep(int steps, int decodeEvery, int done) {
    // Previews follow the steps whose 1-based number is a multiple of decodeEvery.
    const int previews = decodeEvery > 0 ? steps / decodeEvery - done / decodeEvery : 0;
    return 1 + std::max(0, previews);
}

double steadyStepSeconds(const std::vector<double>& stepSeconds) {
    if (stepSeconds.empty()) return 0;
    if (stepSeconds.size() == 1) return stepSeconds.front();
    double sum = 0;
    for (size_t i = 1; i < stepSeconds.size(); ++i) sum += stepSeconds[i];
    return sum / double(stepSeconds.size() - 1);
}

double estimateRunSeconds(double elapsedSeconds, const std::vector<double>& stepSeconds, int steps,
                          double decodeSeconds, int decodes) {
    const int left = std::max(0, steps - int(stepSeconds.size()));
    return elapsedSeconds + left * steadyStepSeconds(stepSeconds) +
           std::max(0, decodes) * std::max(0.0, decodeSeconds);
}

int estimateStepIndex(int steps) {
    return steps >= 2 ? 1 : 0;
}

RunEstimator::RunEstimator()
    : m_active(runEstimatesWanted()), m_begin(std::chrono::steady_clock::now()) {}

void RunEstimator::beforeFirstStep() {
    if (!m_active) return;
    m_peakReset = ResidentMemory::resetPeak();
    m_rssBefore = ResidentMemory::current();
}

void RunEstimator::stepTimed(double seconds) {
    if (m_active) m_stepSeconds.push_back(seconds);
}

void RunEstimator::estimate(int steps, double decodeSeconds, int decodes, uint64_t weightBytes,
                            bool onCpu) {
    if (!m_active) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_begin).count();
    m_p.kind = WorkKind::Estimate;
    m_p.estimateSeconds = estimateRunSeconds(elapsed, m_stepSeconds, steps, decodeSeconds, decodes);
    m_p.weightBytes = double(weightBytes);
    m_p.activationBytes = -1;
    const uint64_t peak = ResidentMemory::peak();
    if (onCpu && m_rssBefore > 0 && peak > 0)
        // Without a reset the peak may be older than these steps: then only what stays resident
        // after them is known, a lower bound.
        m_p.activationBytes = std::max(
            0.0, double(m_peakReset ? peak : ResidentMemory::current()) - double(m_rssBefore));
    m_p.estimateBytes = m_p.weightBytes + std::max(0.0, m_p.activationBytes);
    m_made = true;
    reportWork(m_p);
}

std::optional<RunEstimate> RunEstimator::made() const {
    if (!m_made) return std::nullopt;
    return RunEstimate{m_p.estimateSeconds, m_p.estimateBytes, m_p.weightBytes,
                       m_p.activationBytes};
}

void RunEstimator::finish(double actualSeconds) {
    if (!m_active || !m_made) return;
    WorkProgress p = m_p;
    p.kind = WorkKind::Finished;
    p.actualSeconds = actualSeconds;
    reportWork(p);
}

}  // namespace hs
