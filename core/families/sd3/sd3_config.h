#pragma once
// Configuration of diffusers' SD3Transformer2DModel (config.json of a Stable Diffusion 3 / 3.5
// "transformer" folder). SD3 medium: no dual attention, no qk-norm; SD3.5 large: qk_norm
// "rms_norm"; SD3.5 medium: also dual attention (a second, image-only attention) in its first
// 13 blocks. The last block is always context_pre_only: it reads the text stream but returns none.
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "models/common/config.h"

namespace hs {

struct SD3Config {
    int sampleSize = 128;  // latent side the positional table's scale is set for (base_size)
    int patchSize = 2;
    int inChannels = 16;
    int outChannels = 16;  // config "out_channels": null means in_channels
    int numLayers = 18;    // JointTransformerBlock count
    int attentionHeadDim = 64;
    int numAttentionHeads = 18;
    int jointAttentionDim = 4096;          // the text encoders' joint width (CLIP-L + CLIP-G + T5)
    int captionProjectionDim = 1152;       // context_embedder's width: must be the inner width
    int pooledProjectionDim = 2048;        // CLIP-L + CLIP-G pooled
    int posEmbedMaxSize = 96;              // side of the stored positional table, in patches
    std::vector<int> dualAttentionLayers;  // blocks with attn2 (SD35AdaLayerNormZeroX norm1)
    bool qkRmsNorm = false;                // qk_norm "rms_norm" (null: none)

    int innerDim() const { return numAttentionHeads * attentionHeadDim; }
    // proj_out width: patch_size^2 * out_channels
    int outDim() const { return patchSize * patchSize * outChannels; }
    // PatchEmbed's base_size: sample_size // patch_size (the positional table's unit).
    int baseSize() const { return sampleSize / patchSize; }
    bool dualAttention(int layer) const;
    // The last block has no text output (context_pre_only).
    bool contextPreOnly(int layer) const { return layer == numLayers - 1; }

    // Reads diffusers' field names with diffusers' defaults. Throws ConfigError naming the field
    // for a wrong type, a value out of bounds, an inconsistent value (caption_projection_dim not
    // the inner width, a dual_attention_layers entry past num_layers) or an unsupported variant
    // (qk_norm other than null / "rms_norm", pos_embed_max_size null).
    static SD3Config fromJson(const nlohmann::json& j);
};

}  // namespace hs
