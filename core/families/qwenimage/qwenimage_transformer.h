#pragma once
// diffusers QwenImageTransformer2DModel (Qwen-Image's 20 B MMDiT and its tiny test variants):
// img_in over the 2 x 2-packed latents, txt_norm (RMSNorm) + txt_in over the Qwen2.5-VL states,
// the timestep embedding, QwenEmbedRope, the double-stream blocks, norm_out
// (AdaLayerNormContinuous) and proj_out. named_parameters() equal the diffusers checkpoint keys:
// img_in, txt_norm, txt_in, time_text_embed.timestep_embedder.linear_{1,2},
// transformer_blocks.N.*, norm_out.linear, proj_out.
//
// Probe points carry the component prefix (default "transformer"): Module granularity for
// `transformer.transformer_blocks.N` (+ `.context`) and `transformer.proj_out`; Layer for img_in,
// txt_norm, txt_in, time_text_embed, norm_out and each block's modulated inputs, attention,
// residual sums and feed-forwards; Op for every other op output.
#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/common/dit_layers.h"
#include "models/common/weight_stream.h"
#include "models/common/weights.h"
#include "families/qwenimage/qwenimage_block.h"
#include "families/qwenimage/qwenimage_config.h"
#include "families/qwenimage/qwenimage_layers.h"
#include "numerics/probe.h"

namespace hs {

struct QwenImageInputs {
    torch::Tensor hiddenStates;         // [B, L_img, in_channels]  packed latents
    torch::Tensor encoderHiddenStates;  // [B, L_txt, joint_attention_dim]  Qwen2.5-VL states
    torch::Tensor textMask;             // [B, L_txt] bool (true: a real token) or undefined
    torch::Tensor timestep;             // [B]  the pipeline's t / 1000; x1000 inside
    QwenImageShape shape;               // frames, packed height, packed width: L_img tokens
};

// With a weight stream (LoadMode::Streamed) each block's weights are held only while it runs:
// prefixes "transformer_blocks.N.".
class QwenImageTransformerImpl : public torch::nn::Module, public StreamedBlocks {
public:
    explicit QwenImageTransformerImpl(const QwenImageConfig& config,
                                      const std::string& component = "transformer");
    // Inputs checked by qwenImageInputsFrom -> [B, L_img, patch_size^2 * out_channels], dtype of
    // proj_out
    torch::Tensor forward(const QwenImageInputs& in, ProbeContext& probes);

    const QwenImageConfig& config() const { return m_config; }
    const std::string& component() const { return m_component; }

    nn::Linear img_in{nullptr}, txt_in{nullptr}, proj_out{nullptr};
    nn::RMSNorm txt_norm{nullptr};
    QwenImageTimeEmbed time_text_embed{nullptr};
    torch::nn::ModuleList transformer_blocks{nullptr};
    std::vector<QwenImageTransformerBlock> blocks;  // typed views of transformer_blocks
    AdaLayerNormContinuous norm_out{nullptr};

private:
    QwenImageConfig m_config;
    std::string m_component;
    ProbePoint m_imgIn, m_txtNorm, m_txtIn, m_projOut;
};
TORCH_MODULE(QwenImageTransformer);

// Builds the model for `config` (a diffusers config.json) and loads `weights` (ModuleLoader).
inline constexpr ModuleLoader<QwenImageTransformer, QwenImageConfig, kTransformerSlot>
    loadQwenImageTransformer{};

}  // namespace hs
