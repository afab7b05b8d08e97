#pragma once
// Building blocks of diffusers' AutoencoderKLWan / AutoencoderKLQwenImage
// (models/autoencoders/autoencoder_kl_wan.py, autoencoder_kl_qwenimage.py) for one frame, with
// the parameter names of their checkpoints.
//
// Images are videos of one frame (T = 1). diffusers runs the first frame with an empty feature
// cache: every causal 3D convolution pads 2 * p_t zero frames in front, so with T = 1 a kernel
// of depth k_t sees zeros at every time tap but the last, and the convolution equals a 2D one
// with the kernel's last time slice. The modules here take and return [B, C, H, W] (the time axis
// removed) and compute exactly that; the resamplers' time_conv weights are loaded but, as in
// diffusers' first chunk, never applied.
//
// Probe granularity follows models/vae: each block's output at the level its owner gives (Module
// for the encoder's down_blocks.i, Layer for the parts of mid and up blocks), Op for every op
// inside (norms, activations, convolutions, attention).
#include <torch/torch.h>

#include <string>

#include "models/common/layers.h"
#include "models/common/probe_points.h"
#include "numerics/probe.h"

namespace hs {

// diffusers QwenImageCausalConv3d / WanCausalConv3d: weight [out, in, k_t, k, k], bias [out].
// forward() runs the single-frame case: [B, in, H, W] -> [B, out, H, W] (stride 1, spatial
// padding k / 2, the kernel's last time slice).
class WanCausalConv3dImpl : public torch::nn::Module, public nn::Tf32Layer {
public:
    WanCausalConv3dImpl(int64_t in, int64_t out, int64_t kernelT, int64_t kernel);
    torch::Tensor forward(const torch::Tensor& x);
    torch::Tensor weight, bias;

private:
    int64_t m_kernelT, m_padding;
};
TORCH_MODULE(WanCausalConv3d);

// diffusers QwenImageRMS_norm (bias=False): F.normalize over channels (an L2 norm, eps 1e-12;
// in float32 for half inputs, then back to the input's dtype, as since diffusers PR #13316),
// times sqrt(C), times gamma. gamma is [C, 1, 1, 1] (images=False) or [C, 1, 1] (images=True).
// x [B, C, H, W] -> same.
class WanRMSNormImpl : public torch::nn::Module {
public:
    WanRMSNormImpl(int64_t dim, bool images);
    torch::Tensor forward(const torch::Tensor& x);
    torch::Tensor gamma;

private:
    double m_scale;
};
TORCH_MODULE(WanRMSNorm);

// diffusers QwenImageResidualBlock: shortcut (a 1x1x1 causal conv when the width changes),
// norm1 -> SiLU -> conv1 -> norm2 -> SiLU -> (dropout) -> conv2, plus the shortcut.
class WanResidualBlockImpl : public torch::nn::Module {
public:
    WanResidualBlockImpl(int in, int out, const std::string& path, ProbeLevel level);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);

private:
    WanRMSNorm m_norm1{nullptr}, m_norm2{nullptr};
    WanCausalConv3d m_conv1{nullptr}, m_conv2{nullptr}, m_shortcut{nullptr};
    ProbePoint m_name;
    ResnetPoints m_n;
};
TORCH_MODULE(WanResidualBlock);

// diffusers QwenImageAttentionBlock: per frame, RMS norm, to_qkv (a 1x1 conv to 3C), one head
// of width C over the H * W pixels (scaled dot product, scale 1/sqrt(C)), proj, plus input.
class WanAttentionBlockImpl : public torch::nn::Module {
public:
    WanAttentionBlockImpl(int dim, const std::string& path, ProbeLevel level);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);

private:
    WanRMSNorm m_norm{nullptr};
    nn::Conv2d m_toQkv{nullptr}, m_proj{nullptr};
    double m_scale;
    ProbePoint m_name, m_nNorm, m_nQkv, m_nAttn, m_nProj;
};
TORCH_MODULE(WanAttentionBlock);

// diffusers QwenImageResample. Up: nearest 2x, then resample.1 (3x3 conv to out channels; dim / 2
// in Wan 2.1's decoder). Down: zero pad (0, 1, 0, 1), then resample.1 (3x3, stride 2). The "3d"
// modes add time_conv ([2 dim, dim, 3, 1, 1] up, [dim, dim, 3, 1, 1] down), unused for a frame.
class WanResampleImpl : public torch::nn::Module {
public:
    enum class Mode { Upsample2d, Upsample3d, Downsample2d, Downsample3d };
    WanResampleImpl(int dim, Mode mode, const std::string& path, ProbeLevel level);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);

private:
    Mode m_mode;
    torch::nn::ModuleList m_resample;  // [0] the parameterless pad / upsample, [1] the conv
    nn::Conv2d m_conv{nullptr};
    WanCausalConv3d m_timeConv{nullptr};
    ProbePoint m_name;
};
TORCH_MODULE(WanResample);

// diffusers QwenImageMidBlock (num_layers 1): resnets.0, attentions.0, resnets.1.
class WanMidBlockImpl : public torch::nn::Module {
public:
    WanMidBlockImpl(int dim, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);

private:
    torch::nn::ModuleList m_resnets, m_attentions;
    WanResidualBlock m_resnet0{nullptr}, m_resnet1{nullptr};
    WanAttentionBlock m_attention{nullptr};
    ProbePoint m_name;
};
TORCH_MODULE(WanMidBlock);

}  // namespace hs
