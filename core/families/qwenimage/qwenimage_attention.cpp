#include "families/qwenimage/qwenimage_attention.h"

#include "families/qwenimage/qwenimage_layers.h"

namespace hs {

QwenImageAttentionImpl::QwenImageAttentionImpl(int64_t dim, int heads, int headDim,
                                               const std::string& path)
    : JointAttentionParams({dim, heads, headDim, true, true, true, true}, path),
      m_out(path, ProbeLevel::Layer),
      m_addOut(path + ".to_add_out", ProbeLevel::Layer),
      m_ropeQ(path + ".rope_q", ProbeLevel::Op),
      m_ropeK(path + ".rope_k", ProbeLevel::Op),
      m_sdpa(path + ".sdpa", ProbeLevel::Op) {}

QwenImageAttentionOut QwenImageAttentionImpl::forward(const torch::Tensor& img,
                                                      const torch::Tensor& txt,
                                                      const torch::Tensor& textMask,
                                                      const RopeTables& rope,
                                                      ProbeContext& probes) {
    Qkv i = imageQkv(probes, img, false);
    Qkv t = textQkv(probes, txt, false);
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
