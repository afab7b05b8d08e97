#include "models/common/weight_stream.h"

#ifdef __linux__
#include <malloc.h>  // malloc_trim
#endif

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "base/load_progress.h"
#include "base/work_progress.h"
#include "io/platform_file.h"

namespace hs {

const char* loadModeName(LoadMode mode) {
    return mode == LoadMode::Streamed ? "streamed" : "full";
}

std::vector<std::string> blockPrefixesOf(const WeightMap& weights,
                                         const std::vector<std::string>& stems) {
    std::vector<std::string> out;
    for (const auto& stem : stems) {
        std::map<long, std::string> numbered;  // by block number, not by text ("10" < "2")
        for (const auto& kv : weights) {
            const std::string& key = kv.first;
            if (key.compare(0, stem.size(), stem) != 0) continue;
            size_t end = stem.size();
            while (end < key.size() && std::isdigit(static_cast<unsigned char>(key[end]))) ++end;
            if (end == stem.size() || end >= key.size() || key[end] != '.') continue;
            numbered.emplace(std::stol(key.substr(stem.size(), end - stem.size())),
                             key.substr(0, end + 1));
        }
        for (auto& kv : numbered) out.push_back(kv.second);
    }
    return out;
}

namespace {

// Returns freed heap pages to the system, so that resident memory falls when a block's weights
// are released: tcmalloc (linked into the executables when found) keeps freed spans otherwise;
// glibc unmaps large chunks itself and trims the rest here. The Windows heap decommits freed
// large blocks itself: nothing to do there.
void releaseFreedMemory() {
    using Fn = void (*)();
    static const Fn tcmallocRelease =
        reinterpret_cast<Fn>(platform::processSymbol("MallocExtension_ReleaseFreeMemory"));
    if (tcmallocRelease) {
        tcmallocRelease();
        return;
    }
#ifdef __linux__
    ::malloc_trim(0);
#endif
}

}  // namespace

FileMappings::FileMappings() {
    // Linux lists its mappings in /proc/self/maps; elsewhere the list stays empty, so no page
    // is dropped (streamed loading still frees each block's converted copies).
    for (const auto& r : mappedFileRanges()) m_ranges.emplace_back(r.begin, r.end);
}

MappedPages FileMappings::pagesOf(const torch::Tensor& stored) const {
    if (!stored.defined() || !stored.device().is_cpu() || stored.numel() == 0) return {};
    const size_t page = platform::pageSize();
    const auto begin = reinterpret_cast<uintptr_t>(stored.data_ptr());
    const auto end = begin + size_t(stored.numel()) * stored.element_size();
    const uintptr_t first = (begin + page - 1) / page * page, last = end / page * page;
    if (last <= first) return {};
    for (const auto& [a, b] : m_ranges)
        if (first >= a && last <= b) return {first, last};
    return {};
}

void MappedPages::drop() const {
    if (last > first) platform::dropPages(reinterpret_cast<void*>(first), last - first);
}

WeightStream::WeightStream(torch::nn::Module& module, const WeightMap& weights,
                           const std::string& component, const PrecisionPolicy& policy,
                           const std::vector<std::string>& blockPrefixes)
    : m_component(component), m_policy(policy), m_prefixes(blockPrefixes) {
    torch::NoGradGuard noGrad;
    m_blocks.resize(m_prefixes.size());
    for (size_t i = 0; i < m_prefixes.size(); ++i) m_index[m_prefixes[i]] = i;
    const FileMappings mappings;
    for (auto& p : module.named_parameters(true)) {
        size_t block = m_prefixes.size();
        for (size_t i = 0; i < m_prefixes.size() && block == m_prefixes.size(); ++i)
            if (p.key().compare(0, m_prefixes[i].size(), m_prefixes[i]) == 0) block = i;
        if (block == m_prefixes.size()) continue;
        Param q;
        q.key = p.key();
        q.param = p.value();
        q.stored = weights.at(p.key());
        q.pages = mappings.pagesOf(q.stored);
        q.floating = true;  // as loadWeights treats every parameter
        // The dtype the conversion gives it (converting no elements), so code reading the
        // parameter's dtype between blocks sees what a full load holds.
        const auto dtype =
            convertWeight(q.stored.reshape(-1).narrow(0, 0, 0), q.param.scalar_type(), q.floating,
                          component, q.key, policy)
                .scalar_type();
        auto opts = torch::TensorOptions().dtype(dtype).device(policy.device());
        const double fill = q.floating ? std::numeric_limits<double>::quiet_NaN() : 0.0;
        q.placeholder = torch::full({}, fill, opts).expand(q.param.sizes());
        q.param.set_data(q.placeholder);
        m_blocks[block].params.push_back(std::move(q));
    }
    releaseFreedMemory();  // the uninitialised block parameters the module was built with
}

WeightStream::~WeightStream() = default;

WeightStream::Scope WeightStream::materialise(const std::string& prefix) {
    auto it = m_index.find(prefix);
    if (it == m_index.end())
        throw std::out_of_range("'" + prefix + "' is not a streamed block of " + m_component);
    acquire(it->second);
    return Scope(this, it->second);
}

void WeightStream::acquire(size_t b) {
    std::lock_guard<std::mutex> lock(m_mutex);
    Block& block = m_blocks[b];
    if (block.holds++ > 0) return;
    const auto t0 = std::chrono::steady_clock::now();
    torch::NoGradGuard noGrad;
    try {
        for (Param& p : block.params) {
            p.param.set_data(convertWeight(p.stored, p.param.scalar_type(), p.floating, m_component,
                                           p.key, m_policy));
            p.pages.drop();  // the converted copy is what runs; the file keeps the bytes
        }
    } catch (...) {
        // Cancelled (or out of memory) half way: back to placeholders, so that the next run
        // converts the whole block again instead of running on a half-converted one.
        --block.holds;
        for (Param& p : block.params) p.param.set_data(p.placeholder);
        throw;
    }
    ++m_materialisations;
    // Which block is resident, for the run's progress (base/work_progress.h).
    noteBlockResident(m_component, m_prefixes[b], int(b) + 1, int(m_prefixes.size()));
    m_materialiseMs +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void WeightStream::release(size_t b) {
    std::lock_guard<std::mutex> lock(m_mutex);
    Block& block = m_blocks[b];
    if (--block.holds > 0) return;
    for (Param& p : block.params) {
        p.param.set_data(p.placeholder);
        p.pages.drop();
    }
    releaseFreedMemory();
}

bool WeightStream::isMaterialised(const std::string& prefix) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_index.find(prefix);
    return it != m_index.end() && m_blocks[it->second].holds > 0;
}

size_t WeightStream::materialisedBlocks() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return size_t(std::count_if(m_blocks.begin(), m_blocks.end(),
                                [](const Block& b) { return b.holds > 0; }));
}

uint64_t WeightStream::storedBytes(const std::string& prefix) const {
    uint64_t n = 0;
    for (size_t i = 0; i < m_blocks.size(); ++i) {
        if (!prefix.empty() && m_prefixes[i] != prefix) continue;
        for (const Param& p : m_blocks[i].params)
            n += uint64_t(p.stored.numel()) * p.stored.element_size();
    }
    return n;
}

uint64_t WeightStream::largestBlockBytes() const {
    uint64_t most = 0;
    for (const Block& b : m_blocks) {
        uint64_t n = 0;
        for (const Param& p : b.params)
            n += uint64_t(p.param.numel()) * p.placeholder.element_size();
        most = std::max(most, n);
    }
    return most;
}

WeightStream::Scope::Scope(Scope&& o) noexcept : m_stream(o.m_stream), m_block(o.m_block) {
    o.m_stream = nullptr;
}

WeightStream::Scope& WeightStream::Scope::operator=(Scope&& o) noexcept {
    if (this != &o) {
        if (m_stream) m_stream->release(m_block);
        m_stream = o.m_stream;
        m_block = o.m_block;
        o.m_stream = nullptr;
    }
    return *this;
}

WeightStream::Scope::~Scope() {
    if (m_stream) m_stream->release(m_block);
}

}  // namespace hs
