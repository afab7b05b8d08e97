#include "families/sd3/sd3_block.h"

namespace hs {

SD3JointBlockImpl::SD3JointBlockImpl(int64_t dim, int heads, int headDim, const SD3BlockOptions& o,
                                     const std::string& path)
    : m_path(path),
      m_options(o),
      m_attn2Gated(path + ".attn2_gated", ProbeLevel::Op),
      m_attn2Residual(path + ".attn2_residual", ProbeLevel::Op, kResidualStream) {
    norm1 =
        register_module("norm1", AdaLayerNormZero(dim, o.dualAttention ? 9 : 6, path + ".norm1"));
    if (o.contextPreOnly)
        norm1_context_pre_only =
            register_module("norm1_context", AdaLayerNormContinuous(dim, path + ".norm1_context"));
    else
        norm1_context =
            register_module("norm1_context", AdaLayerNormZero(dim, 6, path + ".norm1_context"));
    attn = register_module("attn",
                           SD3Attention(dim, heads, headDim, o.qkRmsNorm,
                                        o.contextPreOnly ? SD3AttentionKind::JointContextPreOnly
                                                         : SD3AttentionKind::Joint,
                                        path + ".attn"));
    if (o.dualAttention)
        attn2 = register_module("attn2", SD3Attention(dim, heads, headDim, o.qkRmsNorm,
                                                      SD3AttentionKind::Self, path + ".attn2"));
    ff = register_module("ff", FeedForward(dim, path + ".ff"));
    if (!o.contextPreOnly)
        ff_context = register_module("ff_context", FeedForward(dim, path + ".ff_context"));

    m_img = JointStreamPoints(path, false);
    m_txt = JointStreamPoints(path, true);
}

std::pair<torch::Tensor, torch::Tensor> SD3JointBlockImpl::forward(const torch::Tensor& hidden,
                                                                   const torch::Tensor& context,
                                                                   const torch::Tensor& temb,
                                                                   ProbeContext& probes) {
    // The residual streams live in this block's format (norm1.linear's dtype).
    const auto& w = norm1->linear->weight;
    auto x = probes.enter(m_path, hidden, w);   // [B, L_img, D]
    auto c = probes.enter(m_path, context, w);  // [B, L_txt, D]
    AdaNormOut n = norm1->forward(x, temb, probes);
    AdaNormOut nc;
    if (m_options.contextPreOnly)
        nc.x = norm1_context_pre_only->forward(c, temb, probes);
    else
        nc = norm1_context->forward(c, temb, probes);
    SD3AttentionOut a = attn->forward(n.x, nc.x, probes);
    x = gatedResidual(probes, x, n.parts[2], a.hidden, m_img.attnGated, m_img.attnResidual);
    if (m_options.dualAttention) {
        auto a2 = attn2->forward(n.x2, torch::Tensor(), probes).hidden;  // [B, L_img, D]
        x = gatedResidual(probes, x, n.parts[8], a2, m_attn2Gated, m_attn2Residual);
    }
    x = jointFeedForwardTail(probes, x, n.parts, ff, m_img);  // [B, L_img, D]
    if (m_options.contextPreOnly) return {torch::Tensor(), x};
    c = gatedResidual(probes, c, nc.parts[2], a.context, m_txt.attnGated, m_txt.attnResidual);
    c = jointFeedForwardTail(probes, c, nc.parts, ff_context, m_txt);  // [B, L_txt, D]
    return {c, x};
}

}  // namespace hs
