#pragma once
// diffusers AutoencoderKLWan / AutoencoderKLQwenImage (Wan 2.1 layout) for images: encoder,
// quant_conv, post_quant_conv, decoder, one frame at a time (see wan_vae_layers.h).
// named_parameters() equal the diffusers checkpoint keys.
//
// Probe points carry the component prefix given at construction ("vae" by default):
//   Module: vae.encoder.down_blocks.i, vae.encoder.mid_block, vae.encoder.conv_out,
//           vae.quant_conv, vae.post_quant_conv, vae.decoder.mid_block, vae.decoder.up_blocks.i,
//           vae.decoder.conv_out
//   Layer:  conv_in, norm_out, mid_block.resnets.j / attentions.0, up_blocks.i.resnets.j,
//           up_blocks.i.upsamplers.0
//   Op:     the activations before conv_out and every op inside the blocks
#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/common/weights.h"
#include "models/roles.h"
#include "families/wan_vae/wan_vae_config.h"
#include "families/wan_vae/wan_vae_layers.h"
#include "numerics/probe.h"

namespace hs {

// diffusers QwenImageEncoder3d: conv_in, the flat down_blocks list (per level num_res_blocks
// residual blocks, an attention block after each at the scales of attn_scales, then a
// downsampler except on the last level), mid_block, norm_out, SiLU, conv_out (2 z_dim).
class WanEncoderImpl : public torch::nn::Module {
public:
    WanEncoderImpl(const WanVaeConfig& cfg, const std::string& path);
    // [B, in_channels, H, W] -> [B, 2 z_dim, H / f, W / f]
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);
    const torch::Tensor& inputWeight() const { return m_convIn->weight; }

private:
    struct Entry {  // one element of down_blocks: exactly one of the three is set
        WanResidualBlock res{nullptr};
        WanAttentionBlock attn{nullptr};
        WanResample resample{nullptr};
    };
    WanCausalConv3d m_convIn{nullptr}, m_convOut{nullptr};
    torch::nn::ModuleList m_downBlocks;
    std::vector<Entry> m_entries;
    WanMidBlock m_midBlock{nullptr};
    WanRMSNorm m_normOut{nullptr};
    ProbePoint m_nConvIn, m_nNormOut, m_nAct, m_nConvOut;
};
TORCH_MODULE(WanEncoder);

// diffusers QwenImageUpBlock: num_res_blocks + 1 residual blocks, then upsamplers.0 (all but the
// last level).
class WanUpBlockImpl : public torch::nn::Module {
public:
    WanUpBlockImpl(int in, int out, int numResBlocks, bool upsample, bool temporal,
                   const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);

private:
    torch::nn::ModuleList m_resnets, m_upsamplers;
    std::vector<WanResidualBlock> m_resnetList;
    WanResample m_up{nullptr};
    ProbePoint m_name;
};
TORCH_MODULE(WanUpBlock);

// diffusers QwenImageDecoder3d: conv_in, mid_block, up_blocks (each after the first starts at
// half the previous width, what the upsampler's conv left), norm_out, SiLU, conv_out.
class WanDecoderImpl : public torch::nn::Module {
public:
    WanDecoderImpl(const WanVaeConfig& cfg, const std::string& path);
    // [B, z_dim, h, w] -> [B, out_channels, h * f, w * f] (before diffusers' clamp)
    torch::Tensor forward(const torch::Tensor& z, ProbeContext& probes);
    const torch::Tensor& inputWeight() const { return m_convIn->weight; }

private:
    WanCausalConv3d m_convIn{nullptr}, m_convOut{nullptr};
    WanMidBlock m_midBlock{nullptr};
    torch::nn::ModuleList m_upBlocks;
    std::vector<WanUpBlock> m_blocks;
    WanRMSNorm m_normOut{nullptr};
    ProbePoint m_nConvIn, m_nNormOut, m_nAct, m_nConvOut;
};
TORCH_MODULE(WanDecoder);

class WanVaeImpl : public torch::nn::Module {
public:
    explicit WanVaeImpl(WanVaeConfig cfg, const std::string& component = "vae");

    // Image [B, in_channels, H, W] (one frame, values in [-1, 1]) -> the posterior's mean and
    // logvar [B, z_dim, H / f, W / f] (logvar clamped to [-30, 20] as diffusers'
    // DiagonalGaussianDistribution). H and W are floored at each halving, as diffusers does.
    VaeMoments encode(const torch::Tensor& x, ProbeContext& probes);
    // Decoder-space latents [B, z_dim, h, w] (see wanUnscaleLatents) -> image
    // [B, out_channels, h * f, w * f], clamped to [-1, 1] as diffusers' decode does.
    torch::Tensor decode(const torch::Tensor& z, ProbeContext& probes);

    const WanVaeConfig& config() const { return m_cfg; }

private:
    WanVaeConfig m_cfg;
    WanEncoder m_encoder{nullptr};
    WanDecoder m_decoder{nullptr};
    WanCausalConv3d m_quantConv{nullptr}, m_postQuantConv{nullptr};
    ProbePoint m_nQuant, m_nPostQuant;
    std::string m_encoderIn;
};
TORCH_MODULE(WanVae);

// Builds the model for `config` (a diffusers config.json) and loads `weights` (ModuleLoader).
inline constexpr ModuleLoader<WanVae, WanVaeConfig, kVaeSlot, true> loadWanVae{};

}  // namespace hs
