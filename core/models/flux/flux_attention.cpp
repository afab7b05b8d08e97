#include "models/flux/flux_attention.h"

#include <torch/version.h>

#include <algorithm>
#include <cmath>

#include "models/common/weights.h"

namespace hs {

FluxRope fluxRope(const torch::Tensor& ids, const std::vector<int>& axesDims, double theta) {
    TORCH_CHECK(ids.dim() == 2 && ids.size(1) == int64_t(axesDims.size()), "ids must be [L, ",
                axesDims.size(), "], got ", ids.sizes());
    auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
    auto pos = ids.detach().to(torch::kCPU).to(torch::kFloat32).to(torch::kFloat64);  // [L, n]
    std::vector<torch::Tensor> cosParts, sinParts;
    for (size_t i = 0; i < axesDims.size(); ++i) {
        const int64_t d = axesDims[i];
        // diffusers get_1d_rotary_pos_embed(d, pos, theta, use_real, repeat_interleave_real)
        auto freqs =
            1.0 / torch::pow(theta, torch::arange(0, d, 2, f64).slice(0, 0, d / 2) / double(d));
        auto angles = torch::outer(pos.select(1, int64_t(i)), freqs);  // [L, d/2] float64
        cosParts.push_back(angles.cos().repeat_interleave(2, 1).to(torch::kFloat32));  // [L, d]
        sinParts.push_back(angles.sin().repeat_interleave(2, 1).to(torch::kFloat32));
    }
    return {torch::cat(cosParts, 1).to(ids.device()), torch::cat(sinParts, 1).to(ids.device())};
}

torch::Tensor applyRope(const torch::Tensor& x, const FluxRope& rope) {
    const int64_t L = x.size(1), D = x.size(3);
    auto xf = x.to(torch::kFloat32);  // [B, L, H, D]
    auto pairs = xf.reshape({x.size(0), L, x.size(2), D / 2, 2});
    auto rotated = torch::stack({-pairs.select(-1, 1), pairs.select(-1, 0)}, -1).flatten(3);
    auto cos = rope.cos.to(xf.device()).view({1, L, 1, D});
    auto sin = rope.sin.to(xf.device()).view({1, L, 1, D});
    return (xf * cos + rotated * sin).to(x.scalar_type());  // [B, L, H, D]
}

torch::Tensor fusedAttention(const torch::Tensor& q, const torch::Tensor& k,
                             const torch::Tensor& v) {
#if TORCH_VERSION_MAJOR >= 2
    return at::scaled_dot_product_attention(q, k, v);
#else
    const auto st = q.scalar_type();
    const bool half = st == torch::kFloat16 || st == torch::kBFloat16;
    auto qf = half ? q.to(torch::kFloat32) : q;                      // [B, H, Lq, D]
    auto kt = (half ? k.to(torch::kFloat32) : k).transpose(-2, -1);  // [B, H, D, Lk]
    const double scale = 1.0 / std::sqrt(double(q.size(-1)));
    auto one = [&](const torch::Tensor& qc) {
        auto s = torch::matmul(qc, kt).mul_(scale);  // [B, H, n, Lk] fp32
        auto p = torch::softmax(s, -1);
        return torch::matmul(p.to(v.scalar_type()), v);  // [B, H, n, D]
    };
    const int64_t Lq = q.size(2);
    const int64_t perRow = std::max<int64_t>(1, q.size(0) * q.size(1) * k.size(2));
    const int64_t rows = std::max<int64_t>(1, (int64_t(256) << 20) / 4 / perRow);
    if (rows >= Lq) return one(qf);
    std::vector<torch::Tensor> outs;
    for (int64_t r = 0; r < Lq; r += rows)
        outs.push_back(one(qf.narrow(2, r, std::min(rows, Lq - r))));
    return torch::cat(outs, 2);
#endif
}

FluxAttentionImpl::FluxAttentionImpl(int64_t dim, int heads, int headDim, bool joint,
                                     const std::string& path)
    : m_heads(heads),
      m_headDim(headDim),
      m_joint(joint),
      m_out(path, ProbeLevel::Layer),
      m_ropeQ(path + ".rope_q", ProbeLevel::Op),
      m_ropeK(path + ".rope_k", ProbeLevel::Op),
      m_sdpa(path + ".sdpa", ProbeLevel::Op),
      m_addOut(path + ".to_add_out", ProbeLevel::Layer) {
    const int64_t inner = int64_t(heads) * headDim;
    auto points = [&](const char* q, const char* k, const char* v, const char* nq, const char* nk) {
        auto op = [&](const char* n) { return ProbePoint(path + "." + n, ProbeLevel::Op); };
        return QkvPoints{op(q), op(k), op(v), op(nq), op(nk)};
    };
    m_img = points("to_q", "to_k", "to_v", "norm_q", "norm_k");
    to_q = register_module("to_q", nn::Linear(dim, inner));
    to_k = register_module("to_k", nn::Linear(dim, inner));
    to_v = register_module("to_v", nn::Linear(dim, inner));
    norm_q = register_module("norm_q", nn::RMSNorm(headDim, 1e-6));
    norm_k = register_module("norm_k", nn::RMSNorm(headDim, 1e-6));
    if (!joint) return;
    m_txt = points("add_q_proj", "add_k_proj", "add_v_proj", "norm_added_q", "norm_added_k");
    add_q_proj = register_module("add_q_proj", nn::Linear(dim, inner));
    add_k_proj = register_module("add_k_proj", nn::Linear(dim, inner));
    add_v_proj = register_module("add_v_proj", nn::Linear(dim, inner));
    norm_added_q = register_module("norm_added_q", nn::RMSNorm(headDim, 1e-6));
    norm_added_k = register_module("norm_added_k", nn::RMSNorm(headDim, 1e-6));
    to_out0 = nn::Linear(inner, dim);
    to_out = register_module("to_out", torch::nn::ModuleList());
    to_out->push_back(to_out0);  // to_out.1 is dropout: no parameters
    to_add_out = register_module("to_add_out", nn::Linear(inner, dim));
}

FluxAttentionImpl::Qkv FluxAttentionImpl::project(const torch::Tensor& x, nn::Linear& lq,
                                                  nn::Linear& lk, nn::Linear& lv, nn::RMSNorm& nq,
                                                  nn::RMSNorm& nk, const QkvPoints& n,
                                                  ProbeContext& probes) {
    const int64_t B = x.size(0), L = x.size(1);
    auto heads = [&](const torch::Tensor& t) { return t.view({B, L, m_heads, m_headDim}); };
    Qkv r;
    r.q = heads(probes.point(n.q, lq->forward(x)));  // [B, L, H, Dh]
    r.k = heads(probes.point(n.k, lk->forward(x)));
    r.v = heads(probes.point(n.v, lv->forward(x)));
    r.q = probes.point(n.nq, nq->forward(r.q));  // [B, L, H, Dh]
    r.k = probes.point(n.nk, nk->forward(r.k));
    return r;
}

FluxAttentionOut FluxAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& context,
                                            const FluxRope& rope, ProbeContext& probes) {
    Qkv s = project(x, to_q, to_k, to_v, norm_q, norm_k, m_img, probes);
    int64_t lt = 0;
    if (m_joint) {
        // FluxAttnProcessor2_0: the text stream goes first in the joint sequence.
        Qkv t = project(context, add_q_proj, add_k_proj, add_v_proj, norm_added_q, norm_added_k,
                        m_txt, probes);
        lt = context.size(1);
        s.q = torch::cat({asTypeOf(t.q, s.q), s.q}, 1);  // [B, L_txt + L_img, H, Dh]
        s.k = torch::cat({asTypeOf(t.k, s.k), s.k}, 1);
        s.v = torch::cat({asTypeOf(t.v, s.v), s.v}, 1);
    }
    auto q = probes.point(m_ropeQ, applyRope(s.q, rope));  // [B, L, H, Dh]
    auto k = probes.point(m_ropeK, applyRope(s.k, rope));
    auto v = asTypeOf(s.v, q);
    const int64_t B = q.size(0), L = q.size(1);
    auto o = fusedAttention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2));  // [B,H,L,Dh]
    o = o.transpose(1, 2).reshape({B, L, int64_t(m_heads) * m_headDim}).to(q.scalar_type());
    FluxAttentionOut out;
    if (!m_joint) {
        out.hidden = probes.point(m_out, o);  // [B, L, D]
        return out;
    }
    o = probes.point(m_sdpa, o);                                     // [B, L_txt + L_img, H * Dh]
    auto ctx = o.narrow(1, 0, lt);                                   // [B, L_txt, H * Dh]
    auto img = o.narrow(1, lt, L - lt);                              // [B, L_img, H * Dh]
    out.hidden = probes.point(m_out, to_out0->forward(img));         // [B, L_img, D]
    out.context = probes.point(m_addOut, to_add_out->forward(ctx));  // [B, L_txt, D]
    return out;
}

}  // namespace hs
