#include "families/wan_vae/wan_vae_layers.h"

#include <algorithm>
#include <cmath>

namespace hs {

namespace {
using namespace probe_levels;

// Attention scores above this many elements are computed in query chunks (256 MiB in fp32): a
// 1024x1024 image has 16384 latent pixels, 1 GiB of scores at once.
constexpr int64_t kMaxScoreElements = int64_t(1) << 26;

bool isHalf(torch::ScalarType t) {
    return t == torch::kFloat16 || t == torch::kBFloat16;
}

}  // namespace

// ---- CausalConv3d -------------------------------------------------------------------------

WanCausalConv3dImpl::WanCausalConv3dImpl(int64_t in, int64_t out, int64_t kernelT, int64_t kernel)
    : m_kernelT(kernelT), m_padding(kernel / 2) {
    weight = register_parameter(
        "weight", torch::empty({out, in, kernelT, kernel, kernel}, nn::parameterOptions()));
    bias = register_parameter("bias", torch::empty({out}, nn::parameterOptions()));
}

torch::Tensor WanCausalConv3dImpl::forward(const torch::Tensor& x) {
    // x: [B, in, H, W], one frame. Causal padding puts 2 * (k_t / 2) = k_t - 1 zero frames in
    // front of it, so only the last time tap of the kernel meets data.
    return product(asTypeOf(x, weight), weight.select(2, m_kernelT - 1),  // [out, in, k, k]
                   [&](const torch::Tensor& a, const torch::Tensor& w) {
                       return torch::conv2d(a, w, bias, 1, m_padding);  // [B, out, H, W]
                   });
}

// ---- RMS_norm -----------------------------------------------------------------------------

WanRMSNormImpl::WanRMSNormImpl(int64_t dim, bool images) : m_scale(std::sqrt(double(dim))) {
    std::vector<int64_t> shape{dim, 1, 1};
    if (!images) shape.push_back(1);
    gamma = register_parameter("gamma", torch::empty(shape, nn::parameterOptions()));
}

torch::Tensor WanRMSNormImpl::forward(const torch::Tensor& x) {
    auto xin = asTypeOf(x, gamma);  // [B, C, H, W]
    const bool half = isHalf(xin.scalar_type());
    auto xf = half ? xin.to(torch::kFloat) : xin;
    // F.normalize(x, dim=1): x / max(||x||_2, 1e-12) over the channels.
    auto norm = at::norm(xf, 2, {1}, /*keepdim=*/true).clamp_min_(1e-12);  // [B, 1, H, W]
    auto y = xf / norm;
    if (half) y = y.to(xin.scalar_type());
    return y.mul_(m_scale).mul_(gamma.view({gamma.size(0), 1, 1}));  // [B, C, H, W]
}

// ---- ResidualBlock ------------------------------------------------------------------------

WanResidualBlockImpl::WanResidualBlockImpl(int in, int out, const std::string& path,
                                           ProbeLevel level)
    : m_name(path, level, kResidualStream),  // shortcut + h
      m_n(path) {
    m_norm1 = register_module("norm1", WanRMSNorm(in, false));
    m_conv1 = register_module("conv1", WanCausalConv3d(in, out, 3, 3));
    m_norm2 = register_module("norm2", WanRMSNorm(out, false));
    m_conv2 = register_module("conv2", WanCausalConv3d(out, out, 3, 3));
    if (in != out) m_shortcut = register_module("conv_shortcut", WanCausalConv3d(in, out, 1, 1));
}

torch::Tensor WanResidualBlockImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    // x: [B, Cin, H, W]
    torch::Tensor shortcut = x;
    if (m_shortcut) shortcut = probes.point(m_n.shortcut, m_shortcut->forward(x));  // [B, Cout..]
    auto h = probes.point(m_n.norm1, m_norm1->forward(x));  // [B, Cin, H, W]
    h = probes.point(m_n.act1, torch::silu_(h));
    h = probes.point(m_n.conv1, m_conv1->forward(h));  // [B, Cout, H, W]
    h = probes.point(m_n.norm2, m_norm2->forward(h));
    h = probes.point(m_n.act2, torch::silu_(h));
    h = probes.point(m_n.conv2, m_conv2->forward(h));  // [B, Cout, H, W]
    return probes.point(m_name, h.add_(asTypeOf(shortcut, h)));
}

// ---- AttentionBlock -----------------------------------------------------------------------

WanAttentionBlockImpl::WanAttentionBlockImpl(int dim, const std::string& path, ProbeLevel level)
    : m_scale(1.0 / std::sqrt(double(dim))),
      m_name(path, level, kResidualStream),  // proj(attention) + x
      m_nNorm(path + ".norm", kOp),
      m_nQkv(path + ".to_qkv", kOp),
      m_nAttn(path + ".sdpa", kOp),
      m_nProj(path + ".proj", kOp) {
    m_norm = register_module("norm", WanRMSNorm(dim, true));
    m_toQkv = register_module("to_qkv", nn::Conv2d(dim, 3 * dim, 1));
    m_proj = register_module("proj", nn::Conv2d(dim, dim, 1));
}

torch::Tensor WanAttentionBlockImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    const int64_t B = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3), L = H * W;
    auto h = probes.point(m_nNorm, m_norm->forward(x));          // [B, C, H, W]
    auto qkv = probes.point(m_nQkv, m_toQkv->forward(h));        // [B, 3C, H, W]
    qkv = qkv.view({B, 3 * C, L}).transpose(1, 2).contiguous();  // [B, L, 3C]
    auto parts3 = qkv.chunk(3, -1);                              // q, k, v: [B, L, C]

    // Scores and softmax are one fused op (SDPA on a GPU): fp32 for half formats, no rounding
    // point; the probabilities meet V in V's dtype (as models/vae's attention).
    const auto& v = parts3[2];
    auto q = parts3[0].to(torch::kFloat);
    auto kt = parts3[1].to(torch::kFloat).transpose(1, 2);  // [B, C, L]
    const int64_t rows = std::max<int64_t>(1, kMaxScoreElements / std::max<int64_t>(1, B * L));
    std::vector<torch::Tensor> parts;
    for (int64_t s = 0; s < L; s += rows) {
        const int64_t n = std::min(rows, L - s);
        auto qc = n == L ? q : q.narrow(1, s, n);  // [B, n, C]
        auto scores = torch::baddbmm(torch::empty({B, n, L}, q.options()), qc, kt, 0.0,
                                     m_scale);               // [B, n, L]
        auto probs = torch::softmax(scores, -1);             // [B, n, L]
        parts.push_back(torch::bmm(asTypeOf(probs, v), v));  // [B, n, C]
    }
    auto o = parts.size() == 1 ? parts.front() : torch::cat(parts, 1);   // [B, L, C]
    o = probes.point(m_nAttn, o.transpose(1, 2).reshape({B, C, H, W}));  // [B, C, H, W]
    auto out = probes.point(m_nProj, m_proj->forward(o));                // [B, C, H, W]
    return probes.point(m_name, out.add_(asTypeOf(x, out)));
}

// ---- Resample -----------------------------------------------------------------------------

WanResampleImpl::WanResampleImpl(int dim, Mode mode, const std::string& path, ProbeLevel level)
    : m_mode(mode), m_name(path, level) {
    const bool up = mode == Mode::Upsample2d || mode == Mode::Upsample3d;
    m_conv = up ? nn::Conv2d(dim, dim / 2, 3, 1, 1) : nn::Conv2d(dim, dim, 3, 2, 0);
    m_resample->push_back(torch::nn::Identity());  // nn.Upsample / nn.ZeroPad2d
    m_resample->push_back(m_conv);
    register_module("resample", m_resample);
    if (mode == Mode::Upsample3d)
        m_timeConv = register_module("time_conv", WanCausalConv3d(dim, 2 * dim, 3, 1));
    if (mode == Mode::Downsample3d)
        m_timeConv = register_module("time_conv", WanCausalConv3d(dim, dim, 3, 1));
}

torch::Tensor WanResampleImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto xin = asTypeOf(x, m_conv->weight);  // [B, C, H, W]
    if (m_mode == Mode::Upsample2d || m_mode == Mode::Upsample3d) {
        // nearest-exact 2x picks the same pixels as nearest; it copies, so no rounding point.
        auto up = torch::upsample_nearest2d(xin, {xin.size(2) * 2, xin.size(3) * 2});
        return probes.point(m_name, m_conv->forward(up));  // [B, C / 2, 2H, 2W]
    }
    auto padded = torch::constant_pad_nd(xin, {0, 1, 0, 1}, 0);  // [B, C, H + 1, W + 1]
    return probes.point(m_name, m_conv->forward(padded));        // [B, C, H / 2, W / 2]
}

// ---- MidBlock -----------------------------------------------------------------------------

WanMidBlockImpl::WanMidBlockImpl(int dim, const std::string& path)
    : m_name(path, ProbeLevel::Module, kResidualStream) {  // resnets.1's output stream
    m_resnet0 = WanResidualBlock(dim, dim, path + ".resnets.0", kLayer);
    m_resnet1 = WanResidualBlock(dim, dim, path + ".resnets.1", kLayer);
    m_attention = WanAttentionBlock(dim, path + ".attentions.0", kLayer);
    m_resnets->push_back(m_resnet0);
    m_resnets->push_back(m_resnet1);
    m_attentions->push_back(m_attention);
    register_module("attentions", m_attentions);
    register_module("resnets", m_resnets);
}

torch::Tensor WanMidBlockImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto h = m_resnet0->forward(x, probes);  // [B, C, H, W]
    h = m_attention->forward(h, probes);
    h = m_resnet1->forward(h, probes);
    return probes.point(m_name, h);
}

}  // namespace hs
