#pragma once
// Configuration of diffusers' CosmosTransformer3DModel (config.json of a Cosmos-Predict2 or
// Anima "transformer" folder). Supported: the Predict2 text-to-image switches
// (concat_padding_mask, extra_pos_embed_type null); the learnable positional embedding of
// Cosmos 1.0, the cross-attention projection and image context of Cosmos 2.5 and the ControlNet
// injection of Transfer 2.5 are refused by name.
#include <array>
#include <nlohmann/json_fwd.hpp>

#include "models/common/config.h"

namespace hs {

struct CosmosConfig {
    int inChannels = 16;
    int outChannels = 16;
    int numAttentionHeads = 32;
    int attentionHeadDim = 128;
    int numLayers = 28;
    double mlpRatio = 4.0;
    int textEmbedDim = 1024;
    int adalnLoraDim = 256;
    std::array<int, 3> maxSize{128, 240, 240};  // frames, height, width (latent pixels)
    std::array<int, 3> patchSize{1, 2, 2};      // p_t, p_h, p_w
    std::array<double, 3> ropeScale{2.0, 1.0, 1.0};
    bool concatPaddingMask = true;

    int innerDim() const { return numAttentionHeads * attentionHeadDim; }
    int ffDim() const { return int(double(innerDim()) * mlpRatio); }  // FeedForward int(dim*mult)
    int patchVolume() const { return patchSize[0] * patchSize[1] * patchSize[2]; }
    // patch_embed.proj input width: (in_channels + padding-mask channel) * patch volume
    int patchInDim() const { return (inChannels + (concatPaddingMask ? 1 : 0)) * patchVolume(); }
    int outDim() const { return patchVolume() * outChannels; }
    // CosmosRotaryPosEmbed: positions per axis after patching, max(max_size / patch_size).
    int maxPatchedPositions() const;

    // Reads diffusers' field names with diffusers' defaults. Throws ConfigError naming the field
    // for a wrong type, a value out of bounds or an unsupported option.
    static CosmosConfig fromJson(const nlohmann::json& j);
};

}  // namespace hs
