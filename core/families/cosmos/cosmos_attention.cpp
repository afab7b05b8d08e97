#include "families/cosmos/cosmos_attention.h"

#include "models/common/attention.h"

namespace hs {

CosmosAttentionImpl::CosmosAttentionImpl(int64_t queryDim, int64_t kvDim, int heads, int headDim,
                                         const std::string& path)
    : m_heads(heads),
      m_headDim(headDim),
      m_out(path, ProbeLevel::Layer),
      m_qkv(path, {"to_q", "to_k", "to_v", "norm_q", "norm_k"}),
      m_ropeQ(path + ".rope_q", ProbeLevel::Op),
      m_ropeK(path + ".rope_k", ProbeLevel::Op),
      m_sdpa(path + ".sdpa", ProbeLevel::Op) {
    const int64_t inner = int64_t(heads) * headDim;
    to_q = register_module("to_q", nn::Linear(queryDim, inner, false));
    to_k = register_module("to_k", nn::Linear(kvDim, inner, false));
    to_v = register_module("to_v", nn::Linear(kvDim, inner, false));
    norm_q = register_module("norm_q", nn::RMSNorm(headDim, 1e-5));
    norm_k = register_module("norm_k", nn::RMSNorm(headDim, 1e-5));
    to_out0 = nn::Linear(inner, queryDim, false);
    to_out = register_module("to_out", torch::nn::ModuleList());
    to_out->push_back(to_out0);  // to_out.1 is dropout: no parameters
}

torch::Tensor CosmosAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& context,
                                           const CosmosRope* rope, ProbeContext& probes) {
    // CosmosAttnProcessor2_0
    const auto& kvIn = context.defined() ? context : x;
    const int64_t B = x.size(0), L = x.size(1), Lk = kvIn.size(1);
    auto heads = [&](const torch::Tensor& t, int64_t n) {
        return t.view({B, n, m_heads, m_headDim});
    };
    auto q = heads(probes.point(m_qkv.q, to_q->forward(x)), L);  // [B, L, H, Dh]
    auto k = heads(probes.point(m_qkv.k, to_k->forward(kvIn)), Lk);
    auto v = heads(probes.point(m_qkv.v, to_v->forward(kvIn)), Lk);
    q = probes.point(m_qkv.nq, norm_q->forward(q));  // [B, L, H, Dh]
    k = probes.point(m_qkv.nk, norm_k->forward(k));  // [B, Lk, H, Dh]
    if (rope) {
        q = probes.point(m_ropeQ, applyCosmosRope(q, *rope));
        k = probes.point(m_ropeK, applyCosmosRope(k, *rope));
    }
    v = asTypeOf(v, q);
    auto o = fusedAttention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2));  // [B,H,L,Dh]
    o = o.transpose(1, 2).reshape({B, L, int64_t(m_heads) * m_headDim}).to(q.scalar_type());
    o = probes.point(m_sdpa, o);                      // [B, L, H * Dh]
    return probes.point(m_out, to_out0->forward(o));  // [B, L, D]
}

}  // namespace hs
