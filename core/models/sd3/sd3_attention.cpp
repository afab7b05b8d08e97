#include "models/sd3/sd3_attention.h"

#include <vector>

#include "models/common/attention.h"

namespace hs {

SD3AttentionImpl::SD3AttentionImpl(int64_t dim, int heads, int headDim, bool qkRmsNorm,
                                   SD3AttentionKind kind, const std::string& path)
    : m_heads(heads),
      m_headDim(headDim),
      m_kind(kind),
      m_out(path, ProbeLevel::Layer),
      m_addOut(path + ".to_add_out", ProbeLevel::Layer),
      m_sdpa(path + ".sdpa", ProbeLevel::Op) {
    const int64_t inner = int64_t(heads) * headDim;
    m_img = QkvPoints(path, false);
    to_q = register_module("to_q", nn::Linear(dim, inner));
    to_k = register_module("to_k", nn::Linear(dim, inner));
    to_v = register_module("to_v", nn::Linear(dim, inner));
    if (qkRmsNorm) {
        norm_q = register_module("norm_q", nn::RMSNorm(headDim, 1e-6));
        norm_k = register_module("norm_k", nn::RMSNorm(headDim, 1e-6));
    }
    if (kind != SD3AttentionKind::Self) {
        m_txt = QkvPoints(path, true);
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

SD3AttentionOut SD3AttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& context,
                                          ProbeContext& probes) {
    Qkv s =
        projectQkv(probes, x, m_heads, m_headDim, true, to_q, to_k, to_v, norm_q, norm_k, m_img);
    const int64_t B = x.size(0), li = x.size(1);
    if (m_kind != SD3AttentionKind::Self) {
        // JointAttnProcessor2_0: the text stream goes after the image in the joint sequence.
        Qkv t = projectQkv(probes, context, m_heads, m_headDim, true, add_q_proj, add_k_proj,
                           add_v_proj, norm_added_q, norm_added_k, m_txt);
        s.q = torch::cat({s.q, asTypeOf(t.q, s.q)}, 2);  // [B, H, L_img + L_txt, Dh]
        s.k = torch::cat({s.k, asTypeOf(t.k, s.k)}, 2);
        s.v = torch::cat({s.v, asTypeOf(t.v, s.v)}, 2);
    }
    auto k = asTypeOf(s.k, s.q);
    auto v = asTypeOf(s.v, s.q);
    const int64_t L = s.q.size(2);
    auto o = fusedAttention(s.q, k, v);  // [B, H, L, Dh]
    o = o.transpose(1, 2).reshape({B, L, int64_t(m_heads) * m_headDim}).to(s.q.scalar_type());
    o = probes.point(m_sdpa, o);  // [B, L_img (+ L_txt), H * Dh]
    SD3AttentionOut out;
    out.hidden = probes.point(m_out, to_out0->forward(o.narrow(1, 0, li)));  // [B, L_img, D]
    if (m_kind == SD3AttentionKind::Joint)
        out.context = probes.point(m_addOut, to_add_out->forward(o.narrow(1, li, L - li)));
    return out;
}

}  // namespace hs
