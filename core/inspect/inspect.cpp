#include "inspect/inspect.h"

#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "inspect/inspect_headline.h"
#include "io/float8.h"
#include "io/model_folder.h"
#include "io/scaled_fp8.h"
#include "models/single_file.h"

namespace hs {

namespace fs = std::filesystem;

namespace {

struct Partial {
    int64_t nonFinite = 0;
    float absMax = 0;
    RangeCounts fp16, bf16;
};

uint32_t bitsOf(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// Classifies one finite value `f` (exactly the stored value, or float-rounded for F64) whose
// stored bit pattern is nonzero when `nonzero`. The casts are c10's round-to-nearest-even
// conversions, the same a .to(kHalf) performs; the results are judged by their bits.
inline void classify(float f, bool nonzero, Partial& p) {
    p.absMax = std::max(p.absMax, std::fabs(f));
    const uint16_t h = c10::Half(f).x & 0x7FFF;  // magnitude bits
    p.fp16.overflow += h == 0x7C00;
    p.fp16.underflow += nonzero && h == 0;
    p.fp16.subnormal += h != 0 && h < 0x0400;  // exponent field 0
    const uint16_t b = c10::BFloat16(f).x & 0x7FFF;
    p.bf16.overflow += b == 0x7F80;
    p.bf16.underflow += nonzero && b == 0;
    p.bf16.subnormal += b != 0 && b < 0x0080;
}

template <typename T>
void scan(const T* data, int64_t b, int64_t e, Partial& p) {
    for (int64_t i = b; i < e; ++i) {
        if constexpr (std::is_same<T, double>::value) {
            const double d = data[i];
            if (!std::isfinite(d)) {
                ++p.nonFinite;
                continue;
            }
            uint64_t u;
            std::memcpy(&u, &d, 8);  // bits, not d != 0: DAZ would call a subnormal zero
            classify(float(d), (u << 1) != 0, p);
        } else if constexpr (std::is_same<T, float>::value) {
            const uint32_t u = bitsOf(data[i]);
            if ((u & 0x7F800000u) == 0x7F800000u) {  // exponent all ones: Inf or NaN
                ++p.nonFinite;
                continue;
            }
            classify(data[i], (u & 0x7FFFFFFFu) != 0, p);
        } else {  // c10::Half, c10::BFloat16: widening to float is exact
            const uint16_t u = data[i].x;
            const uint16_t expMask = std::is_same<T, c10::Half>::value ? 0x7C00 : 0x7F80;
            if ((u & expMask) == expMask) {
                ++p.nonFinite;
                continue;
            }
            classify(static_cast<float>(data[i]), (u & 0x7FFF) != 0, p);
        }
    }
}

template <typename T>
TensorRange rangeOf(const torch::Tensor& x) {
    auto c = x.contiguous();
    const T* data = c.data_ptr<T>();
    Partial total;
    std::mutex mu;
    at::parallel_for(0, c.numel(), 1 << 16, [&](int64_t b, int64_t e) {
        Partial p;
        scan(data, b, e, p);
        std::lock_guard<std::mutex> lock(mu);
        total.nonFinite += p.nonFinite;
        total.absMax = std::max(total.absMax, p.absMax);
        total.fp16.add(p.fp16);
        total.bf16.add(p.bf16);
    });
    TensorRange r;
    r.count = c.numel();
    r.nonFinite = total.nonFinite;
    r.absMax = total.absMax;
    r.fp16 = total.fp16;
    r.bf16 = total.bf16;
    return r;
}

}  // namespace

TensorRange rangeCheck(const torch::Tensor& t) {
    TORCH_CHECK(t.device().is_cpu(), "rangeCheck needs a CPU tensor");
    switch (t.scalar_type()) {
        case torch::kFloat32:
            return rangeOf<float>(t);
        case torch::kFloat64:
            return rangeOf<double>(t);
        case torch::kFloat16:
            return rangeOf<c10::Half>(t);
        case torch::kBFloat16:
            return rangeOf<c10::BFloat16>(t);
        default:
            TORCH_CHECK(false, "rangeCheck needs a floating tensor, got ", t.scalar_type());
    }
    return {};
}

void ModuleSummary::add(const std::string& /*dtype*/, int64_t numel, const TensorRange* r) {
    ++tensors;
    parameters += numel;
    if (!r) return;
    checked += r->count;
    nonFinite += r->nonFinite;
    absMax = std::max(absMax, r->absMax);
    fp16.add(r->fp16);
    bf16.add(r->bf16);
}

std::string topLevelModule(const std::string& key) {
    const auto dot = key.find('.');
    if (dot == std::string::npos) return key;
    const std::string first = key.substr(0, dot);
    // transformers text encoders wrap everything in "text_model."; one level more says which
    // part (embeddings, encoder, final_layer_norm).
    if (first == "text_model") {
        const auto dot2 = key.find('.', dot + 1);
        if (dot2 != std::string::npos) return key.substr(0, dot2);
    }
    return first;
}

ComponentSummary inspectTensors(const TensorSet& set) {
    ComponentSummary c;
    c.total.name = "total";
    std::map<std::string, ModuleSummary> modules;
    const ScaledFp8 scales = readScaledFp8(set);
    c.scaledWeights = int64_t(scales.weightScales.size());
    c.inputScales = scales.inputScales;
    for (const auto& name : set.names()) {
        const StTensorInfo& info = set.info(name);
        c.bytes += info.end - info.begin;
        if (scales.isBookkeeping(name)) continue;  // a marker or a scale: not a model tensor
        const std::string dt = storedDtypeLabel(info.dtype, scales.scaled());
        const int64_t n = info.numel();
        ++c.tensors;
        c.parameters += n;
        ++c.dtypes[dt].tensors;
        c.dtypes[dt].parameters += n;
        TensorRange r;
        const TensorRange* rp = nullptr;
        if (isFloatingDtypeLabel(dt)) {
            set.prefetch(name);  // one call instead of a page fault per 64 KiB
            // A view (fp8: its decoded copy, times its scale); dropped before the next tensor.
            r = rangeCheck(readScaledTensor(set, name, scales));
            set.checkIntact(name);  // a file that shrank meanwhile read as zeros: an error
            rp = &r;
        }
        const std::string mod = topLevelModule(name);
        auto& m = modules[mod];
        m.name = mod;
        m.add(dt, n, rp);
        c.total.add(dt, n, rp);
    }
    for (auto& kv : modules) c.modules.push_back(std::move(kv.second));
    for (const auto& f : set.files()) c.weightFiles.push_back(f->path());
    return c;
}

namespace {

ComponentSummary inspectComponentFolder(const std::string& dir, const std::string& name,
                                        const std::string& variant) {
    ComponentFolder f = openComponent(dir, variant);
    ComponentSummary c = inspectTensors(f.weights);
    c.name = name;
    c.kind = "model";
    c.className = f.className;
    c.variant = f.variant;
    c.path = dir;
    return c;
}

// The single-file layouts in `path`. Never throws: a file that matches no layout, or matches one
// and fails to convert, is still inspected; the summary says why.
SingleFileSummary summariseSingleFile(const std::string& path) {
    SingleFileSummary s;
    s.examined = true;
    try {
        const WeightMap all = layoutTensorsOf(SafetensorsFile::open(path)->tensors());
        s.layouts = detectSingleFile(all);
        if (s.layouts.empty()) return s;
        const SingleFileContents f = convertSingleFile(all, path);
        for (const auto& c : f.components)
            s.components.push_back({c.slot, c.className, c.description});
        s.notConverted = f.notConverted;
        s.ignored = f.ignored;
        s.headline = singleFileHeadline(f, all);
    } catch (const std::exception& e) {
        s.error = e.what();
    }
    return s;
}

std::string baseName(const std::string& path) {
    fs::path p(path);
    if (!p.has_filename()) p = p.parent_path();  // "folder/" -> "folder"
    return p.filename().string();
}

}  // namespace

InspectReport inspectPath(const std::string& path, const std::string& variant) {
    InspectReport r;
    r.path = path;
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) {
        r.kind = "file";
        ComponentSummary c = inspectTensors(TensorSet::open(path));
        c.name = baseName(path);
        c.kind = "model";
        c.path = path;
        r.components.push_back(std::move(c));
        r.singleFile = summariseSingleFile(path);
    } else if (isPipelineFolder(path)) {
        r.kind = "pipeline";
        PipelineFolder p = openPipeline(path);
        r.className = p.className;
        for (const auto& pc : p.components) {
            if (pc.kind == ComponentKind::Model) {
                ComponentSummary c;
                try {
                    c = inspectComponentFolder(pc.dir, pc.name, variant);
                } catch (const FileError& e) {
                    c.name = pc.name;
                    c.kind = "model";
                    c.path = pc.dir;
                    c.error = e.what();
                }
                if (c.className.empty()) c.className = pc.className;
                r.components.push_back(std::move(c));
            } else {
                ComponentSummary c;
                c.name = pc.name;
                c.kind = componentKindName(pc.kind);
                c.className = pc.className;
                c.path = pc.dir;
                r.components.push_back(std::move(c));
            }
        }
    } else if (isComponentFolder(path)) {
        r.kind = "component";
        r.components.push_back(inspectComponentFolder(path, baseName(path), variant));
        r.className = r.components.back().className;
    } else if (fs::is_directory(path, ec)) {
        throw FileError(path,
                        "not a component folder (no config.json) or pipeline folder (no "
                        "model_index.json)");
    } else {
        throw FileError(path, fs::exists(path, ec) ? "not a file or folder" : "does not exist");
    }
    return r;
}

}  // namespace hs
