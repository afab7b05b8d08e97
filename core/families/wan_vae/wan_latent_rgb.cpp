#include "families/wan_vae/wan_latent_rgb.h"

namespace hs {

LatentRgbMap wanLatentRgbMap(const WanVaeConfig& cfg) {
    if (cfg.zDim != 16) return {};
    // ComfyUI's comfy/latent_formats.py, class Wan21: latent_rgb_factors (rows the 16 latent
    // channels, columns R, G, B) then latent_rgb_factors_bias, in its process_in space
    // ((z - latents_mean) * 1 / latents_std, diffusers' scaled latents).
    static const std::vector<double> wan21{
        -0.1299, -0.1692, 0.2932,   // channel 0
        0.0671,  0.0406,  0.0442,   // channel 1
        0.3568,  0.2548,  0.1747,   // channel 2
        0.0372,  0.2344,  0.1420,   // channel 3
        0.0313,  0.0189,  -0.0328,  // channel 4
        0.0296,  -0.0956, -0.0665,  // channel 5
        -0.3477, -0.4059, -0.2925,  // channel 6
        0.0166,  0.1902,  0.1975,   // channel 7
        -0.0412, 0.0267,  -0.1364,  // channel 8
        -0.1293, 0.0740,  0.1636,   // channel 9
        0.0680,  0.3019,  0.1128,   // channel 10
        0.0032,  0.0581,  0.0639,   // channel 11
        -0.1251, 0.0927,  0.1699,   // channel 12
        0.0060,  -0.0633, 0.0005,   // channel 13
        0.3477,  0.2275,  0.2950,   // channel 14
        0.1984,  0.0913,  0.1861,   // channel 15
        -0.1835, -0.0868, -0.3360,  // bias
    };
    return latentRgbMapOf(wan21, "published: ComfyUI's Wan21 latent_rgb_factors");
}

}  // namespace hs
