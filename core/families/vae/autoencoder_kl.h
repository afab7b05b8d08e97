#pragma once
// diffusers AutoencoderKL (models/autoencoders/autoencoder_kl.py, vae.py): Encoder, Decoder,
// quant_conv / post_quant_conv. named_parameters() equal the diffusers checkpoint keys.
//
// Probe points carry the component prefix given at construction ("vae" by default):
//   Module: vae.encoder.down_blocks.i, vae.encoder.mid_block, vae.encoder.conv_out, vae.quant_conv,
//           vae.post_quant_conv, vae.decoder.mid_block, vae.decoder.up_blocks.i,
//           vae.decoder.conv_out
//   Layer:  conv_in, conv_norm_out and the parts of the blocks (resnets.j, attentions.0, ...)
//   Op:     conv_act and every op inside the parts (see vae_blocks.h)
#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "models/common/weights.h"
#include "models/roles.h"
#include "families/vae/vae_blocks.h"
#include "families/vae/vae_config.h"
#include "numerics/probe.h"

namespace hs {

// diffusers Encoder (double_z): conv_in, down_blocks, mid_block, conv_norm_out, SiLU, conv_out.
class VaeEncoderImpl : public torch::nn::Module {
public:
    VaeEncoderImpl(const AutoencoderKLConfig& cfg, const std::string& path);
    // [B, in_channels, H, W] -> [B, 2 * latent_channels, H / f, W / f], f = 2^(levels - 1)
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);
    const torch::Tensor& inputWeight() const { return m_convIn->weight; }

private:
    nn::Conv2d m_convIn{nullptr};
    torch::nn::ModuleList m_downBlocks;
    std::vector<VaeSamplingBlock> m_blocks;
    VaeMidBlock2D m_midBlock{nullptr};
    nn::GroupNorm m_convNormOut{nullptr};
    nn::Conv2d m_convOut{nullptr};
    ProbePoint m_nConvIn, m_nNormOut, m_nAct, m_nConvOut;
};
TORCH_MODULE(VaeEncoder);

// diffusers Decoder (norm_type "group"): conv_in, mid_block, up_blocks over the reversed
// block_out_channels with layers_per_block + 1 resnets each, conv_norm_out, SiLU, conv_out.
class VaeDecoderImpl : public torch::nn::Module {
public:
    VaeDecoderImpl(const AutoencoderKLConfig& cfg, const std::string& path);
    // [B, latent_channels, h, w] -> [B, out_channels, h * f, w * f]
    torch::Tensor forward(const torch::Tensor& z, ProbeContext& probes);
    const torch::Tensor& inputWeight() const { return m_convIn->weight; }

private:
    nn::Conv2d m_convIn{nullptr};
    VaeMidBlock2D m_midBlock{nullptr};
    torch::nn::ModuleList m_upBlocks;
    std::vector<VaeSamplingBlock> m_blocks;
    nn::GroupNorm m_convNormOut{nullptr};
    nn::Conv2d m_convOut{nullptr};
    ProbePoint m_nConvIn, m_nNormOut, m_nAct, m_nConvOut;
};
TORCH_MODULE(VaeDecoder);

class AutoencoderKLImpl : public torch::nn::Module {
public:
    explicit AutoencoderKLImpl(AutoencoderKLConfig cfg, const std::string& component = "vae");

    // Image [B, in_channels, H, W] (values in [-1, 1]; H, W multiples of downFactor()) ->
    // the diagonal Gaussian posterior (logvar clamped to [-30, 20] as diffusers does). Inputs of
    // any floating dtype and device are moved to the weights' device; outputs are in the dtype of
    // the last layer's weights.
    VaeMoments encode(const torch::Tensor& x, ProbeContext& probes);
    // Decoder-space latents [B, latent_channels, h, w] (already unscaled: see unscaleLatents())
    // -> image [B, out_channels, h * f, w * f] in the dtype of decoder.conv_out's weights.
    torch::Tensor decode(const torch::Tensor& z, ProbeContext& probes);

    const AutoencoderKLConfig& config() const { return m_cfg; }
    const std::string& component() const { return m_component; }

private:
    AutoencoderKLConfig m_cfg;
    std::string m_component;
    VaeEncoder m_encoder{nullptr};
    VaeDecoder m_decoder{nullptr};
    nn::Conv2d m_quantConv{nullptr};      // absent when use_quant_conv is false
    nn::Conv2d m_postQuantConv{nullptr};  // absent when use_post_quant_conv is false
    ProbePoint m_nQuant, m_nPostQuant;
    std::string m_encoderIn, m_decoderIn;  // where the image / the latents enter
};
TORCH_MODULE(AutoencoderKL);

// Builds the model for `config` (a diffusers config.json) and loads `weights` (ModuleLoader).
inline constexpr ModuleLoader<AutoencoderKL, AutoencoderKLConfig, kVaeSlot, true>
    loadAutoencoderKL{};

}  // namespace hs
