#include "inspect/inspect_headline.h"

#include <cstdio>
#include <map>

#include "models/unet/unet_ldm_layout.h"
#include "base/affixes.h"

namespace hs {

namespace {

int64_t parametersOf(const ConvertedComponent& c) {
    int64_t n = 0;
    for (const auto& kv : c.weights) n += kv.second.numel();
    return n;
}

// The most common floating dtype of the file, by elements: "fp16 weights".
std::string dtypeText(const WeightMap& all) {
    std::map<c10::ScalarType, int64_t> elements;
    for (const auto& kv : all)
        if (kv.second.is_floating_point()) elements[kv.second.scalar_type()] += kv.second.numel();
    int64_t best = -1;
    std::string name = "no floating";
    for (const auto& [type, n] : elements)
        if (n > best) best = n, name = dtypeShortName(type);
    return name + " weights";
}

// "CLIP-L", "OpenCLIP ViT-H", "OpenCLIP ViT-bigG", or "CLIP" for other widths.
std::string encoderName(const ConvertedComponent& c) {
    const int64_t width = c.config.value("hidden_size", 0);
    if (width == 768) return "CLIP-L";
    if (width == 1024) return "OpenCLIP ViT-H";
    if (width == 1280) return "OpenCLIP ViT-bigG";
    return "CLIP";
}

std::string sdHeadline(const SingleFileContents& f, const WeightMap& all, const std::string& model,
                       const ConvertedComponent& unet) {
    bool sgm = false;
    for (auto it = all.lower_bound("conditioner."); it != all.end(); ++it) {
        sgm = startsWith(it->first, "conditioner.");
        break;
    }
    std::vector<const ConvertedComponent*> encoders;
    bool vae = false;
    for (const auto& c : f.components) {
        if (startsWith(c.slot, "text_encoder")) encoders.push_back(&c);
        vae |= c.slot == "vae";
    }
    std::string s = model + ", " + (sgm ? "SGM" : "LDM") + " layout: UNet " +
                    parameterCountText(parametersOf(unet)) + ", ";
    if (encoders.size() >= 2)
        s += "two text encoders";
    else if (encoders.size() == 1)
        s += encoderName(*encoders[0]) + " text encoder" +
             (startsWith(model, "SDXL base") ? " (the second is missing)" : "");
    else
        s += "no text encoder";
    s += vae ? ", VAE" : ", no VAE";
    s += "; " + dtypeText(all);
    for (const auto& key : f.ignored)
        if (startsWith(key, "model_ema.")) {
            s += ", EMA weights left out";
            break;
        }
    return s;
}

}  // namespace

std::string singleFileHeadline(const SingleFileContents& f, const WeightMap& all) {
    const std::string model = sdModelName(all);
    for (const auto& c : f.components)
        if (c.slot == "unet" && !model.empty()) return sdHeadline(f, all, model, c);
    std::string s;
    for (const auto& c : f.components)
        s += (s.empty() ? "" : ", ") + c.className + " " + parameterCountText(parametersOf(c));
    return s.empty() ? s : s + "; " + dtypeText(all);
}

}  // namespace hs
