#include "models/registry.h"

#include <set>
#include <stdexcept>

#include "models/common/config.h"
#include "base/load_progress.h"

namespace hs {

FamilyRegistry& FamilyRegistry::global() {
    static FamilyRegistry* r = [] {
        auto* reg = new FamilyRegistry;
        registerBuiltinFamilies(*reg);
        return reg;
    }();
    return *r;
}

void FamilyRegistry::add(Family family) {
    if (!family.build) throw std::invalid_argument("family '" + family.name + "' has no builder");
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const auto& f : m_families)
        for (const auto& mine : family.classNames)
            for (const auto& theirs : f->classNames)
                if (mine == theirs)
                    throw std::invalid_argument("model class '" + mine +
                                                "' is already loaded by family '" + f->name + "'");
    m_families.push_back(std::make_shared<const Family>(std::move(family)));
}

std::shared_ptr<const Family> FamilyRegistry::find(const std::string& className) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const auto& f : m_families)
        for (const auto& c : f->classNames)
            if (c == className) return f;
    return nullptr;
}

std::shared_ptr<const Family> FamilyRegistry::require(const std::string& className,
                                                      const std::string& where) const {
    if (auto f = find(className)) return f;
    std::string list;
    for (const auto& c : classNames()) list += (list.empty() ? "" : ", ") + c;
    throw std::runtime_error(where + ": model class '" + className +
                             "' is not supported (supported: " + list + ")");
}

std::vector<std::string> FamilyRegistry::classNames() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<std::string> out;
    for (const auto& f : m_families)
        out.insert(out.end(), f->classNames.begin(), f->classNames.end());
    return out;
}

namespace {

uint64_t storedBytes(const WeightMap& weights, const std::string& key) {
    const auto it = weights.find(key);
    return it == weights.end() ? 0 : uint64_t(it->second.numel()) * it->second.element_size();
}

// The shard files that hold `weights` (views into mapped safetensors files), sorted by path;
// `ranges` gets the process's file mappings to look them up in; none for weights in memory.
std::vector<std::string> shardFilesOf(const WeightMap& weights,
                                      std::vector<MappedFileRange>& ranges) {
    ranges = mappedFileRanges();
    std::set<std::string> used;
    for (const auto& kv : weights) {
        if (!kv.second.defined() || !kv.second.device().is_cpu() || kv.second.numel() == 0)
            continue;
        const auto at = reinterpret_cast<uintptr_t>(kv.second.data_ptr());
        for (const auto& r : ranges)
            if (at >= r.begin && at < r.end) {
                used.insert(r.path);
                break;
            }
    }
    return {used.begin(), used.end()};
}

// The streamed load: the blocks' parameters go to a WeightStream (placeholders until a block
// runs), every other tensor is converted now, its mapped pages dropped once copied.
void loadStreamed(Component& c, StreamedBlocks& hook, const Family& family,
                  const ComponentSource& source, const PrecisionPolicy& policy,
                  const std::string& component, const std::vector<std::string>& ignored,
                  ComponentLoadReport& report) {
    checkWeights(c.module(), source.weights, ignored);
    auto stream =
        std::make_shared<WeightStream>(c.module(), source.weights, component, policy,
                                       blockPrefixesOf(source.weights, family.blockStems));
    const FileMappings mappings;
    auto load = [&](const std::string& key, torch::Tensor& dst, bool floating) {
        const torch::Tensor& stored = source.weights.at(key);
        dst.set_data(convertWeight(stored, dst.scalar_type(), floating, component, key, policy));
        mappings.pagesOf(stored).drop();
    };
    std::set<std::string> streamed;
    for (const auto& prefix : stream->blocks())
        for (auto& p : c.module().named_parameters(true))
            if (p.key().compare(0, prefix.size(), prefix) == 0) streamed.insert(p.key());
    uint64_t total = 0;  // what is converted now: the blocks' weights wait for their run
    for (auto& p : c.module().named_parameters(true))
        if (!streamed.count(p.key())) total += storedBytes(source.weights, p.key());
    for (auto& b : c.module().named_buffers(true)) total += storedBytes(source.weights, b.key());
    report.start(total);
    for (auto& p : c.module().named_parameters(true))
        if (!streamed.count(p.key())) load(p.key(), p.value(), true);
    // Buffers as loadWeights takes them: floating ones, and others the checkpoint holds.
    for (auto& b : c.module().named_buffers(true))
        if (source.weights.count(b.key()) || b.value().is_floating_point())
            load(b.key(), b.value(), b.value().is_floating_point());
    hook.setWeightStream(std::move(stream));
}

}  // namespace

std::shared_ptr<Component> loadComponent(const Family& family, const ComponentSource& source,
                                         const PrecisionPolicy& policy,
                                         const std::string& component, LoadMode mode) {
    const std::vector<std::string> ignored =
        family.ignoredKeys ? family.ignoredKeys(source) : std::vector<std::string>{};
    try {
        {
            nn::MetaConstruction meta;
            checkWeights(family.build(source, component)->module(), source.weights, ignored);
        }
        torch::NoGradGuard noGrad;
        // Progress per tensor (base/load_progress.h); a cancel thrown by convertWeight
        // leaves through here and `c` is freed with what it had converted.
        std::vector<MappedFileRange> ranges;
        std::vector<std::string> files;
        if (loadProgressWanted()) files = shardFilesOf(source.weights, ranges);
        ComponentLoadReport report(component, files);
        for (const auto& r : ranges)
            for (size_t i = 0; i < files.size(); ++i)
                if (r.path == files[i]) report.addRange(r.begin, r.end, int(i));
        auto c = family.build(source, component);
        if (mode == LoadMode::Streamed) {
            StreamedBlocks* hook = c->streamedBlocks();
            if (!hook || family.blockStems.empty())
                throw std::invalid_argument(family.name + " cannot be loaded block by block");
            loadStreamed(*c, *hook, family, source, policy, component, ignored, report);
        } else {
            if (loadProgressWanted()) {
                uint64_t total = 0;
                for (auto& p : c->module().named_parameters(true))
                    total += storedBytes(source.weights, p.key());
                for (auto& b : c->module().named_buffers(true))
                    total += storedBytes(source.weights, b.key());
                report.start(total);
            }
            loadWeights(c->module(), source.weights, component, policy, ignored);
        }
        report.finish();
        for (auto& p : c->module().parameters()) p.set_requires_grad(false);
        c->module().eval();
        return c;
    } catch (const ConfigError& e) {
        throw ConfigError(source.dir + "/" + e.what());
    } catch (const WeightError& e) {
        throw WeightError(source.dir + ": " + e.what());
    }
}

Format storedFormatOf(const TensorSet& set, std::string* dtypeName) {
    std::map<StDType, int64_t> n;
    for (const auto& name : set.names()) n[set.info(name).dtype] += set.info(name).numel();
    StDType best = StDType::F32;
    int64_t most = -1;
    for (const auto& kv : n) {
        const bool floating = kv.first == StDType::F32 || kv.first == StDType::F16 ||
                              kv.first == StDType::BF16 || kv.first == StDType::F64;
        if (floating && kv.second > most) best = kv.first, most = kv.second;
    }
    if (dtypeName) *dtypeName = stDTypeName(best);
    if (best == StDType::F16) return Format::FP16;
    if (best == StDType::BF16) return Format::BF16;
    return Format::FP32;
}

Format storedFormatOf(const WeightMap& weights, std::string* dtypeName) {
    std::map<torch::ScalarType, int64_t> n;
    for (const auto& kv : weights)
        if (kv.second.is_floating_point()) n[kv.second.scalar_type()] += kv.second.numel();
    torch::ScalarType best = torch::kFloat32;
    int64_t most = -1;
    for (const auto& kv : n)
        if (kv.second > most) best = kv.first, most = kv.second;
    const Format f = best == torch::kFloat16    ? Format::FP16
                     : best == torch::kBFloat16 ? Format::BF16
                                                : Format::FP32;
    if (dtypeName)
        *dtypeName = best == torch::kFloat64 ? "F64"
                     : f == Format::FP16     ? "F16"
                     : f == Format::BF16     ? "BF16"
                                             : "F32";
    return f;
}

int64_t parameterCount(torch::nn::Module& m) {
    int64_t n = 0;
    for (const auto& p : m.parameters()) n += p.numel();
    return n;
}

}  // namespace hs
