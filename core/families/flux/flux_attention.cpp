#include "families/flux/flux_attention.h"

#include <torch/version.h>

#include <algorithm>
#include <cmath>

#include "models/common/weights.h"

namespace hs {

RopeTables fluxRope(const torch::Tensor& ids, const std::vector<int>& axesDims, double theta) {
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

FluxAttentionImpl::FluxAttentionImpl(int64_t dim, int heads, int headDim, bool joint,
                                     const std::string& path)
    : JointAttentionParams({dim, heads, headDim, true, joint, joint, joint}, path),
      m_joint(joint),
      m_out(path, ProbeLevel::Layer),
      m_ropeQ(path + ".rope_q", ProbeLevel::Op),
      m_ropeK(path + ".rope_k", ProbeLevel::Op),
      m_sdpa(path + ".sdpa", ProbeLevel::Op),
      m_addOut(path + ".to_add_out", ProbeLevel::Layer) {}

FluxAttentionOut FluxAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& context,
                                            const RopeTables& rope, ProbeContext& probes) {
    Qkv s = imageQkv(probes, x, false);
    int64_t lt = 0;
    if (m_joint) {
        // FluxAttnProcessor2_0: the text stream goes first in the joint sequence.
        Qkv t = textQkv(probes, context, false);
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
