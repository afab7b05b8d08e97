#include "inspect/weight_stats.h"

#include <torch/torch.h>

#include <cmath>
#include <filesystem>

#include "io/float8.h"
#include "io/model_folder.h"
#include "io/scaled_fp8.h"

namespace fs = std::filesystem;

namespace hs {

namespace {

// Elements converted to fp32 at a time: 16 MiB of fp32, whatever the tensor's size.
constexpr int64_t kChunk = int64_t(1) << 22;

std::string componentName(const std::string& path, bool file) {
    fs::path p(path);
    if (!p.has_filename()) p = p.parent_path();
    std::string name = file ? p.stem().string() : p.filename().string();
    for (char& c : name)
        if (c == '.') c = '_';
    return name;
}

void addComponent(std::vector<WeightStats>& all, const TensorSet& set, const std::string& name,
                  WeightRiskReport& notes) {
    std::vector<std::string> skipped;
    auto s = weightStatsOf(set, name, &skipped);
    all.insert(all.end(), s.begin(), s.end());
    if (!skipped.empty())
        notes.notes.push_back(name + ": " + std::to_string(skipped.size()) +
                              " tensor(s) not checked (not floating), e.g. " +
                              skipped.front());
}

}  // namespace

WeightStats tensorWeightStats(const torch::Tensor& t) {
    WeightStats s;
    s.shape = t.sizes().vec();
    const torch::Tensor flat = t.reshape({-1});
    const int64_t n = flat.numel();
    double sumSq = 0, maxAbs = 0;
    int64_t finite = 0;
    for (int64_t at = 0; at < n; at += kChunk) {
        // One conversion op per chunk, then a plain loop: per-op overhead dominates otherwise
        // (a model has hundreds of small tensors).
        const torch::Tensor c =
            flat.slice(0, at, std::min(n, at + kChunk)).to(torch::kFloat).contiguous();
        const float* p = c.data_ptr<float>();
        for (int64_t i = 0, m = c.numel(); i < m; ++i) {
            const double v = std::fabs(double(p[i]));
            if (!std::isfinite(v)) {
                ++s.nonFinite;
                continue;
            }
            ++finite;
            maxAbs = std::max(maxAbs, v);
            sumSq += v * v;
        }
    }
    s.maxAbs = maxAbs;
    s.rms = finite > 0 ? std::sqrt(sumSq / double(finite)) : 0.0;
    return s;
}

std::vector<WeightStats> weightStatsOf(const TensorSet& set, const std::string& component,
                                       std::vector<std::string>* skipped) {
    std::vector<WeightStats> out;
    const ScaledFp8 scales = readScaledFp8(set);
    for (const auto& name : set.names()) {
        if (scales.isBookkeeping(name)) continue;  // a scaled-fp8 marker or scale
        const StTensorInfo& info = set.info(name);
        // Chosen by the stored dtype, before any byte is read: every other failure (a file that
        // shrank, a bad byte) is an error of the file, not a tensor to skip.
        const std::string dtype = storedDtypeLabel(info.dtype, scales.scaled());
        if (!isFloatingDtypeLabel(dtype)) {
            if (skipped) skipped->push_back(name);
            continue;
        }
        set.prefetch(name);
        // fp8: decoded, times its scale_weight in a scaled file: the weight the model computes
        // with.
        const torch::Tensor t = readScaledTensor(set, name, scales);
        WeightStats s = tensorWeightStats(t);
        set.checkIntact(name);  // a file that shrank meanwhile read as zeros: an error
        s.component = component;
        s.key = name;
        s.dtype = dtype;
        out.push_back(std::move(s));
    }
    return out;
}

WeightRiskReport predictFromWeights(const std::string& path, const std::string& variant) {
    std::vector<WeightStats> all;
    WeightRiskReport notes;
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) {
        addComponent(all, TensorSet::open(path), componentName(path, true), notes);
    } else if (isPipelineFolder(path)) {
        for (const auto& pc : openPipeline(path).components) {
            if (pc.kind != ComponentKind::Model) continue;
            try {
                addComponent(all, openComponent(pc.dir, variant).weights, pc.name, notes);
            } catch (const FileError& e) {
                notes.notes.push_back(pc.name + " not checked: " + e.what());
            }
        }
    } else {
        addComponent(all, openComponent(path, variant).weights, componentName(path, false), notes);
    }
    WeightRiskReport r = assessWeights(all);
    r.notes = notes.notes;
    return r;
}

}  // namespace hs
