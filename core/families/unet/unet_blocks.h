#pragma once
// The resolution blocks of diffusers UNet2DConditionModel (models/unets/unet_2d_blocks.py), with
// the parameter names of its checkpoints:
//   DownBlock2D / CrossAttnDownBlock2D: resnets.j (+ attentions.j), downsamplers.0
//   UNetMidBlock2DCrossAttn:            resnets.0, attentions.0, resnets.1
//   UpBlock2D / CrossAttnUpBlock2D:     resnets.j over [h | skip] (+ attentions.j), upsamplers.0
// Each block's output is a Module probe point ("unet.down_blocks.1", "unet.mid_block"); its parts
// are Layer points (see unet_resnet.h and unet_transformer.h).
#include <torch/torch.h>

#include <string>
#include <vector>

#include "families/unet/unet_resnet.h"
#include "families/unet/unet_transformer.h"
#include "numerics/probe.h"

namespace hs {

// What a block's resnets and attentions share.
struct UNetBlockSpec {
    int tembChannels = 0;
    int groups = 32;
    double eps = 1e-5;
    // Cross-attention blocks: one transformer layer count per resnet; empty for plain blocks.
    std::vector<int> transformerLayers;
    int heads = 1;
    int crossDim = 0;
    bool linearProjection = false;
    bool upcast = false;
};

// The layers of a down or up block: resnets.j, each followed in a cross-attention block by
// attentions.j (a transformer of spec.transformerLayers[j] layers).
class UNetLayerStack : public torch::nn::Module {
protected:
    void addLayer(int inChannels, int outChannels, const UNetBlockSpec& spec, int j,
                  const std::string& path);
    // Registers resnets (and attentions) once every layer is added.
    void registerLayers(const UNetBlockSpec& spec);

    torch::nn::ModuleList m_resnets, m_attentions, m_samplers;
    std::vector<UNetResnetBlock2D> m_resnetList;
    std::vector<UNetTransformer2D> m_attentionList;
};

// DownBlock2D / CrossAttnDownBlock2D. forward appends what the up blocks take as skips: each
// resnet (+ attention) output and the downsampler's.
class UNetDownBlockImpl : public UNetLayerStack {
public:
    UNetDownBlockImpl(int inChannels, int outChannels, int numLayers, const UNetBlockSpec& spec,
                      bool addDownsample, int downsamplePadding, const std::string& path);
    // x [B, Cin, H, W] -> [B, Cout, H', W'] (H' = H / 2 with a downsampler)
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& temb,
                          const torch::Tensor& context, std::vector<torch::Tensor>& skips,
                          ProbeContext& probes);

private:
    UNetDownsample2D m_down{nullptr};
    ProbePoint m_name;
};
TORCH_MODULE(UNetDownBlock);

// UNetMidBlock2DCrossAttn (one layer): resnets.0, attentions.0, resnets.1, resnets scaled by
// mid_block_scale_factor.
class UNetMidBlockImpl : public torch::nn::Module {
public:
    UNetMidBlockImpl(int channels, const UNetBlockSpec& spec, double outputScale,
                     const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& temb,
                          const torch::Tensor& context, ProbeContext& probes);

private:
    torch::nn::ModuleList m_resnets, m_attentions;
    UNetResnetBlock2D m_resnet0{nullptr}, m_resnet1{nullptr};
    UNetTransformer2D m_attention{nullptr};
    ProbePoint m_name;
};
TORCH_MODULE(UNetMidBlock);

// UpBlock2D / CrossAttnUpBlock2D: resnet j reads [h | skip] where skip is taken from the back of
// `skips`; resnet 0 gets prevOutput + (skip) channels, the last one outChannels + inChannels.
class UNetUpBlockImpl : public UNetLayerStack {
public:
    UNetUpBlockImpl(int inChannels, int prevOutputChannels, int outChannels, int numLayers,
                    const UNetBlockSpec& spec, bool addUpsample, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& temb,
                          const torch::Tensor& context, std::vector<torch::Tensor>& skips,
                          ProbeContext& probes);

private:
    UNetUpsample2D m_up{nullptr};
    ProbePoint m_name;
};
TORCH_MODULE(UNetUpBlock);

}  // namespace hs
