#include "models/sd3/sd3_block.h"

namespace hs {

SD3JointBlockImpl::SD3JointBlockImpl(int64_t dim, int heads, int headDim, const SD3BlockOptions& o,
                                     const std::string& path)
    : m_path(path),
      m_options(o),
      m_attn2Gated(path + ".attn2_gated", ProbeLevel::Op),
      m_attn2Residual(path + ".attn2_residual", ProbeLevel::Op, kResidualStream) {
    norm1 = register_module("norm1",
                            SD3AdaLayerNormZero(dim, o.dualAttention ? 9 : 6, path + ".norm1"));
    if (o.contextPreOnly)
        norm1_context_pre_only = register_module(
            "norm1_context", SD3AdaLayerNormContinuous(dim, path + ".norm1_context"));
    else
        norm1_context =
            register_module("norm1_context", SD3AdaLayerNormZero(dim, 6, path + ".norm1_context"));
    attn = register_module("attn",
                           SD3Attention(dim, heads, headDim, o.qkRmsNorm,
                                        o.contextPreOnly ? SD3AttentionKind::JointContextPreOnly
                                                         : SD3AttentionKind::Joint,
                                        path + ".attn"));
    if (o.dualAttention)
        attn2 = register_module("attn2", SD3Attention(dim, heads, headDim, o.qkRmsNorm,
                                                      SD3AttentionKind::Self, path + ".attn2"));
    ff = register_module("ff", SD3FeedForward(dim, path + ".ff"));
    if (!o.contextPreOnly)
        ff_context = register_module("ff_context", SD3FeedForward(dim, path + ".ff_context"));

    auto op = [&](const std::string& n) { return ProbePoint(path + n, ProbeLevel::Op); };
    auto stream = [&](const std::string& n, ProbeLevel l) {
        return ProbePoint(path + n, l, kResidualStream);
    };
    m_img = {op(".attn_gated"),
             stream(".attn_residual", ProbeLevel::Op),
             op(".norm2"),
             op(".ff_gated"),
             stream("", ProbeLevel::Module),
             SD3ModulatePoints(path + ".norm2", {path + ".norm2.modulated", ProbeLevel::Op})};
    m_txt = {op(".context_attn_gated"),
             stream(".context_attn_residual", ProbeLevel::Op),
             op(".norm2_context"),
             op(".context_ff_gated"),
             stream(".context", ProbeLevel::Module),
             SD3ModulatePoints(path + ".norm2_context",
                               {path + ".norm2_context.modulated", ProbeLevel::Op})};
}

torch::Tensor SD3JointBlockImpl::gatedResidual(const torch::Tensor& x, const torch::Tensor& gate,
                                               const torch::Tensor& branch, const ProbePoint& gated,
                                               const ProbePoint& residual, ProbeContext& probes) {
    // x + gate.unsqueeze(1) * branch
    auto g = probes.point(gated, asTypeOf(gate, x).unsqueeze(1) * asTypeOf(branch, x));
    return probes.point(residual, x + g);  // [B, L, D]
}

torch::Tensor SD3JointBlockImpl::ffTail(torch::Tensor x, const std::vector<torch::Tensor>& parts,
                                        SD3FeedForward& ffMod, const StreamPoints& p,
                                        ProbeContext& probes) {
    // parts: shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp, each [B, D]
    auto h = probes.point(p.norm2, sd3LayerNorm(x));        // norm2(_context)
    h = sd3Modulate(probes, p.mod, h, parts[4], parts[3]);  // [B, L, D]
    auto f = ffMod->forward(h, probes);                     // [B, L, D]
    return gatedResidual(x, parts[5], f, p.ffGated, p.out, probes);
}

std::pair<torch::Tensor, torch::Tensor> SD3JointBlockImpl::forward(const torch::Tensor& hidden,
                                                                   const torch::Tensor& context,
                                                                   const torch::Tensor& temb,
                                                                   ProbeContext& probes) {
    // The residual streams live in this block's format (norm1.linear's dtype).
    const auto& w = norm1->linear->weight;
    auto x = probes.enter(m_path, hidden, w);   // [B, L_img, D]
    auto c = probes.enter(m_path, context, w);  // [B, L_txt, D]
    SD3AdaNormOut n = norm1->forward(x, temb, probes);
    SD3AdaNormOut nc;
    if (m_options.contextPreOnly)
        nc.x = norm1_context_pre_only->forward(c, temb, probes);
    else
        nc = norm1_context->forward(c, temb, probes);
    SD3AttentionOut a = attn->forward(n.x, nc.x, probes);
    x = gatedResidual(x, n.parts[2], a.hidden, m_img.attnGated, m_img.attnResidual, probes);
    if (m_options.dualAttention) {
        auto a2 = attn2->forward(n.x2, torch::Tensor(), probes).hidden;  // [B, L_img, D]
        x = gatedResidual(x, n.parts[8], a2, m_attn2Gated, m_attn2Residual, probes);
    }
    x = ffTail(x, n.parts, ff, m_img, probes);  // [B, L_img, D]
    if (m_options.contextPreOnly) return {torch::Tensor(), x};
    c = gatedResidual(c, nc.parts[2], a.context, m_txt.attnGated, m_txt.attnResidual, probes);
    c = ffTail(c, nc.parts, ff_context, m_txt, probes);  // [B, L_txt, D]
    return {c, x};
}

}  // namespace hs
