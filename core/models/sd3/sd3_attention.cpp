#include "models/sd3/sd3_attention.h"

#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace hs {

torch::Tensor sd3Sdpa(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v) {
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

SD3AttentionImpl::SD3AttentionImpl(int64_t dim, int heads, int headDim, bool qkRmsNorm,
                                   SD3AttentionKind kind, const std::string& path)
    : m_heads(heads),
      m_headDim(headDim),
      m_kind(kind),
      m_out(path, ProbeLevel::Layer),
      m_addOut(path + ".to_add_out", ProbeLevel::Layer),
      m_sdpa(path + ".sdpa", ProbeLevel::Op) {
    const int64_t inner = int64_t(heads) * headDim;
    auto points = [&](const char* q, const char* k, const char* v, const char* nq, const char* nk) {
        auto op = [&](const char* n) { return ProbePoint(path + "." + n, ProbeLevel::Op); };
        return QkvPoints{op(q), op(k), op(v), op(nq), op(nk)};
    };
    m_img = points("to_q", "to_k", "to_v", "norm_q", "norm_k");
    to_q = register_module("to_q", nn::Linear(dim, inner));
    to_k = register_module("to_k", nn::Linear(dim, inner));
    to_v = register_module("to_v", nn::Linear(dim, inner));
    if (qkRmsNorm) {
        norm_q = register_module("norm_q", nn::RMSNorm(headDim, 1e-6));
        norm_k = register_module("norm_k", nn::RMSNorm(headDim, 1e-6));
    }
    if (kind != SD3AttentionKind::Self) {
        m_txt = points("add_q_proj", "add_k_proj", "add_v_proj", "norm_added_q", "norm_added_k");
        add_q_proj = register_module("add_q_proj", nn::Linear(dim, inner));
        add_k_proj = register_module("add_k_proj", nn::Linear(dim, inner));
        add_v_proj = register_module("add_v_proj", nn::Linear(dim, inner));
        if (qkRmsNorm) {
            norm_added_q = register_module("norm_added_q", nn::RMSNorm(headDim, 1e-6));
            norm_added_k = register_module("norm_added_k", nn::RMSNorm(headDim, 1e-6));
        }
    }
    to_out0 = nn::Linear(inner, dim);
    to_out = register_module("to_out", torch::nn::ModuleList());
    to_out->push_back(to_out0);  // to_out.1 is dropout: no parameters
    if (kind == SD3AttentionKind::Joint)
        to_add_out = register_module("to_add_out", nn::Linear(inner, dim));
}

SD3AttentionImpl::Qkv SD3AttentionImpl::project(const torch::Tensor& x, nn::Linear& lq,
                                                nn::Linear& lk, nn::Linear& lv, nn::RMSNorm& nq,
                                                nn::RMSNorm& nk, const QkvPoints& n,
                                                ProbeContext& probes) {
    const int64_t B = x.size(0), L = x.size(1);
    auto heads = [&](const torch::Tensor& t) {
        return t.view({B, L, m_heads, m_headDim}).transpose(1, 2);  // [B, H, L, Dh]
    };
    Qkv r;
    r.q = heads(probes.point(n.q, lq->forward(x)));
    r.k = heads(probes.point(n.k, lk->forward(x)));
    r.v = heads(probes.point(n.v, lv->forward(x)));
    if (!nq.is_empty()) r.q = probes.point(n.nq, nq->forward(r.q));  // [B, H, L, Dh]
    if (!nk.is_empty()) r.k = probes.point(n.nk, nk->forward(r.k));
    return r;
}

SD3AttentionOut SD3AttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& context,
                                          ProbeContext& probes) {
    Qkv s = project(x, to_q, to_k, to_v, norm_q, norm_k, m_img, probes);
    const int64_t B = x.size(0), li = x.size(1);
    if (m_kind != SD3AttentionKind::Self) {
        // JointAttnProcessor2_0: the text stream goes after the image in the joint sequence.
        Qkv t = project(context, add_q_proj, add_k_proj, add_v_proj, norm_added_q, norm_added_k,
                        m_txt, probes);
        s.q = torch::cat({s.q, asTypeOf(t.q, s.q)}, 2);  // [B, H, L_img + L_txt, Dh]
        s.k = torch::cat({s.k, asTypeOf(t.k, s.k)}, 2);
        s.v = torch::cat({s.v, asTypeOf(t.v, s.v)}, 2);
    }
    auto k = asTypeOf(s.k, s.q);
    auto v = asTypeOf(s.v, s.q);
    const int64_t L = s.q.size(2);
    auto o = sd3Sdpa(s.q, k, v);  // [B, H, L, Dh]
    o = o.transpose(1, 2).reshape({B, L, int64_t(m_heads) * m_headDim}).to(s.q.scalar_type());
    o = probes.point(m_sdpa, o);  // [B, L_img (+ L_txt), H * Dh]
    SD3AttentionOut out;
    out.hidden = probes.point(m_out, to_out0->forward(o.narrow(1, 0, li)));  // [B, L_img, D]
    if (m_kind == SD3AttentionKind::Joint)
        out.context = probes.point(m_addOut, to_add_out->forward(o.narrow(1, li, L - li)));
    return out;
}

}  // namespace hs
