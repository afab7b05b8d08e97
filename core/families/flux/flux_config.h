#pragma once
// Configuration of diffusers' FluxTransformer2DModel (config.json of a Flux "transformer" folder).
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "models/common/config.h"

namespace hs {

struct FluxConfig {
    int patchSize = 1;
    int inChannels = 64;
    int outChannels = 64;      // config "out_channels": null means in_channels
    int numLayers = 19;        // double-stream blocks (FluxTransformerBlock)
    int numSingleLayers = 38;  // single-stream blocks (FluxSingleTransformerBlock)
    int attentionHeadDim = 128;
    int numAttentionHeads = 24;
    int jointAttentionDim = 4096;
    int pooledProjectionDim = 768;
    bool guidanceEmbeds = false;
    std::vector<int> axesDimsRope{16, 56, 56};
    double ropeTheta = 10000.0;  // FluxPosEmbed(theta=10000), not a config field

    int innerDim() const { return numAttentionHeads * attentionHeadDim; }
    // proj_out width: patch_size^2 * out_channels
    int outDim() const { return patchSize * patchSize * outChannels; }

    // Reads diffusers' field names with diffusers' defaults. Throws ConfigError naming the field
    // for a wrong type or an inconsistent value (sum(axes_dims_rope) != attention_head_dim, ...).
    static FluxConfig fromJson(const nlohmann::json& j);
};

}  // namespace hs
