#pragma once
// diffusers UNet2DConditionModel (models/unets/unet_2d_condition.py): the denoiser of Stable
// Diffusion 1.x, 2.x and SDXL. named_parameters() equal the diffusers checkpoint keys
// (conv_in, time_embedding.linear_1, add_embedding.linear_1, down_blocks.0.resnets.0.norm1, ...,
// mid_block.attentions.0.transformer_blocks.0.attn2.to_k, up_blocks.1.upsamplers.0.conv,
// conv_norm_out, conv_out).
//
// Probe points carry the component prefix given at construction ("unet" by default):
//   Module: conv_in, time_embedding, add_embedding, down_blocks.i, mid_block, up_blocks.i,
//           conv_out
//   Layer:  conv_norm_out and the blocks' parts: resnets.j, attentions.j,
//           attentions.j.transformer_blocks.k, downsamplers.0, upsamplers.0
//   Op:     time_proj, add_time_proj, time_embedding.sum, conv_act and every op inside the parts
#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/common/named_tensors.h"
#include "models/common/weights.h"
#include "families/unet/unet_blocks.h"
#include "families/unet/unet_config.h"
#include "families/unet/unet_embeddings.h"
#include "numerics/probe.h"

namespace hs {

struct UNetInputs {
    torch::Tensor sample;               // [B, C, h, w]
    torch::Tensor timestep;             // [B] or [1] or [] float (expanded to B)
    torch::Tensor encoderHiddenStates;  // [B, L, D]
    torch::Tensor textEmbeds;           // [B, P] SDXL pooled text embeds (text_time only)
    torch::Tensor timeIds;              // [B, 6] SDXL add_time_ids (text_time only)
};

// Checks `in` against `cfg`: shapes, batch sizes, h and w multiples of downFactor(), the SDXL
// inputs when (and only when) the model takes them. Throws InputError naming the key ("in.sample",
// "in.text_embeds" ...) and the expected shape.
void checkUNetInputs(const UNetConfig& cfg, const UNetInputs& in);

class UNet2DConditionModelImpl : public torch::nn::Module {
public:
    explicit UNet2DConditionModelImpl(UNetConfig cfg, const std::string& component = "unet");

    const UNetConfig& config() const { return m_cfg; }
    const std::string& component() const { return m_component; }
    // -> [B, out_channels, h, w] in the dtype of conv_out. Inputs of any floating dtype and
    // device are moved to the weights' device. Throws InputError for inputs that do not fit.
    torch::Tensor forward(const UNetInputs& in, ProbeContext& probes);

private:
    // The embedding every resnet receives: time_embedding(time_proj(t)) (+ add_embedding).
    torch::Tensor timeEmbedding(const UNetInputs& in, int64_t batch, ProbeContext& probes);

    UNetConfig m_cfg;
    std::string m_component;
    std::string m_addPath;  // "<component>.add_embedding"
    nn::Conv2d m_convIn{nullptr};
    UNetTimestepEmbedding m_timeEmbedding{nullptr}, m_addEmbedding{nullptr};
    torch::nn::ModuleList m_downBlocks, m_upBlocks;
    std::vector<UNetDownBlock> m_downs;
    std::vector<UNetUpBlock> m_ups;
    UNetMidBlock m_midBlock{nullptr};
    nn::GroupNorm m_convNormOut{nullptr};
    nn::Conv2d m_convOut{nullptr};
    ProbePoint m_nConvIn, m_nTimeProj, m_nAddTimeProj, m_nEmbSum, m_nNormOut, m_nAct, m_nConvOut;
};
TORCH_MODULE(UNet2DConditionModel);

// Builds the model from config.json and loads `weights` into it, each parameter in the format
// `policy` gives its module path. Throws ConfigError for a bad config and WeightError naming the
// key for a missing, unexpected or mis-shaped tensor.
UNet2DConditionModel loadUNet2DConditionModel(const nlohmann::json& config,
                                              const WeightMap& weights,
                                              const PrecisionPolicy& policy,
                                              const std::string& component = "unet");

}  // namespace hs
