#include "families/cosmos/cosmos_block.h"

namespace hs {

CosmosTransformerBlockImpl::CosmosTransformerBlockImpl(const CosmosConfig& c,
                                                       const std::string& path)
    : m_path(path),
      m_out(path, ProbeLevel::Module, kResidualStream),
      m_attn1Gated(path + ".attn1_gated", ProbeLevel::Op),
      m_attn1Residual(path + ".attn1_residual", ProbeLevel::Layer, kResidualStream),
      m_attn2Gated(path + ".attn2_gated", ProbeLevel::Op),
      m_attn2Residual(path + ".attn2_residual", ProbeLevel::Layer, kResidualStream),
      m_ffGated(path + ".ff_gated", ProbeLevel::Op) {
    const int64_t dim = c.innerDim(), lora = c.adalnLoraDim;
    const int heads = c.numAttentionHeads, hd = c.attentionHeadDim;
    norm1 = register_module("norm1", CosmosAdaNorm(dim, lora, 3, path + ".norm1"));
    attn1 = register_module("attn1", CosmosAttention(dim, dim, heads, hd, path + ".attn1"));
    norm2 = register_module("norm2", CosmosAdaNorm(dim, lora, 3, path + ".norm2"));
    attn2 =
        register_module("attn2", CosmosAttention(dim, c.textEmbedDim, heads, hd, path + ".attn2"));
    norm3 = register_module("norm3", CosmosAdaNorm(dim, lora, 3, path + ".norm3"));
    ff = register_module(
        "ff", FeedForward(dim, c.ffDim(), GeluKind::Exact, /*bias=*/false, path + ".ff"));
}

torch::Tensor CosmosTransformerBlockImpl::forward(const torch::Tensor& xIn,
                                                  const torch::Tensor& textIn,
                                                  const torch::Tensor& emb,
                                                  const torch::Tensor& temb, const CosmosRope& rope,
                                                  ProbeContext& probes) {
    // The residual stream lives in this block's format (norm1.linear_1's dtype).
    auto x = probes.enter(m_path, xIn, norm1->linear_1->weight);    // [B, L, D]
    auto text = probes.enter(m_path, textIn, attn2->to_k->weight);  // [B, L_txt, C]
    auto gated = [&](const ProbePoint& p, const torch::Tensor& gate, const torch::Tensor& y) {
        return probes.point(p, asTypeOf(gate, x).unsqueeze(1) * asTypeOf(y, x));  // [B, L, D]
    };

    CosmosAdaNormOut n = norm1->forward(x, emb, temb, probes);
    auto a = attn1->forward(n.x, torch::Tensor(), &rope, probes);  // [B, L, D]
    x = probes.point(m_attn1Residual, x + gated(m_attn1Gated, n.gate, a));

    n = norm2->forward(x, emb, temb, probes);
    a = attn2->forward(n.x, text, nullptr, probes);  // [B, L, D]
    x = probes.point(m_attn2Residual, x + gated(m_attn2Gated, n.gate, a));

    n = norm3->forward(x, emb, temb, probes);
    auto f = ff->forward(n.x, probes);                            // [B, L, D]
    return probes.point(m_out, x + gated(m_ffGated, n.gate, f));  // [B, L, D]
}

}  // namespace hs
