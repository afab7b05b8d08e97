#pragma once
// Configuration of a diffusers UNet2DConditionModel (the denoiser of Stable Diffusion 1.x, 2.x
// and SDXL), read from its config.json with diffusers' field names and normalised as
// UNet2DConditionModel.__init__ does: per-block values given as one int are repeated, the number
// of heads is `num_attention_heads or attention_head_dim` (diffusers' legacy naming: in these
// configs "attention_head_dim" counts heads), transformer layers are resolved per resnet/attention
// pair for the down, mid and up blocks.
//
// Supported: DownBlock2D / CrossAttnDownBlock2D, UNetMidBlock2DCrossAttn or no mid block,
// UpBlock2D / CrossAttnUpBlock2D, conv or linear projections, upcast_attention, positional
// timesteps, addition_embed_type null or "text_time" (SDXL). Anything else that changes the
// computation is a ConfigError naming the field.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/common/config.h"

namespace hs {

struct UNetConfig {
    int inChannels = 4, outChannels = 4, sampleSize = 64;
    std::vector<std::string> downBlockTypes;               // "DownBlock2D" | "CrossAttnDownBlock2D"
    std::string midBlockType = "UNetMidBlock2DCrossAttn";  // or "" (mid_block_type null)
    std::vector<std::string> upBlockTypes;                 // "UpBlock2D" | "CrossAttnUpBlock2D"
    std::vector<int> blockOutChannels;
    std::vector<int> layersPerBlock;     // per down block (an int in the config is repeated)
    std::vector<int> crossAttentionDim;  // per down block (an int in the config is repeated)
    std::vector<int> numAttentionHeads;  // per down block (heads, not head width)
    std::vector<std::vector<int>> downTransformerLayers;  // [block][resnet j]
    std::vector<std::vector<int>> upTransformerLayers;    // [up block][resnet j]
    int midTransformerLayers = 1;
    std::string additionEmbedType;              // "" or "text_time"
    int additionTimeEmbedDim = 0;               // 256 for SDXL
    int projectionClassEmbeddingsInputDim = 0;  // 2816 SDXL base, 2560 refiner
    bool upcastAttention = false;
    bool useLinearProjection = false;
    bool centerInputSample = false;
    bool flipSinToCos = true;
    double freqShift = 0;
    int timeEmbeddingDim = 0;  // 0: 4 * block_out_channels[0]
    int downsamplePadding = 1;
    double midBlockScaleFactor = 1.0;
    int normNumGroups = 32;
    double normEps = 1e-5;

    int levels() const { return static_cast<int>(blockOutChannels.size()); }
    int downFactor() const;    // 2^(number of downsampling blocks)
    int contextDim() const;    // cross-attention width the text encoder must give
    int timeEmbedDim() const;  // width of the time embedding the resnets receive
    bool hasMidBlock() const { return !midBlockType.empty(); }
    bool isCrossAttnDown(int i) const { return downBlockTypes[i] == "CrossAttnDownBlock2D"; }
    bool isCrossAttnUp(int i) const { return upBlockTypes[i] == "CrossAttnUpBlock2D"; }
};

// Throws ConfigError naming the field for a wrong type or value, an unsupported option,
// inconsistent list lengths or channel counts that do not divide into groups or heads.
UNetConfig unetConfigFromJson(const nlohmann::json& j);

}  // namespace hs
