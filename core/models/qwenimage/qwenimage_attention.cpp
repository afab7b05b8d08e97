#include "models/qwenimage/qwenimage_attention.h"

#include "models/qwenimage/qwenimage_layers.h"

namespace hs {

QwenImageAttentionImpl::QwenImageAttentionImpl(int64_t dim, int heads, int headDim,
                                               const std::string& path)
    : m_heads(heads),
      m_headDim(headDim),
      m_out(path, ProbeLevel::Layer),
      m_addOut(path + ".to_add_out", ProbeLevel::Layer),
      m_ropeQ(path + ".rope_q", ProbeLevel::Op),
      m_ropeK(path + ".rope_k", ProbeLevel::Op),
      m_sdpa(path + ".sdpa", ProbeLevel::Op) {
    const int64_t inner = int64_t(heads) * headDim;
    m_img = QkvPoints(path, false);
    m_txt = QkvPoints(path, true);
    to_q = register_module("to_q", nn::Linear(dim, inner));
    to_k = register_module("to_k", nn::Linear(dim, inner));
    to_v = register_module("to_v", nn::Linear(dim, inner));
    norm_q = register_module("norm_q", nn::RMSNorm(headDim, 1e-6));
    norm_k = register_module("norm_k", nn::RMSNorm(headDim, 1e-6));
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

QwenImageAttentionOut QwenImageAttentionImpl::forward(const torch::Tensor& img,
                                                      const torch::Tensor& txt,
                                                      const torch::Tensor& textMask,
                                                      const RopeTables& rope,
                                                      ProbeContext& probes) {
    Qkv i =
        projectQkv(probes, img, m_heads, m_headDim, false, to_q, to_k, to_v, norm_q, norm_k, m_img);
    Qkv t = projectQkv(probes, txt, m_heads, m_headDim, false, add_q_proj, add_k_proj, add_v_proj,
                       norm_added_q, norm_added_k, m_txt);
    const int64_t B = img.size(0), lt = txt.size(1), li = img.size(1), L = lt + li;
    // Order [text, image]; RoPE is elementwise, so one table over the joint sequence rotates
    // each stream as the processor does before concatenating.
    auto q = torch::cat({asTypeOf(t.q, i.q), i.q}, 1);  // [B, L, H, Dh]
    auto k = torch::cat({asTypeOf(t.k, i.k), i.k}, 1);
    auto v = torch::cat({asTypeOf(t.v, i.v), i.v}, 1);
    q = probes.point(m_ropeQ, applyRope(q, rope));  // [B, L, H, Dh]
    k = probes.point(m_ropeK, applyRope(k, rope));
    v = asTypeOf(v, q);
    torch::Tensor keyMask;  // [B, L] the text mask, image keys always attended
    if (textMask.defined())
        keyMask = torch::cat({textMask, torch::ones({B, li}, textMask.options())}, 1);
    auto o = maskedAttention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                             keyMask);  // [B, H, L, Dh]
    o = o.transpose(1, 2).reshape({B, L, int64_t(m_heads) * m_headDim}).to(q.scalar_type());
    o = probes.point(m_sdpa, o);  // [B, L, H * Dh]
    QwenImageAttentionOut out;
    out.img = probes.point(m_out, to_out0->forward(o.narrow(1, lt, li)));       // [B, L_img, D]
    out.txt = probes.point(m_addOut, to_add_out->forward(o.narrow(1, 0, lt)));  // [B, L_txt, D]
    return out;
}

}  // namespace hs
