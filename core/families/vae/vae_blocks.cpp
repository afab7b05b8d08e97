#include "families/vae/vae_blocks.h"

#include <cmath>

#include "models/common/weights.h"

namespace hs {

namespace {
using namespace probe_levels;

// Attention scores above this many elements are computed in query chunks (256 MiB in fp32), so a
// 1024x1024 image (16384 latent tokens, 1 GiB of scores) does not need them all at once.
constexpr int64_t kMaxScoreElements = int64_t(1) << 26;

}  // namespace

nn::Conv2d vaeConv2dLayer(int in, int out, int kernel, int stride, int padding) {
    return nn::Conv2d(in, out, kernel, stride, padding);
}

nn::GroupNorm vaeGroupNormLayer(int groups, int channels) {
    return nn::GroupNorm(groups, channels, 1e-6);
}

// ---- ResnetBlock2D ------------------------------------------------------------------------

VaeResnetBlock2DImpl::VaeResnetBlock2DImpl(int inChannels, int outChannels, int groups,
                                           const std::string& path)
    : m_name(path, kLayer, kResidualStream),  // shortcut + h
      m_n(path) {
    m_norm1 = register_module("norm1", vaeGroupNormLayer(groups, inChannels));
    m_conv1 = register_module("conv1", vaeConv2dLayer(inChannels, outChannels, 3, 1, 1));
    m_norm2 = register_module("norm2", vaeGroupNormLayer(groups, outChannels));
    m_conv2 = register_module("conv2", vaeConv2dLayer(outChannels, outChannels, 3, 1, 1));
    if (inChannels != outChannels)
        m_convShortcut =
            register_module("conv_shortcut", vaeConv2dLayer(inChannels, outChannels, 1, 1, 0));
}

torch::Tensor VaeResnetBlock2DImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    // x: [B, Cin, H, W]
    auto h = probes.point(m_n.norm1, m_norm1->forward(x));  // [B, Cin, H, W]
    h = probes.point(m_n.act1, torch::silu_(h));       // in place: h is this block's own tensor
    h = probes.point(m_n.conv1, m_conv1->forward(h));  // [B, Cout, H, W]
    h = probes.point(m_n.norm2, m_norm2->forward(h));
    h = probes.point(m_n.act2, torch::silu_(h));
    h = probes.point(m_n.conv2, m_conv2->forward(h));  // [B, Cout, H, W]
    torch::Tensor shortcut = x;
    if (m_convShortcut) shortcut = probes.point(m_n.shortcut, m_convShortcut->forward(x));
    // Residual add (output_scale_factor 1), in place into h, in h's format.
    return probes.point(m_name, h.add_(asTypeOf(shortcut, h)));  // [B, Cout, H, W]
}

// ---- Attention ----------------------------------------------------------------------------

VaeAttentionImpl::VaeAttentionImpl(int channels, int groups, const std::string& path)
    : m_scale(1.0 / std::sqrt(static_cast<double>(channels))),
      m_name(path, kLayer, kResidualStream),  // to_out(attention) + x
      m_nNorm(path + ".group_norm", kOp),
      m_nQ(path + ".to_q", kOp),
      m_nK(path + ".to_k", kOp),
      m_nV(path + ".to_v", kOp),
      m_nAttn(path + ".sdpa", kOp),
      m_nOut(path + ".to_out.0", kOp) {
    m_groupNorm = register_module("group_norm", vaeGroupNormLayer(groups, channels));
    m_toQ = register_module("to_q", nn::Linear(channels, channels));
    m_toK = register_module("to_k", nn::Linear(channels, channels));
    m_toV = register_module("to_v", nn::Linear(channels, channels));
    m_toOut0 = nn::Linear(channels, channels);
    m_toOut->push_back(m_toOut0);
    register_module("to_out", m_toOut);
}

torch::Tensor VaeAttentionImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    // x: [B, C, H, W]; diffusers AttnProcessor on a 4-D input: tokens are the H*W pixels.
    const int64_t B = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3), L = H * W;
    auto h = probes.point(m_nNorm, m_groupNorm->forward(x));  // [B, C, H, W]
    h = h.view({B, C, L}).transpose(1, 2).contiguous();       // [B, L, C]
    auto q = probes.point(m_nQ, m_toQ->forward(h));           // [B, L, C]
    auto k = probes.point(m_nK, m_toK->forward(h));           // [B, L, C]
    auto v = probes.point(m_nV, m_toV->forward(h));           // [B, L, C]

    // Scores and softmax are one fused op (as SDPA / flash attention run them on a GPU): they
    // stay in fp32 for half formats and get no probe point, so they are never rounded to the
    // format; the probabilities meet V in V's dtype.
    const auto scoreType = torch::kFloat;
    auto qs = q.scalar_type() == scoreType ? q : q.to(scoreType);
    auto kt = (k.scalar_type() == scoreType ? k : k.to(scoreType)).transpose(1, 2);  // [B, C, L]
    const int64_t rows = std::max<int64_t>(1, kMaxScoreElements / std::max<int64_t>(1, B * L));
    std::vector<torch::Tensor> parts;
    for (int64_t s = 0; s < L; s += rows) {
        const int64_t n = std::min(rows, L - s);
        auto qc = n == L ? qs : qs.narrow(1, s, n);  // [B, n, C]
        // A zeroed input: LibTorch 1.13's CPU baddbmm read an uninitialised one despite beta 0
        // in small products (NaN about one call in five at a few hundred multiply-adds).
        auto scores = torch::baddbmm(torch::zeros({B, n, L}, qs.options()), qc, kt,
                                     /*beta=*/0.0, /*alpha=*/m_scale);  // [B, n, L]
        auto probs = torch::softmax(scores, -1);                        // [B, n, L]
        parts.push_back(torch::bmm(asTypeOf(probs, v), v));             // [B, n, C]
    }
    auto o = parts.size() == 1 ? parts.front() : torch::cat(parts, 1);  // [B, L, C]
    o = probes.point(m_nAttn, o);
    o = probes.point(m_nOut, m_toOut0->forward(o));  // [B, L, C]
    // Back to NCHW (a contiguous copy), then the residual add in place.
    auto out = o.transpose(1, 2).reshape({B, C, H, W});  // [B, C, H, W]
    return probes.point(m_name, out.add_(asTypeOf(x, out)));
}

// ---- Downsample2D / Upsample2D ------------------------------------------------------------

VaeDownsample2DImpl::VaeDownsample2DImpl(int channels, const std::string& path)
    : m_name(path, kLayer) {
    m_conv = register_module("conv", vaeConv2dLayer(channels, channels, 3, 2, 0));
}

torch::Tensor VaeDownsample2DImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    // x: [B, C, H, W] -> pad right/bottom -> [B, C, H+1, W+1] -> [B, C, H/2, W/2]
    auto padded = torch::constant_pad_nd(asTypeOf(x, m_conv->weight), {0, 1, 0, 1}, 0);
    return probes.point(m_name, m_conv->forward(padded));
}

VaeUpsample2DImpl::VaeUpsample2DImpl(int channels, const std::string& path) : m_name(path, kLayer) {
    m_conv = register_module("conv", vaeConv2dLayer(channels, channels, 3, 1, 1));
}

torch::Tensor VaeUpsample2DImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    // x: [B, C, H, W] -> [B, C, 2H, 2W]. Nearest copies values, so it needs no rounding point;
    // LibTorch 1.13 has a bf16 CPU kernel for it (diffusers' fp32 detour is for old CUDA).
    auto xin = asTypeOf(x, m_conv->weight);
    auto up = torch::upsample_nearest2d(xin, {xin.size(2) * 2, xin.size(3) * 2});
    return probes.point(m_name, m_conv->forward(up));  // [B, C, 2H, 2W]
}

// ---- DownEncoderBlock2D / UpDecoderBlock2D ------------------------------------------------

VaeSamplingBlockImpl::VaeSamplingBlockImpl(Kind kind, int inChannels, int outChannels,
                                           int numLayers, int groups, bool addSampler,
                                           const std::string& path)
    // Without a sampler the block's output is its last resnet's stream.
    : m_name(path, kModule, !addSampler) {
    for (int j = 0; j < numLayers; ++j) {
        m_resnetList.emplace_back(j == 0 ? inChannels : outChannels, outChannels, groups,
                                  path + ".resnets." + std::to_string(j));
        m_resnets->push_back(m_resnetList.back());
    }
    register_module("resnets", m_resnets);
    if (addSampler) {
        if (kind == Kind::DownEncoder) {
            m_down = VaeDownsample2D(outChannels, path + ".downsamplers.0");
            m_samplers->push_back(m_down);
        } else {
            m_up = VaeUpsample2D(outChannels, path + ".upsamplers.0");
            m_samplers->push_back(m_up);
        }
        register_module(kind == Kind::DownEncoder ? "downsamplers" : "upsamplers", m_samplers);
    }
}

torch::Tensor VaeSamplingBlockImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto h = x;                                              // [B, Cin, H, W]
    for (auto& r : m_resnetList) h = r->forward(h, probes);  // [B, Cout, H, W]
    if (m_down) h = m_down->forward(h, probes);              // [B, Cout, H/2, W/2]
    if (m_up) h = m_up->forward(h, probes);                  // [B, Cout, 2H, 2W]
    return probes.point(m_name, h);
}

// ---- UNetMidBlock2D -----------------------------------------------------------------------

VaeMidBlock2DImpl::VaeMidBlock2DImpl(int channels, int groups, bool addAttention,
                                     const std::string& path)
    : m_name(path, kModule, kResidualStream) {  // resnets.1's output stream
    m_resnet0 = VaeResnetBlock2D(channels, channels, groups, path + ".resnets.0");
    m_resnet1 = VaeResnetBlock2D(channels, channels, groups, path + ".resnets.1");
    m_resnets->push_back(m_resnet0);
    m_resnets->push_back(m_resnet1);
    register_module("resnets", m_resnets);
    if (addAttention) {
        m_attention = VaeAttention(channels, groups, path + ".attentions.0");
        m_attentions->push_back(m_attention);
        register_module("attentions", m_attentions);
    }
}

torch::Tensor VaeMidBlock2DImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto h = m_resnet0->forward(x, probes);                // [B, C, H, W]
    if (m_attention) h = m_attention->forward(h, probes);  // [B, C, H, W]
    h = m_resnet1->forward(h, probes);                     // [B, C, H, W]
    return probes.point(m_name, h);
}

}  // namespace hs
