#include "families/sd3/sd3_attention.h"

#include <vector>

#include "models/common/attention.h"

namespace hs {

SD3AttentionImpl::SD3AttentionImpl(int64_t dim, int heads, int headDim, bool qkRmsNorm,
                                   SD3AttentionKind kind, const std::string& path)
    : JointAttentionParams({dim, heads, headDim, qkRmsNorm, kind != SD3AttentionKind::Self, true,
                            kind == SD3AttentionKind::Joint},
                           path),
      m_kind(kind),
      m_out(path, ProbeLevel::Layer),
      m_addOut(path + ".to_add_out", ProbeLevel::Layer),
      m_sdpa(path + ".sdpa", ProbeLevel::Op) {}

SD3AttentionOut SD3AttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& context,
                                          ProbeContext& probes) {
    Qkv s = imageQkv(probes, x, true);
    const int64_t B = x.size(0), li = x.size(1);
    if (m_kind != SD3AttentionKind::Self) {
        // JointAttnProcessor2_0: the text stream goes after the image in the joint sequence.
        Qkv t = textQkv(probes, context, true);
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
