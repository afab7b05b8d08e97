#pragma once
// Building blocks of the diffusers AutoencoderKL, with the parameter names of its checkpoints.
//
// Every block takes its probe path at construction ("vae.decoder.up_blocks.1.resnets.0") and
// passes each op output through a ProbeContext point named after it, so fp16 emulation rounds
// every stored activation (an fp16 overflow becomes Inf where a GPU would produce it) and the
// statistics name the first layer that overflowed. Granularity: Module for the top-level blocks
// (down_blocks.i, up_blocks.i, mid_block), Layer for their parts (resnets.j, attentions.0,
// downsamplers.0, upsamplers.0), Op for the ops inside (convs, norms, activations, projections).
// A part made of one op (a sampler's conv) and a residual add are probed once, by the Layer
// point. Each sub-layer casts its input to its weight dtype (asTypeOf), so a precision plan may
// give different blocks different formats.
#include <torch/torch.h>

#include <string>

#include "models/common/layers.h"
#include "models/common/probe_points.h"
#include "numerics/probe.h"

namespace hs {

// The layers as diffusers builds them (bias on; GroupNorm eps 1e-6, diffusers' resnet_eps).
nn::Conv2d vaeConv2dLayer(int in, int out, int kernel, int stride, int padding);
nn::GroupNorm vaeGroupNormLayer(int groups, int channels);

// diffusers ResnetBlock2D as the VAE uses it (no time embedding, eps 1e-6, output scale 1):
// norm1 -> silu -> conv1 -> norm2 -> silu -> conv2, plus input (through a 1x1 conv_shortcut
// when the channel count changes).
class VaeResnetBlock2DImpl : public torch::nn::Module {
public:
    VaeResnetBlock2DImpl(int inChannels, int outChannels, int groups, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);

private:
    nn::GroupNorm m_norm1{nullptr};
    nn::Conv2d m_conv1{nullptr};
    nn::GroupNorm m_norm2{nullptr};
    nn::Conv2d m_conv2{nullptr};
    nn::Conv2d m_convShortcut{nullptr};  // only when inChannels != outChannels
    ProbePoint m_name;
    ResnetPoints m_n;
};
TORCH_MODULE(VaeResnetBlock2D);

// diffusers Attention as UNetMidBlock2D builds it for the VAE: group_norm, one head of dim C,
// to_q/to_k/to_v/to_out.0 with bias, residual connection, rescale_output_factor 1.
class VaeAttentionImpl : public torch::nn::Module {
public:
    VaeAttentionImpl(int channels, int groups, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);

private:
    nn::GroupNorm m_groupNorm{nullptr};
    nn::Linear m_toQ{nullptr}, m_toK{nullptr}, m_toV{nullptr};
    nn::Linear m_toOut0{nullptr};
    // Holds m_toOut0 as "to_out.0" (diffusers' ".1" is a parameterless dropout).
    torch::nn::ModuleList m_toOut;
    double m_scale;
    ProbePoint m_name, m_nNorm, m_nQ, m_nK, m_nV, m_nAttn, m_nOut;
};
TORCH_MODULE(VaeAttention);

// diffusers Downsample2D(use_conv=True, padding=0): zero pad (0, 1, 0, 1), then 3x3 stride-2 conv.
class VaeDownsample2DImpl : public torch::nn::Module {
public:
    VaeDownsample2DImpl(int channels, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);

private:
    nn::Conv2d m_conv{nullptr};
    ProbePoint m_name;
};
TORCH_MODULE(VaeDownsample2D);

// diffusers Upsample2D(use_conv=True): nearest 2x, then 3x3 conv.
class VaeUpsample2DImpl : public torch::nn::Module {
public:
    VaeUpsample2DImpl(int channels, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);

private:
    nn::Conv2d m_conv{nullptr};
    ProbePoint m_name;
};
TORCH_MODULE(VaeUpsample2D);

// diffusers DownEncoderBlock2D (numLayers resnets, optional downsamplers.0) and
// UpDecoderBlock2D (numLayers resnets, optional upsamplers.0).
class VaeSamplingBlockImpl : public torch::nn::Module {
public:
    enum class Kind { DownEncoder, UpDecoder };
    VaeSamplingBlockImpl(Kind kind, int inChannels, int outChannels, int numLayers, int groups,
                         bool addSampler, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);

private:
    torch::nn::ModuleList m_resnets;
    torch::nn::ModuleList m_samplers;  // "downsamplers" or "upsamplers"; empty in the last block
    std::vector<VaeResnetBlock2D> m_resnetList;
    VaeDownsample2D m_down{nullptr};
    VaeUpsample2D m_up{nullptr};
    ProbePoint m_name;
};
TORCH_MODULE(VaeSamplingBlock);

// diffusers UNetMidBlock2D as the VAE uses it: resnets.0, attentions.0 (unless
// mid_block_add_attention is false), resnets.1.
class VaeMidBlock2DImpl : public torch::nn::Module {
public:
    VaeMidBlock2DImpl(int channels, int groups, bool addAttention, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);

private:
    torch::nn::ModuleList m_resnets;
    torch::nn::ModuleList m_attentions;
    VaeResnetBlock2D m_resnet0{nullptr}, m_resnet1{nullptr};
    VaeAttention m_attention{nullptr};
    ProbePoint m_name;
};
TORCH_MODULE(VaeMidBlock2D);

}  // namespace hs
