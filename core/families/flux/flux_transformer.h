#pragma once
// diffusers FluxTransformer2DModel (FLUX.1 dev / schnell and their tiny test variants).
// named_parameters() equal the diffusers checkpoint keys: x_embedder, context_embedder,
// time_text_embed.{timestep_embedder, guidance_embedder, text_embedder}.linear_{1,2},
// transformer_blocks.N.*, single_transformer_blocks.N.*, norm_out.linear, proj_out.
//
// Probe points carry the component prefix (default "transformer"): Module granularity for
// `transformer.transformer_blocks.N` (+ `.context`), `transformer.single_transformer_blocks.N`
// and `transformer.proj_out`; Layer for x_embedder, context_embedder, time_text_embed,
// norm_out and each block's norms, attention and feed-forwards; Op for every other op output.
#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/common/weight_stream.h"
#include "models/common/weights.h"
#include "families/flux/flux_blocks.h"
#include "families/flux/flux_config.h"
#include "families/flux/flux_layers.h"
#include "numerics/probe.h"

namespace hs {

struct FluxInputs {
    torch::Tensor hiddenStates;         // [B, L_img, in_channels]  packed latents
    torch::Tensor encoderHiddenStates;  // [B, L_txt, joint_attention_dim]  T5 output
    torch::Tensor pooledProjections;    // [B, pooled_projection_dim]  CLIP pooled output
    torch::Tensor timestep;             // [B]  sigma in [0, 1]; x1000 inside
    torch::Tensor guidance;             // [B]  guidance scale (x1000 inside); guidance_embeds only
    torch::Tensor imgIds;               // [L_img, n_axes]
    torch::Tensor txtIds;               // [L_txt, n_axes]
};

// With a weight stream (LoadMode::Streamed) each block's weights are held only while it runs:
// prefixes "transformer_blocks.N." and "single_transformer_blocks.N.".
class FluxTransformerImpl : public torch::nn::Module, public StreamedBlocks {
public:
    explicit FluxTransformerImpl(const FluxConfig& config,
                                 const std::string& component = "transformer");
    // -> [B, L_img, patch_size^2 * out_channels], dtype of proj_out
    torch::Tensor forward(const FluxInputs& in, ProbeContext& probes);

    const FluxConfig& config() const { return m_config; }
    const std::string& component() const { return m_component; }

    nn::Linear x_embedder{nullptr}, context_embedder{nullptr}, proj_out{nullptr};
    FluxTimeTextEmbed time_text_embed{nullptr};
    torch::nn::ModuleList transformer_blocks{nullptr}, single_transformer_blocks{nullptr};
    std::vector<FluxTransformerBlock> blocks;              // typed views of transformer_blocks
    std::vector<FluxSingleTransformerBlock> singleBlocks;  // ... and single_transformer_blocks
    AdaLayerNormContinuous norm_out{nullptr};

private:
    FluxConfig m_config;
    std::string m_component;
    ProbePoint m_xEmbedder, m_contextEmbedder, m_projOut;
};
TORCH_MODULE(FluxTransformer);

// Builds the model for `config` (a diffusers config.json) and loads `weights` (ModuleLoader).
inline constexpr ModuleLoader<FluxTransformer, FluxConfig, kTransformerSlot> loadFluxTransformer{};

}  // namespace hs
