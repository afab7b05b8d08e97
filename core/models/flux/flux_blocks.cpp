#include "models/flux/flux_blocks.h"

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
    auto op = [&](const std::string& n) { return ProbePoint(path + n, ProbeLevel::Op); };
    auto stream = [&](const std::string& n, ProbeLevel l) {
        return ProbePoint(path + n, l, kResidualStream);
    };
    m_img = {op(".attn_gated"),
             stream(".attn_residual", ProbeLevel::Op),
             op(".norm2"),
             op(".ff_gated"),
             stream("", ProbeLevel::Module),
             ModulatePoints(path + ".norm2", {path + ".norm2.modulated", ProbeLevel::Op})};
    m_txt = {op(".context_attn_gated"),
             stream(".context_attn_residual", ProbeLevel::Op),
             op(".norm2_context"),
             op(".context_ff_gated"),
             stream(".context", ProbeLevel::Module),
             ModulatePoints(path + ".norm2_context",
                            {path + ".norm2_context.modulated", ProbeLevel::Op})};
}

torch::Tensor FluxTransformerBlockImpl::tail(torch::Tensor x, const torch::Tensor& attnOut,
                                             const AdaNormOut& n, FeedForward& ffMod,
                                             const StreamPoints& nm, ProbeContext& probes) {
    // n.parts: shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp, each [B, D]
    auto g = probes.point(nm.attnGated,
                          asTypeOf(n.parts[2], x).unsqueeze(1) * asTypeOf(attnOut, x));  // [B,L,D]
    x = probes.point(nm.attnResidual, x + g);                                            // [B,L,D]
    auto h = probes.point(nm.norm2, plainLayerNorm(x));       // norm2(_context)
    h = modulate(probes, nm.mod, h, n.parts[4], n.parts[3]);  // [B, L, D]
    auto f = ffMod->forward(h, probes);                       // [B, L, D]
    g = probes.point(nm.ffGated, asTypeOf(n.parts[5], x).unsqueeze(1) * asTypeOf(f, x));
    return probes.point(nm.out, x + g);  // [B, L, D]
}

std::pair<torch::Tensor, torch::Tensor> FluxTransformerBlockImpl::forward(
    const torch::Tensor& hidden, const torch::Tensor& context, const torch::Tensor& temb,
    const FluxRope& rope, ProbeContext& probes) {
    // The residual streams live in this block's format (norm1.linear's dtype).
    const auto& w = norm1->linear->weight;
    auto x = probes.enter(m_path, hidden, w);   // [B, L_img, D]
    auto c = probes.enter(m_path, context, w);  // [B, L_txt, D]
    AdaNormOut n = norm1->forward(x, temb, probes);
    AdaNormOut nc = norm1_context->forward(c, temb, probes);
    FluxAttentionOut a = attn->forward(n.x, nc.x, rope, probes);
    x = tail(x, a.hidden, n, ff, m_img, probes);            // [B, L_img, D]
    c = tail(c, a.context, nc, ff_context, m_txt, probes);  // [B, L_txt, D], recorded pre-clip
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
                                                      const FluxRope& rope, ProbeContext& probes) {
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
