#pragma once
// diffusers CosmosTransformer3DModel as Cosmos-Predict2 (2B / 14B text-to-image) and Anima use
// it: the padding mask concatenated as an extra input channel, patch embedding, 3-axis RoPE
// with NTK-scaled thetas, no extra positional embedding, AdaLN-LoRA blocks, the final AdaLN and
// proj_out, unpatchified back to [B, C, T, H, W]. Images are one frame (T = 1).
// named_parameters() equal the diffusers checkpoint keys: patch_embed.proj,
// time_embed.{t_embedder.linear_1, t_embedder.linear_2, norm}, transformer_blocks.N.*,
// norm_out.linear_{1,2}, proj_out.
//
// Probe points carry the component prefix (default "transformer"): Module granularity for
// `transformer.transformer_blocks.N` and `transformer.proj_out`; Layer for patch_embed,
// time_embed.t_embedder, time_embed.norm, norm_out and each block's norms, attentions,
// feed-forward and residual sums; Op for every other op output.
#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/common/weight_stream.h"
#include "models/common/weights.h"
#include "families/cosmos/cosmos_block.h"
#include "families/cosmos/cosmos_config.h"
#include "families/cosmos/cosmos_layers.h"
#include "numerics/probe.h"

namespace hs {

struct CosmosInputs {
    torch::Tensor hiddenStates;         // [B, in_channels, T, H, W]  latents
    torch::Tensor timestep;             // [B] or [1]  the raw timestep the pipeline passes
    torch::Tensor encoderHiddenStates;  // [B, L_txt, text_embed_dim]
    torch::Tensor paddingMask;          // [1, 1, h, w], resized (nearest) to H x W; undefined:
                                        // zeros (what the Predict2 pipelines pass)
};

// CosmosPatchEmbed: [B, C, T, H, W] -> [B, T/pt, H/ph, W/pw, C * pt * ph * pw] -> proj (no
// bias). Key: proj.
class CosmosPatchEmbedImpl : public torch::nn::Module {
public:
    CosmosPatchEmbedImpl(int64_t in, int64_t out);
    nn::Linear proj{nullptr};
};
TORCH_MODULE(CosmosPatchEmbed);

// With a weight stream (LoadMode::Streamed) each block's weights are held only while it runs:
// prefixes "transformer_blocks.N.".
class CosmosTransformerImpl : public torch::nn::Module, public StreamedBlocks {
public:
    explicit CosmosTransformerImpl(const CosmosConfig& config,
                                   const std::string& component = "transformer");
    // Inputs checked by cosmosInputsFrom -> [B, out_channels, T, H, W], dtype of proj_out
    torch::Tensor forward(const CosmosInputs& in, ProbeContext& probes);

    const CosmosConfig& config() const { return m_config; }
    const std::string& component() const { return m_component; }

    CosmosPatchEmbed patch_embed{nullptr};
    CosmosTimeEmbed time_embed{nullptr};
    torch::nn::ModuleList transformer_blocks{nullptr};
    std::vector<CosmosTransformerBlock> blocks;  // typed views of transformer_blocks
    CosmosAdaNorm norm_out{nullptr};
    nn::Linear proj_out{nullptr};

private:
    CosmosConfig m_config;
    std::string m_component;
    ProbePoint m_patchEmbed, m_projOut;
};
TORCH_MODULE(CosmosTransformer);

// Builds the model for `config` (a diffusers config.json) and loads `weights` (ModuleLoader).
inline constexpr ModuleLoader<CosmosTransformer, CosmosConfig, kTransformerSlot>
    loadCosmosTransformer{};

}  // namespace hs
