#include "families/unet/unet_resnet.h"

namespace hs {

namespace {
using namespace probe_levels;
}  // namespace

// ---- ResnetBlock2D ------------------------------------------------------------------------

UNetResnetBlock2DImpl::UNetResnetBlock2DImpl(int inChannels, int outChannels, int tembChannels,
                                             int groups, double eps, double outputScale,
                                             const std::string& path)
    : m_outputScale(outputScale),
      m_name(path, kLayer, kResidualStream),  // (shortcut + h) / output_scale
      m_n(path),
      m_nTembAct(path + ".time_emb_act", kOp),
      m_nTembProj(path + ".time_emb_proj", kOp),
      m_nTembAdd(path + ".time_emb_add", kOp) {
    m_norm1 = register_module("norm1", nn::GroupNorm(groups, inChannels, eps));
    m_conv1 = register_module("conv1", nn::Conv2d(inChannels, outChannels, 3, 1, 1));
    m_timeEmbProj = register_module("time_emb_proj", nn::Linear(tembChannels, outChannels));
    m_norm2 = register_module("norm2", nn::GroupNorm(groups, outChannels, eps));
    m_conv2 = register_module("conv2", nn::Conv2d(outChannels, outChannels, 3, 1, 1));
    if (inChannels != outChannels)
        m_convShortcut =
            register_module("conv_shortcut", nn::Conv2d(inChannels, outChannels, 1, 1, 0));
}

torch::Tensor UNetResnetBlock2DImpl::forward(const torch::Tensor& x, const torch::Tensor& temb,
                                             ProbeContext& probes) {
    // x: [B, Cin, H, W]. In-place ops act only on tensors this block made.
    auto h = probes.point(m_n.norm1, m_norm1->forward(x));  // [B, Cin, H, W]
    h = probes.point(m_n.act1, torch::silu_(h));
    h = probes.point(m_n.conv1, m_conv1->forward(h));  // [B, Cout, H, W]
    auto t = probes.point(m_nTembAct, torch::silu(asTypeOf(temb, m_timeEmbProj->weight)));
    t = probes.point(m_nTembProj, m_timeEmbProj->forward(t));  // [B, Cout]
    h = probes.point(m_nTembAdd, h.add_(asTypeOf(t, h).unsqueeze(-1).unsqueeze(-1)));
    h = probes.point(m_n.norm2, m_norm2->forward(h));
    h = probes.point(m_n.act2, torch::silu_(h));
    h = probes.point(m_n.conv2, m_conv2->forward(h));  // [B, Cout, H, W]
    torch::Tensor shortcut = x;
    if (m_convShortcut) shortcut = probes.point(m_n.shortcut, m_convShortcut->forward(x));
    h.add_(asTypeOf(shortcut, h));  // in h's format
    if (m_outputScale != 1.0) h.div_(m_outputScale);
    return probes.point(m_name, h);  // [B, Cout, H, W]
}

// ---- Downsample2D / Upsample2D ------------------------------------------------------------

UNetDownsample2DImpl::UNetDownsample2DImpl(int channels, int padding, const std::string& path)
    : m_padding(padding), m_name(path, kLayer) {
    m_conv = register_module("conv", nn::Conv2d(channels, channels, 3, 2, padding));
}

torch::Tensor UNetDownsample2DImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    // x: [B, C, H, W] -> [B, C, H/2, W/2]
    auto in = x;
    if (m_padding == 0) in = torch::constant_pad_nd(asTypeOf(x, m_conv->weight), {0, 1, 0, 1}, 0);
    return probes.point(m_name, m_conv->forward(in));
}

UNetUpsample2DImpl::UNetUpsample2DImpl(int channels, const std::string& path)
    : m_name(path, kLayer) {
    m_conv = register_module("conv", nn::Conv2d(channels, channels, 3, 1, 1));
}

torch::Tensor UNetUpsample2DImpl::forward(const torch::Tensor& x, std::array<int64_t, 2> size,
                                          ProbeContext& probes) {
    // Nearest copies values, so it needs no rounding point (diffusers' fp32 detour for bf16 on
    // torch < 2.1 changes no value either).
    auto in = asTypeOf(x, m_conv->weight);
    auto up = torch::upsample_nearest2d(in, {size[0], size[1]});  // [B, C, ~2H, ~2W]
    return probes.point(m_name, m_conv->forward(up));
}

}  // namespace hs
