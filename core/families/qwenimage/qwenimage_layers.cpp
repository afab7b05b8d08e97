#include "families/qwenimage/qwenimage_layers.h"

#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace hs {

namespace {

// rope_params: positions [n] (integers) x 1 / theta^(2k / dim) in float32 -> [n, dim / 2]
torch::Tensor ropeAngles(const torch::Tensor& positions, int64_t dim) {
    auto range = torch::arange(0, dim, 2, torch::kInt64).to(torch::kFloat32).div(double(dim));
    auto inv = 1.0 / torch::pow(10000.0, range);              // [dim / 2]
    return torch::outer(positions.to(torch::kFloat32), inv);  // [n, dim / 2]
}

// Centred positions of scale_rope: -(n - n/2) .. n/2 - 1.
torch::Tensor centred(int64_t n) {
    return torch::arange(-(n - n / 2), n / 2, torch::kInt64);
}

}  // namespace

RopeTables qwenImageRope(const std::vector<int>& axes, const QwenImageShape& s, int64_t textLength,
                         const torch::Device& device) {
    const int64_t F = s.frames, H = s.height, W = s.width;
    auto fa = ropeAngles(torch::arange(F, torch::kInt64), axes[0]).view({F, 1, 1, -1});
    auto ha = ropeAngles(centred(H), axes[1]).view({1, H, 1, -1});
    auto wa = ropeAngles(centred(W), axes[2]).view({1, 1, W, -1});
    auto img =
        torch::cat({fa.expand({F, H, W, -1}), ha.expand({F, H, W, -1}), wa.expand({F, H, W, -1})},
                   3)
            .reshape({F * H * W, -1});  // [L_img, Dh / 2]
    auto textPos = torch::arange(textLength, torch::kInt64) + std::max(H / 2, W / 2);
    std::vector<torch::Tensor> parts;
    for (int d : axes) parts.push_back(ropeAngles(textPos, d));
    auto txt = torch::cat(parts, 1);          // [L_txt, Dh / 2]
    auto angles = torch::cat({txt, img}, 0);  // [L_txt + L_img, Dh / 2]
    return {angles.cos().repeat_interleave(2, 1).to(device),
            angles.sin().repeat_interleave(2, 1).to(device)};  // [L, Dh] x2
}

torch::Tensor maskedAttention(const torch::Tensor& q, const torch::Tensor& k,
                              const torch::Tensor& v, const torch::Tensor& keyMask) {
    if (!keyMask.defined()) return fusedAttention(q, k, v);
    const int64_t B = q.size(0), Lk = k.size(2);
    auto allowed = keyMask.to(q.device(), torch::kBool).view({B, 1, 1, Lk});
#if TORCH_VERSION_MAJOR >= 2
    return at::scaled_dot_product_attention(q, k, v, allowed);
#else
    const auto st = q.scalar_type();
    const bool half = st == torch::kFloat16 || st == torch::kBFloat16;
    auto qf = half ? q.to(torch::kFloat32) : q;                      // [B, H, Lq, D]
    auto kt = (half ? k.to(torch::kFloat32) : k).transpose(-2, -1);  // [B, H, D, Lk]
    auto blocked = allowed.logical_not();                            // [B, 1, 1, Lk]
    const double scale = 1.0 / std::sqrt(double(q.size(-1)));
    auto one = [&](const torch::Tensor& qc) {
        auto s = torch::matmul(qc, kt).mul_(scale);  // [B, H, n, Lk] fp32
        s.masked_fill_(blocked, -std::numeric_limits<float>::infinity());
        return torch::matmul(torch::softmax(s, -1).to(v.scalar_type()), v);  // [B, H, n, D]
    };
    return overQueryChunks(qf, Lk, one);
#endif
}

QwenImageTimeEmbedImpl::QwenImageTimeEmbedImpl(int64_t dim, const std::string& path)
    : m_out(path, ProbeLevel::Layer),
      m_timestep(path + ".timestep", ProbeLevel::Op),
      m_timeProj(path + ".time_proj", ProbeLevel::Op) {
    timestep_embedder = register_module("timestep_embedder",
                                        MlpEmbedder(256, dim, path + ".timestep_embedder", "act"));
}

torch::Tensor QwenImageTimeEmbedImpl::forward(const torch::Tensor& timestep, ProbeContext& probes) {
    const auto& w = timestep_embedder->linear_1->weight;
    // `timestep.to(hidden_states.dtype)` in the model: in bf16, 0.7 -> 0.69921875.
    auto t = probes.point(m_timestep, probes.enter(m_out.name, timestep, w));  // [B]
    auto s = probes.point(m_timeProj,
                          asTypeOf(timestepSinusoid(t, 256, true, 0.0, 1000.0), w));  // [B, 256]
    return probes.point(m_out, timestep_embedder->forward(s, probes));                // [B, D]
}

}  // namespace hs
