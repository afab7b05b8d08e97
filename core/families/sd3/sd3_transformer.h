#pragma once
// diffusers SD3Transformer2DModel (Stable Diffusion 3 medium, 3.5 large / medium and their tiny
// test variants). named_parameters() and buffers equal the diffusers checkpoint keys:
// pos_embed.{proj.weight, proj.bias, pos_embed}, time_text_embed.{timestep_embedder,
// text_embedder}.linear_{1,2}, context_embedder, transformer_blocks.N.*, norm_out.linear,
// proj_out.
//
// Probe points carry the component prefix (default "transformer"): Module granularity for
// `transformer.transformer_blocks.N` (+ `.context` except in the last block) and
// `transformer.proj_out`; Layer for pos_embed, time_text_embed, context_embedder, norm_out and
// each block's norms, attentions and feed-forwards; Op for every other op output.
#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/common/weight_stream.h"
#include "models/common/weights.h"
#include "families/sd3/sd3_block.h"
#include "families/sd3/sd3_config.h"
#include "families/sd3/sd3_layers.h"
#include "numerics/probe.h"

namespace hs {

struct SD3Inputs {
    torch::Tensor hiddenStates;         // [B, in_channels, H, W] latents (H, W multiples of p)
    torch::Tensor encoderHiddenStates;  // [B, L_txt, joint_attention_dim]
    torch::Tensor pooledProjections;    // [B, pooled_projection_dim]
    torch::Tensor timestep;             // [B] the scheduler's t in [0, 1000], float32
};

// With a weight stream (LoadMode::Streamed) each block's weights are held only while it runs:
// prefixes "transformer_blocks.N.".
class SD3TransformerImpl : public torch::nn::Module, public StreamedBlocks {
public:
    explicit SD3TransformerImpl(const SD3Config& config,
                                const std::string& component = "transformer");
    // Inputs checked by sd3InputsFrom -> [B, out_channels, H, W] in proj_out's dtype
    torch::Tensor forward(const SD3Inputs& in, ProbeContext& probes);

    const SD3Config& config() const { return m_config; }
    const std::string& component() const { return m_component; }

    SD3PatchEmbed pos_embed{nullptr};
    SD3TimeTextEmbed time_text_embed{nullptr};
    nn::Linear context_embedder{nullptr}, proj_out{nullptr};
    torch::nn::ModuleList transformer_blocks{nullptr};
    std::vector<SD3JointBlock> blocks;  // typed views of transformer_blocks
    AdaLayerNormContinuous norm_out{nullptr};

private:
    SD3Config m_config;
    std::string m_component;
    ProbePoint m_contextEmbedder, m_projOut;
};
TORCH_MODULE(SD3Transformer);

// Builds the model for `config` (a diffusers config.json) and loads `weights` (ModuleLoader).
inline constexpr ModuleLoader<SD3Transformer, SD3Config, kTransformerSlot> loadSD3Transformer{};

}  // namespace hs
