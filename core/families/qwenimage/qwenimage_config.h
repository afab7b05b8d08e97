#pragma once
// Configuration of diffusers' QwenImageTransformer2DModel (config.json of a Qwen-Image
// "transformer" folder). Supported: Qwen-Image's text-to-image model (QwenEmbedRope with
// scale_rope). The variants of Qwen-Image-Edit-2511 and Qwen-Image-Layered (zero_cond_t,
// use_additional_t_cond, use_layer3d_rope) are refused by name.
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "models/common/config.h"

namespace hs {

struct QwenImageConfig {
    int patchSize = 2;
    int inChannels = 64;   // packed latent channels (16 latent channels x 2 x 2)
    int outChannels = 16;  // config "out_channels": null means in_channels
    int numLayers = 60;    // QwenImageTransformerBlock count
    int attentionHeadDim = 128;
    int numAttentionHeads = 24;
    int jointAttentionDim = 3584;               // Qwen2.5-VL hidden size
    std::vector<int> axesDimsRope{16, 56, 56};  // frame, height, width parts of each head
    // QwenEmbedRope tables hold positions 0..4095 (and -4096..-1): an image or a text longer
    // than that has no rotary angles in diffusers.
    static constexpr int kRopePositions = 4096;

    int innerDim() const { return numAttentionHeads * attentionHeadDim; }
    // proj_out width: patch_size^2 * out_channels
    int outDim() const { return patchSize * patchSize * outChannels; }

    // Reads diffusers' field names with diffusers' defaults. Throws ConfigError naming the field
    // for a wrong type, a value out of bounds, an inconsistent value (sum(axes_dims_rope) !=
    // attention_head_dim) or an unsupported variant.
    static QwenImageConfig fromJson(const nlohmann::json& j);
};

}  // namespace hs
