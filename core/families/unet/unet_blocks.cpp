#include "families/unet/unet_blocks.h"

namespace hs {

namespace {

UNetTransformer2D transformerFor(int channels, const UNetBlockSpec& s, int j,
                                 const std::string& path) {
    return UNetTransformer2D(channels, s.heads, s.transformerLayers[size_t(j)], s.crossDim,
                             s.groups, s.linearProjection, s.upcast, path);
}

}  // namespace

void UNetLayerStack::addLayer(int inChannels, int outChannels, const UNetBlockSpec& s, int j,
                              const std::string& path) {
    const std::string jj = std::to_string(j);
    m_resnetList.emplace_back(inChannels, outChannels, s.tembChannels, s.groups, s.eps, 1.0,
                              path + ".resnets." + jj);
    m_resnets->push_back(m_resnetList.back());
    if (s.transformerLayers.empty()) return;
    m_attentionList.push_back(transformerFor(outChannels, s, j, path + ".attentions." + jj));
    m_attentions->push_back(m_attentionList.back());
}

void UNetLayerStack::registerLayers(const UNetBlockSpec& s) {
    register_module("resnets", m_resnets);
    if (!s.transformerLayers.empty()) register_module("attentions", m_attentions);
}

// ---- DownBlock2D / CrossAttnDownBlock2D ----------------------------------------------------

UNetDownBlockImpl::UNetDownBlockImpl(int inChannels, int outChannels, int numLayers,
                                     const UNetBlockSpec& s, bool addDownsample,
                                     int downsamplePadding, const std::string& path)
    // Without a downsampler the block's output is its last resnet's (or attention's) stream.
    : m_name(path, ProbeLevel::Module, !addDownsample) {
    for (int j = 0; j < numLayers; ++j)
        addLayer(j == 0 ? inChannels : outChannels, outChannels, s, j, path);
    registerLayers(s);
    if (addDownsample) {
        m_down = UNetDownsample2D(outChannels, downsamplePadding, path + ".downsamplers.0");
        m_samplers->push_back(m_down);
        register_module("downsamplers", m_samplers);
    }
}

torch::Tensor UNetDownBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& temb,
                                         const torch::Tensor& context,
                                         std::vector<torch::Tensor>& skips, ProbeContext& probes) {
    auto h = x;  // [B, Cin, H, W]
    for (size_t j = 0; j < m_resnetList.size(); ++j) {
        h = m_resnetList[j]->forward(h, temb, probes);  // [B, Cout, H, W]
        if (!m_attentionList.empty()) h = m_attentionList[j]->forward(h, context, probes);
        skips.push_back(h);
    }
    if (m_down) {
        h = m_down->forward(h, probes);  // [B, Cout, H/2, W/2]
        skips.push_back(h);
    }
    return probes.point(m_name, h);
}

// ---- UNetMidBlock2DCrossAttn -------------------------------------------------------------

UNetMidBlockImpl::UNetMidBlockImpl(int channels, const UNetBlockSpec& s, double outputScale,
                                   const std::string& path)
    : m_name(path, ProbeLevel::Module, kResidualStream) {  // resnets.1's output stream
    m_resnet0 = UNetResnetBlock2D(channels, channels, s.tembChannels, s.groups, s.eps, outputScale,
                                  path + ".resnets.0");
    m_resnet1 = UNetResnetBlock2D(channels, channels, s.tembChannels, s.groups, s.eps, outputScale,
                                  path + ".resnets.1");
    m_resnets->push_back(m_resnet0);
    m_resnets->push_back(m_resnet1);
    register_module("resnets", m_resnets);
    m_attention = transformerFor(channels, s, 0, path + ".attentions.0");
    m_attentions->push_back(m_attention);
    register_module("attentions", m_attentions);
}

torch::Tensor UNetMidBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& temb,
                                        const torch::Tensor& context, ProbeContext& probes) {
    auto h = m_resnet0->forward(x, temb, probes);  // [B, C, H, W]
    h = m_attention->forward(h, context, probes);  // [B, C, H, W]
    return probes.point(m_name, m_resnet1->forward(h, temb, probes));
}

// ---- UpBlock2D / CrossAttnUpBlock2D --------------------------------------------------------

UNetUpBlockImpl::UNetUpBlockImpl(int inChannels, int prevOutputChannels, int outChannels,
                                 int numLayers, const UNetBlockSpec& s, bool addUpsample,
                                 const std::string& path)
    // Without an upsampler the block's output is its last resnet's (or attention's) stream.
    : m_name(path, ProbeLevel::Module, !addUpsample) {
    for (int j = 0; j < numLayers; ++j) {
        const int skip = j == numLayers - 1 ? inChannels : outChannels;
        addLayer((j == 0 ? prevOutputChannels : outChannels) + skip, outChannels, s, j, path);
    }
    registerLayers(s);
    if (addUpsample) {
        m_up = UNetUpsample2D(outChannels, path + ".upsamplers.0");
        m_samplers->push_back(m_up);
        register_module("upsamplers", m_samplers);
    }
}

torch::Tensor UNetUpBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& temb,
                                       const torch::Tensor& context,
                                       std::vector<torch::Tensor>& skips, ProbeContext& probes) {
    auto h = x;  // [B, Cprev, H, W]
    for (size_t j = 0; j < m_resnetList.size(); ++j) {
        auto skip = skips.back();  // [B, Cskip, H, W]
        skips.pop_back();
        h = torch::cat({h, asTypeOf(skip, h)}, 1);      // [B, Cprev + Cskip, H, W]
        h = m_resnetList[j]->forward(h, temb, probes);  // [B, Cout, H, W]
        if (!m_attentionList.empty()) h = m_attentionList[j]->forward(h, context, probes);
    }
    // To the next skip's size: 2H, or 2H - 1 where the down path halved an odd size (a 3x3
    // stride-2 conv with padding 1 gives ceil(H / 2)).
    if (m_up) h = m_up->forward(h, {skips.back().size(2), skips.back().size(3)}, probes);
    return probes.point(m_name, h);
}

}  // namespace hs
