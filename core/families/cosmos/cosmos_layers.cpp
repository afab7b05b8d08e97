#include "families/cosmos/cosmos_layers.h"

#include <cmath>

namespace hs {

// ---- CosmosRotaryPosEmbed ----

CosmosRope cosmosRope(const CosmosConfig& c, int64_t t, int64_t h, int64_t w,
                      const torch::Device& device) {
    const int64_t hd = c.attentionHeadDim;
    const int64_t dimH = hd / 6 * 2, dimW = hd / 6 * 2, dimT = hd - dimH - dimW;
    auto f32 = torch::TensorOptions().dtype(torch::kFloat32);
    // 1 / theta^(arange(0, d, 2) / d) with theta = 10000 * scale^(d / (d - 2)), in float32
    auto freqs = [&](int64_t d, double scale) {
        const double theta = 10000.0 * std::pow(scale, double(d) / double(d - 2));
        auto range = torch::arange(0, d, 2, f32).slice(0, 0, d / 2) / double(d);  // [d/2]
        return torch::reciprocal(torch::pow(theta, range));                       // [d/2]
    };
    auto seq = torch::arange(int64_t(c.maxPatchedPositions()), f32);
    auto embT = torch::outer(seq.slice(0, 0, t), freqs(dimT, c.ropeScale[0]));  // [t, dimT/2]
    auto embH = torch::outer(seq.slice(0, 0, h), freqs(dimH, c.ropeScale[1]));  // [h, dimH/2]
    auto embW = torch::outer(seq.slice(0, 0, w), freqs(dimW, c.ropeScale[2]));  // [w, dimW/2]
    embT = embT.view({t, 1, 1, -1}).expand({t, h, w, dimT / 2});
    embH = embH.view({1, h, 1, -1}).expand({t, h, w, dimH / 2});
    embW = embW.view({1, 1, w, -1}).expand({t, h, w, dimW / 2});
    auto angles = torch::cat({embT, embH, embW, embT, embH, embW}, -1).reshape({t * h * w, hd});
    return {torch::cos(angles).to(device), torch::sin(angles).to(device)};  // [S, hd] each
}

torch::Tensor applyCosmosRope(const torch::Tensor& x, const CosmosRope& rope) {
    const int64_t L = x.size(1), D = x.size(3);
    auto xf = x.to(torch::kFloat32);  // [B, L, H, D]
    auto re = xf.narrow(3, 0, D / 2), im = xf.narrow(3, D / 2, D / 2);
    auto rotated = torch::cat({-im, re}, 3);  // [B, L, H, D]
    auto cos = rope.cos.view({1, L, 1, D}), sin = rope.sin.view({1, L, 1, D});
    return (xf * cos + rotated * sin).to(x.scalar_type());
}

torch::Tensor cosmosLayerNorm(const torch::Tensor& x) {
    if (x.scalar_type() != torch::kBFloat16 || !x.device().is_cpu()) return plainLayerNorm(x);
    return plainLayerNorm(x.to(torch::kFloat32)).to(torch::kBFloat16);
}

// ---- CosmosAdaLayerNormZero / CosmosAdaLayerNorm ----

CosmosAdaNormImpl::CosmosAdaNormImpl(int64_t dim, int64_t loraDim, int chunks,
                                     const std::string& path)
    : m_dim(dim),
      m_chunks(chunks),
      m_act(path + ".activation", ProbeLevel::Op),
      m_l1(path + ".linear_1", ProbeLevel::Op),
      m_l2(path + ".linear_2", ProbeLevel::Op),
      m_sum(path + ".temb_sum", ProbeLevel::Op),
      m_norm(path + ".norm", ProbeLevel::Op),
      m_mod(path, {path, ProbeLevel::Layer}) {
    linear_1 = register_module("linear_1", nn::Linear(dim, loraDim, false));
    linear_2 = register_module("linear_2", nn::Linear(loraDim, chunks * dim, false));
}

CosmosAdaNormOut CosmosAdaNormImpl::forward(const torch::Tensor& x, const torch::Tensor& emb,
                                            const torch::Tensor& temb, ProbeContext& probes) {
    auto e = probes.point(m_act, torch::silu(asTypeOf(emb, linear_1->weight)));  // [B, D]
    e = probes.point(m_l1, linear_1->forward(e));                                // [B, lora]
    e = probes.point(m_l2, linear_2->forward(e));                                // [B, chunks * D]
    auto t = asTypeOf(temb.narrow(-1, 0, m_chunks * m_dim), e);  // temb[..., :chunks * D]
    e = probes.point(m_sum, e + t);
    auto parts = e.chunk(m_chunks, -1);  // shift, scale (, gate), each [B, D]
    auto xn = probes.point(m_norm, cosmosLayerNorm(asTypeOf(x, linear_1->weight)));  // [B, L, D]
    CosmosAdaNormOut out;
    out.x = modulate(probes, m_mod, xn, parts[1], parts[0]);  // [B, L, D]
    if (m_chunks == 3) out.gate = parts[2];
    return out;
}

// ---- CosmosEmbedding ----

CosmosTimestepEmbeddingImpl::CosmosTimestepEmbeddingImpl(int64_t dim) {
    linear_1 = register_module("linear_1", nn::Linear(dim, dim, false));
    linear_2 = register_module("linear_2", nn::Linear(dim, 3 * dim, false));
}

CosmosTimeEmbedImpl::CosmosTimeEmbedImpl(int64_t dim, const std::string& path)
    : m_dim(dim),
      m_path(path),
      m_proj(path + ".time_proj", ProbeLevel::Op),
      m_l1(path + ".t_embedder.linear_1", ProbeLevel::Op),
      m_act(path + ".t_embedder.activation", ProbeLevel::Op),
      m_temb(path + ".t_embedder", ProbeLevel::Layer),
      m_norm(path + ".norm", ProbeLevel::Layer) {
    t_embedder = register_module("t_embedder", CosmosTimestepEmbedding(dim));
    norm = register_module("norm", nn::RMSNorm(dim, 1e-6));
}

CosmosTimeEmbedding CosmosTimeEmbedImpl::forward(const torch::Tensor& timestep,
                                                 ProbeContext& probes) {
    const auto& w = t_embedder->linear_1->weight;
    // The pipeline hands the timestep over in the transformer's dtype.
    auto t = probes.enter(m_path, timestep, w);                                   // [B]
    auto s = probes.point(m_proj, asTypeOf(timestepSinusoid(t, int(m_dim)), w));  // [B, D]
    CosmosTimeEmbedding out;
    auto h = probes.point(m_l1, t_embedder->linear_1->forward(s));  // [B, D]
    h = probes.point(m_act, torch::silu(h));
    out.temb = probes.point(m_temb, t_embedder->linear_2->forward(h));  // [B, 3D]
    out.emb = probes.point(m_norm, norm->forward(s));                   // [B, D]
    return out;
}

}  // namespace hs
