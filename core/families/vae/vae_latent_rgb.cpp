#include "families/vae/vae_latent_rgb.h"

#include <cmath>
#include <optional>

namespace hs {

namespace {

// A latent format as ComfyUI's comfy/latent_formats.py describes it: its diffusion space (what
// ComfyUI's process_in gives, diffusers' scaled latents) and latent_rgb_factors there, rows the
// latent channels, columns R, G, B, then latent_rgb_factors_bias (zeros where it has none).
struct PublishedFormat {
    const char* name;  // the class in latent_formats.py
    int channels;
    double scaling;
    std::optional<double> shift;
    std::vector<double> rowsThenBias;
};

// ComfyUI's figures, rows the latent channels (R, G, B), the bias row last.
const std::vector<double> kSd15{
    0.3512,  0.2297,  0.3227,   // channel 0
    0.3250,  0.4974,  0.2350,   // channel 1
    -0.2829, 0.1762,  0.2721,   // channel 2
    -0.2120, -0.2616, -0.7177,  // channel 3
    0,       0,       0,        // bias
};
const std::vector<double> kSdxl{
    0.3651,  0.4232,  0.4341,   // channel 0
    -0.2533, -0.0042, 0.1068,   // channel 1
    0.1076,  0.1111,  -0.0362,  // channel 2
    -0.3165, -0.2492, -0.2188,  // channel 3
    0.1084,  -0.0175, -0.0011,  // bias
};
const std::vector<double> kSd3{
    -0.0922, -0.0175, 0.0749,   // channel 0
    0.0311,  0.0633,  0.0954,   // channel 1
    0.1994,  0.0927,  0.0458,   // channel 2
    0.0856,  0.0339,  0.0902,   // channel 3
    0.0587,  0.0272,  -0.0496,  // channel 4
    -0.0006, 0.1104,  0.0309,   // channel 5
    0.0978,  0.0306,  0.0427,   // channel 6
    -0.0042, 0.1038,  0.1358,   // channel 7
    -0.0194, 0.0020,  0.0669,   // channel 8
    -0.0488, 0.0130,  -0.0268,  // channel 9
    0.0922,  0.0988,  0.0951,   // channel 10
    -0.0278, 0.0524,  -0.0542,  // channel 11
    0.0332,  0.0456,  0.0895,   // channel 12
    -0.0069, -0.0030, -0.0810,  // channel 13
    -0.0596, -0.0465, -0.0293,  // channel 14
    -0.1448, -0.1463, -0.1189,  // channel 15
    0.2394,  0.2135,  0.1925,   // bias
};
const std::vector<double> kFlux{
    -0.0346, 0.0244,  0.0681,   // channel 0
    0.0034,  0.0210,  0.0687,   // channel 1
    0.0275,  -0.0668, -0.0433,  // channel 2
    -0.0174, 0.0160,  0.0617,   // channel 3
    0.0859,  0.0721,  0.0329,   // channel 4
    0.0004,  0.0383,  0.0115,   // channel 5
    0.0405,  0.0861,  0.0915,   // channel 6
    -0.0236, -0.0185, -0.0259,  // channel 7
    -0.0245, 0.0250,  0.1180,   // channel 8
    0.1008,  0.0755,  -0.0421,  // channel 9
    -0.0515, 0.0201,  0.0011,   // channel 10
    0.0428,  -0.0012, -0.0036,  // channel 11
    0.0817,  0.0765,  0.0749,   // channel 12
    -0.1264, -0.0522, -0.1103,  // channel 13
    -0.0280, -0.0881, -0.0499,  // channel 14
    -0.1262, -0.0982, -0.0778,  // channel 15
    -0.0329, -0.0718, -0.0851,  // bias
};

const std::vector<PublishedFormat>& publishedFormats() {
    static const std::vector<PublishedFormat> formats{
        {"SD15", 4, 0.18215, std::nullopt, kSd15},  // SD 1.x and 2.x's AutoencoderKL
        {"SDXL", 4, 0.13025, std::nullopt, kSdxl},  // SDXL's VAE (and its fp16 fix)
        {"SD3", 16, 1.5305, 0.0609, kSd3},          // SD3 and SD3.5's 16-channel VAE
        {"Flux", 16, 0.3611, 0.1159, kFlux},        // FLUX.1's VAE (ae.safetensors)
    };
    return formats;
}

bool nearPublished(double a, double b) {
    return std::abs(a - b) <= 1e-4 * std::abs(b);
}

bool sameShift(const std::optional<double>& a, const std::optional<double>& b) {
    // diffusers writes "shift_factor": null or 0 where there is none.
    const double x = a.value_or(0.0), y = b.value_or(0.0);
    return y == 0.0 ? x == 0.0 : nearPublished(x, y);
}

}  // namespace

LatentRgbMap publishedLatentRgbMap(const AutoencoderKLConfig& cfg) {
    if (cfg.latentsMean || cfg.latentsStd) return {};
    for (const PublishedFormat& f : publishedFormats())
        if (cfg.latentChannels == f.channels && nearPublished(cfg.scalingFactor, f.scaling) &&
            sameShift(cfg.shiftFactor, f.shift))
            return latentRgbMapOf(f.rowsThenBias, std::string("published: ComfyUI's ") + f.name +
                                                      " latent_rgb_factors");
    return {};
}

LatentRgbMap latentRgbMapOf(const AutoencoderKLConfig& cfg) {
    if (!cfg.latentRgbFactors.empty())
        return latentRgbMapOf(cfg.latentRgbFactors, "the VAE config's latent_rgb_factors");
    return publishedLatentRgbMap(cfg);
}

}  // namespace hs
