#include "families/flux/flux_blocks.h"

#include "models/common/weights.h"

namespace hs {

// ---- FluxTransformerBlock ----

FluxTransformerBlockImpl::FluxTransformerBlockImpl(int64_t dim, int heads, int headDim,
                                                   const std::string& path)
    : m_path(path) {
    norm1 = register_module("norm1", AdaLayerNormZero(dim, 6, path + ".norm1"));
    norm1_context =
        register_module("norm1_context", AdaLayerNormZero(dim, 6, path + ".norm1_context"));
    attn = register_module("attn", FluxAttention(dim, heads, headDim, true, path + ".attn"));
    ff = register_module("ff", FeedForward(dim, path + ".ff"));
    ff_context = register_module("ff_context", FeedForward(dim, path + ".ff_context"));
    m_img = JointStreamPoints(path, false);
    m_txt = JointStreamPoints(path, true);
}

std::pair<torch::Tensor, torch::Tensor> FluxTransformerBlockImpl::forward(
    const torch::Tensor& hidden, const torch::Tensor& context, const torch::Tensor& temb,
    const RopeTables& rope, ProbeContext& probes) {
    // The residual streams live in this block's format (norm1.linear's dtype).
    const auto& w = norm1->linear->weight;
    auto x = probes.enter(m_path, hidden, w);   // [B, L_img, D]
    auto c = probes.enter(m_path, context, w);  // [B, L_txt, D]
    AdaNormOut n = norm1->forward(x, temb, probes);
    AdaNormOut nc = norm1_context->forward(c, temb, probes);
    FluxAttentionOut a = attn->forward(n.x, nc.x, rope, probes);
    // n.parts: shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp, each [B, D]
    x = gatedResidual(probes, x, n.parts[2], a.hidden, m_img.attnGated, m_img.attnResidual);
    x = jointFeedForwardTail(probes, x, n.parts, ff, m_img);  // [B, L_img, D]
    c = gatedResidual(probes, c, nc.parts[2], a.context, m_txt.attnGated, m_txt.attnResidual);
    c = jointFeedForwardTail(probes, c, nc.parts, ff_context, m_txt);  // [B, L_txt, D], pre-clip
    c = probes.policy().fp16ResidualClip(m_path, c);
    return {c, x};
}

// ---- FluxSingleTransformerBlock ----

FluxSingleTransformerBlockImpl::FluxSingleTransformerBlockImpl(int64_t dim, int heads, int headDim,
                                                               const std::string& path)
    : m_out(path, ProbeLevel::Module, kResidualStream),
      m_projMlp(path + ".proj_mlp", ProbeLevel::Op),
      m_actMlp(path + ".act_mlp", ProbeLevel::Op),
      m_projOut(path + ".proj_out", ProbeLevel::Layer),
      m_gated(path + ".gated", ProbeLevel::Op) {
    const int64_t mlp = 4 * dim;  // mlp_ratio 4.0
    norm = register_module("norm", AdaLayerNormZero(dim, 3, path + ".norm"));
    proj_mlp = register_module("proj_mlp", nn::Linear(dim, mlp));
    proj_out = register_module("proj_out", nn::Linear(dim + mlp, dim));
    attn = register_module("attn", FluxAttention(dim, heads, headDim, false, path + ".attn"));
}

torch::Tensor FluxSingleTransformerBlockImpl::forward(const torch::Tensor& xIn,
                                                      const torch::Tensor& temb,
                                                      const RopeTables& rope,
                                                      ProbeContext& probes) {
    auto x = probes.enter(m_out.name, xIn, norm->linear->weight);  // [B, L, D]
    AdaNormOut n = norm->forward(x, temb, probes);                 // parts: shift, scale, gate
    auto mlp = probes.point(m_projMlp, proj_mlp->forward(n.x));    // [B, L, 4D]
    mlp = probes.point(m_actMlp, geluTanh(mlp));
    auto a = attn->forward(n.x, torch::Tensor(), rope, probes).hidden;  // [B, L, D]
    auto cat = torch::cat({asTypeOf(a, proj_out->weight), asTypeOf(mlp, proj_out->weight)}, 2);
    auto o = probes.point(m_projOut, proj_out->forward(cat));  // [B, L, D]
    auto g = probes.point(m_gated, asTypeOf(n.parts[2], x).unsqueeze(1) * asTypeOf(o, x));
    x = probes.point(m_out, x + g);  // [B, L, D], recorded before the fp16 clip
    return probes.policy().fp16ResidualClip(m_out.name, x);
}

}  // namespace hs
