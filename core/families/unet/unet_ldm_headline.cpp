#include "base/affixes.h"
#include "models/single_file_support.h"
#include "families/unet/unet_ldm_layout.h"

namespace hs {

namespace {

// "CLIP-L", "OpenCLIP ViT-H", "OpenCLIP ViT-bigG", or "CLIP" for other widths.
std::string encoderName(const ConvertedComponent& c) {
    const int64_t width = c.config.value("hidden_size", 0);
    if (width == 768) return "CLIP-L";
    if (width == 1024) return "OpenCLIP ViT-H";
    if (width == 1280) return "OpenCLIP ViT-bigG";
    return "CLIP";
}

}  // namespace

std::string sdSingleFileHeadline(const SingleFileContents& f, const WeightMap& all) {
    const std::string model = sdModelName(all);
    const ConvertedComponent* unet = nullptr;
    for (const auto& c : f.components)
        if (c.slot == "unet") unet = &c;
    if (!unet || model.empty()) return {};
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
                    parameterCountText(parameterCountOf(unet->weights)) + ", ";
    if (encoders.size() >= 2)
        s += "two text encoders";
    else if (encoders.size() == 1)
        s += encoderName(*encoders[0]) + " text encoder" +
             (startsWith(model, "SDXL base") ? " (the second is missing)" : "");
    else
        s += "no text encoder";
    s += vae ? ", VAE" : ", no VAE";
    s += "; " + weightsDtypeText(all);
    for (const auto& key : f.ignored)
        if (startsWith(key, "model_ema.")) {
            s += ", EMA weights left out";
            break;
        }
    return s;
}

}  // namespace hs
