#include "base/work_progress.h"

#include <cstdio>
#include <exception>

namespace hs {

namespace {

thread_local WorkProgressScope* t_workScope = nullptr;
thread_local int t_quietRuns = 0;

double secondsSince(std::chrono::steady_clock::time_point a,
                    std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

}  // namespace

WorkProgressScope::WorkProgressScope(WorkProgressFn fn, double blockIntervalSeconds)
    : m_fn(std::move(fn)), m_interval(blockIntervalSeconds), m_outer(t_workScope) {
    t_workScope = this;
}

WorkProgressScope::~WorkProgressScope() {
    t_workScope = const_cast<WorkProgressScope*>(m_outer);
}

bool workProgressWanted() {
    return t_workScope != nullptr;
}

bool runEstimatesWanted() {
    return t_workScope != nullptr && t_quietRuns == 0;
}

void reportWork(const WorkProgress& p) {
    WorkProgressScope* s = t_workScope;
    if (!s || !s->m_fn) return;
    if (t_quietRuns > 0 && p.kind != WorkKind::Block && p.kind != WorkKind::Trial) return;
    if (p.kind == WorkKind::Block) {
        const auto now = std::chrono::steady_clock::now();
        if (s->m_anyBlock && secondsSince(s->m_lastBlock, now) < s->m_interval) return;
        s->m_anyBlock = true;
        s->m_lastBlock = now;
    }
    s->m_fn(p);
}

WorkStage::WorkStage(WorkKind kind, std::string what, int index, int count)
    : m_exceptions(std::uncaught_exceptions()), m_begin(std::chrono::steady_clock::now()) {
    m_p.kind = kind;
    m_p.what = std::move(what);
    m_p.index = index;
    m_p.count = count;
    reportWork(m_p);
}

WorkStage::~WorkStage() {
    if (std::uncaught_exceptions() > m_exceptions) return;  // cancelled or failed: no "done"
    m_p.done = true;
    m_p.elapsedSeconds = secondsSince(m_begin, std::chrono::steady_clock::now());
    try {
        reportWork(m_p);
    } catch (...) {
        // A destructor must not throw; a failing callback loses one line.
    }
}

void noteBlockResident(const std::string& component, const std::string& block, int index,
                       int count) {
    if (!t_workScope) return;
    WorkProgress p;
    p.kind = WorkKind::Block;
    p.component = component;
    p.what = block;
    p.index = index;
    p.count = count;
    reportWork(p);
}

QuietRuns::QuietRuns() {
    ++t_quietRuns;
}

QuietRuns::~QuietRuns() {
    --t_quietRuns;
}

std::string secondsText(double s) {
    char buf[32];
    if (s < 0)
        return "?";
    else if (s < 10)
        std::snprintf(buf, sizeof buf, "%.1f s", s);
    else if (s < 120)
        std::snprintf(buf, sizeof buf, "%.0f s", s);
    else
        std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
    return buf;
}

std::string bytesText(double b) {
    char buf[32];
    if (b < 0)
        return "?";
    else if (b >= 1e9)
        std::snprintf(buf, sizeof buf, "%.1f GB", b / 1e9);
    else
        std::snprintf(buf, sizeof buf, "%.0f MB", b / 1e6);
    return buf;
}

std::string workProgressText(const WorkProgress& p) {
    switch (p.kind) {
        case WorkKind::TextEncoding:
        case WorkKind::VaeDecoding:
            return p.done ? p.what + ": done in " + secondsText(p.elapsedSeconds) : p.what;
        case WorkKind::Block:
            return p.component + ": block " + std::to_string(p.index) + "/" +
                   std::to_string(p.count) + " resident (" + p.what + ")";
        case WorkKind::Trial: {
            std::string s = "trial " + std::to_string(p.index);
            if (p.count > 0) s += " of at most " + std::to_string(p.count);
            if (!p.what.empty()) s += " (" + p.what + ")";
            if (p.done) s += ": done in " + secondsText(p.elapsedSeconds);
            return s;
        }
        case WorkKind::Estimate: {
            std::string s = "estimate: about " + secondsText(p.estimateSeconds);
            if (p.estimateBytes >= 0) s += " and " + bytesText(p.estimateBytes);
            if (p.weightBytes >= 0 && p.activationBytes >= 0)
                s += " (weights " + bytesText(p.weightBytes) + " + activations " +
                     bytesText(p.activationBytes) + ")";
            else if (p.weightBytes >= 0)
                s += " (weights; activations not measured on this device)";
            return s;
        }
        case WorkKind::Finished:
            return "took " + secondsText(p.actualSeconds) + "; estimated about " +
                   secondsText(p.estimateSeconds);
    }
    return p.what;
}

}  // namespace hs
