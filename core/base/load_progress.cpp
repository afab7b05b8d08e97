#include "base/load_progress.h"

#include <cstdio>
#include <fstream>
#include <tuple>

namespace hs {

namespace {

thread_local const LoadProgressScope* t_scope = nullptr;
thread_local ComponentLoadReport* t_report = nullptr;

double secondsBetween(std::chrono::steady_clock::time_point a,
                      std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

std::string sizeText(uint64_t done, uint64_t total) {
    char buf[64];
    const double gb = 1e9, mb = 1e6;
    if (total >= uint64_t(gb))
        std::snprintf(buf, sizeof buf, "%.1f/%.1f GB", done / gb, total / gb);
    else if (total >= uint64_t(mb))
        std::snprintf(buf, sizeof buf, "%.0f/%.0f MB", done / mb, total / mb);
    else
        std::snprintf(buf, sizeof buf, "%.0f/%.0f kB", done / 1e3, total / 1e3);
    return buf;
}

}  // namespace

LoadProgressScope::LoadProgressScope(LoadProgressFn fn, double intervalSeconds)
    : m_fn(std::move(fn)), m_interval(intervalSeconds), m_outer(t_scope) {
    t_scope = this;
}

LoadProgressScope::~LoadProgressScope() {
    t_scope = m_outer;
}

ComponentLoadReport::ComponentLoadReport(std::string component, std::vector<std::string> files)
    : m_scope(t_scope), m_outer(t_report), m_files(std::move(files)) {
    m_p.component = std::move(component);
    m_p.fileCount = int(m_files.size());
    m_begin = m_last = std::chrono::steady_clock::now();
    t_report = this;
}

ComponentLoadReport::~ComponentLoadReport() {
    t_report = const_cast<ComponentLoadReport*>(m_outer);
}

void ComponentLoadReport::start(uint64_t bytesTotal) {
    m_p.bytesTotal = bytesTotal;
    if (m_p.fileCount > 0) m_p.fileIndex = 1, m_p.file = m_files[0];
    publish(true);
}

void ComponentLoadReport::addRange(uintptr_t begin, uintptr_t end, int index) {
    m_ranges.emplace_back(begin, end, index);
}

void ComponentLoadReport::add(const void* data, uint64_t bytes) {
    if (!m_scope || bytes == 0) return;
    const auto at = reinterpret_cast<uintptr_t>(data);
    for (const auto& [b, e, i] : m_ranges)
        if (at >= b && at < e) {
            m_p.fileIndex = i + 1;
            m_p.file = m_files[size_t(i)];
            break;
        }
    m_p.bytesDone += bytes;
    publish(false);
}

void ComponentLoadReport::finish() {
    m_p.done = true;
    m_p.bytesDone = m_p.bytesTotal;  // keys the model skips are counted in neither
    publish(true);
}

void ComponentLoadReport::publish(bool force) {
    if (!m_scope || !m_scope->m_fn) return;
    const auto now = std::chrono::steady_clock::now();
    if (!force && secondsBetween(m_last, now) < m_scope->m_interval) return;
    m_last = now;
    m_p.elapsedSeconds = secondsBetween(m_begin, now);
    m_p.secondsLeft = -1;
    if (m_p.done)
        m_p.secondsLeft = 0;
    else if (m_p.bytesDone > 0 && m_p.bytesTotal >= m_p.bytesDone)
        m_p.secondsLeft =
            m_p.elapsedSeconds * double(m_p.bytesTotal - m_p.bytesDone) / double(m_p.bytesDone);
    m_scope->m_fn(m_p);
}

void noteWeightRead(const void* data, uint64_t bytes) {
    if (t_report) t_report->add(data, bytes);
}

std::vector<MappedFileRange> mappedFileRanges() {
    std::vector<MappedFileRange> out;
    // Whole lines: a path longer than a fixed buffer would leave its tail to be read as a line
    // of its own, and a folder name can spell "<hex>-<hex> r--p ..." (a made-up range whose
    // pages would then be dropped).
    std::ifstream f("/proc/self/maps");
    std::string line;
    while (std::getline(f, line)) {
        unsigned long a = 0, b = 0, inode = 0;
        char perms[8] = {0};
        int pathAt = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx %7s %*s %*s %lu %n", &a, &b, perms, &inode,
                        &pathAt) < 4 ||
            perms[0] != 'r' || perms[1] != '-' || inode == 0 || pathAt <= 0)
            continue;
        std::string path = line.substr(size_t(pathAt));
        while (!path.empty() && path.back() == ' ') path.pop_back();
        if (!path.empty() && path[0] == '/') out.push_back({a, b, path});
    }
    return out;
}

bool loadProgressWanted() {
    return t_scope != nullptr;
}

std::string loadProgressText(const LoadProgress& p) {
    std::string s = p.component + ": ";
    if (p.fileCount > 1)
        s += "shard " + std::to_string(p.fileIndex) + "/" + std::to_string(p.fileCount) + ", ";
    s += sizeText(p.bytesDone, p.bytesTotal);
    if (p.done) {
        char buf[32];
        std::snprintf(buf, sizeof buf, ", done in %.1f s", p.elapsedSeconds);
        s += buf;
    } else if (p.secondsLeft >= 0) {
        s += ", " + std::to_string(int64_t(p.secondsLeft + 0.5)) + " s left";
    }
    return s;
}

}  // namespace hs
