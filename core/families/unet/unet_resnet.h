#pragma once
// The convolutional parts of diffusers UNet2DConditionModel's blocks, with the parameter names of
// its checkpoints: ResnetBlock2D with a time embedding (models/resnet.py), Downsample2D
// (models/downsampling.py) and Upsample2D (models/upsampling.py). Each is a Layer probe point
// ("unet.down_blocks.1.resnets.0", "unet.up_blocks.0.upsamplers.0"); the ops inside a resnet are
// Op points. Every layer casts its input to its weight dtype, so a plan may give blocks
// different formats.
#include <torch/torch.h>

#include <array>
#include <string>

#include "models/common/layers.h"
#include "models/common/probe_points.h"
#include "numerics/probe.h"

namespace hs {

// diffusers ResnetBlock2D(time_embedding_norm="default", non_linearity="silu", pre_norm):
//   h = conv1(silu(norm1(x))) + time_emb_proj(silu(temb))[:, :, None, None]
//   h = conv2(silu(norm2(h)))
//   out = (shortcut(x) + h) / output_scale_factor, shortcut a 1x1 conv_shortcut when the
//   channel count changes.
class UNetResnetBlock2DImpl : public torch::nn::Module {
public:
    UNetResnetBlock2DImpl(int inChannels, int outChannels, int tembChannels, int groups, double eps,
                          double outputScale, const std::string& path);
    // x [B, Cin, H, W], temb [B, T] -> [B, Cout, H, W]
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& temb, ProbeContext& probes);

private:
    nn::GroupNorm m_norm1{nullptr}, m_norm2{nullptr};
    nn::Conv2d m_conv1{nullptr}, m_conv2{nullptr}, m_convShortcut{nullptr};
    nn::Linear m_timeEmbProj{nullptr};
    double m_outputScale;
    ProbePoint m_name;
    ResnetPoints m_n;
    ProbePoint m_nTembAct, m_nTembProj, m_nTembAdd;
};
TORCH_MODULE(UNetResnetBlock2D);

// diffusers Downsample2D(use_conv=True, padding, name="op"): a 3x3 stride-2 conv "conv"; with
// padding 0 the input is first zero-padded on the right and bottom.
class UNetDownsample2DImpl : public torch::nn::Module {
public:
    UNetDownsample2DImpl(int channels, int padding, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);  // -> [B, C, H/2, W/2]

private:
    nn::Conv2d m_conv{nullptr};
    int m_padding;
    ProbePoint m_name;
};
TORCH_MODULE(UNetDownsample2D);

// diffusers Upsample2D(use_conv=True): nearest to `size` (2x, or the skip's size after an odd
// one was halved: diffusers' forward_upsample_size), then a 3x3 conv "conv".
class UNetUpsample2DImpl : public torch::nn::Module {
public:
    UNetUpsample2DImpl(int channels, const std::string& path);
    // x [B, C, H, W] -> [B, C, size[0], size[1]]
    torch::Tensor forward(const torch::Tensor& x, std::array<int64_t, 2> size,
                          ProbeContext& probes);

private:
    nn::Conv2d m_conv{nullptr};
    ProbePoint m_name;
};
TORCH_MODULE(UNetUpsample2D);

}  // namespace hs
