#include "families/anima/anima_adapter.h"

#include <cmath>

namespace hs {

namespace {

// AnimaRotaryEmbedding(head_dim, theta 10000) at positions 0..n-1: cos and sin [n, head_dim],
// [freqs | freqs] along the head, float32.
CosmosRope animaRope(int64_t n, int64_t headDim, const torch::Device& device) {
    auto f32 = torch::TensorOptions().dtype(torch::kFloat32);
    auto range = torch::arange(0, headDim, 2, torch::kInt64).to(torch::kFloat32) / double(headDim);
    auto invFreq = torch::reciprocal(torch::pow(10000.0, range));  // [Dh/2]
    auto freqs = torch::outer(torch::arange(n, f32), invFreq);     // [n, Dh/2]
    auto emb = torch::cat({freqs, freqs}, 1);                      // [n, Dh]
    return {emb.cos().to(device), emb.sin().to(device)};
}

// softmax(q k^T / sqrt(D) masked) v: q [B, H, L, D], k and v [B, H, S, D], keyMask [B, S] bool
// (true: attend) or undefined. Scores and softmax in float32, probabilities cast to v's dtype.
// A sample whose mask keeps no key attends to nothing and gets zeros, as PyTorch's SDPA does
// since 2.5 (its "safe softmax"): the Anima pipeline's empty negative prompt is one Qwen token
// with mask 0.
torch::Tensor maskedAttention(const torch::Tensor& q, const torch::Tensor& k,
                              const torch::Tensor& v, const torch::Tensor& keyMask) {
    auto s = torch::matmul(q.to(torch::kFloat32), k.to(torch::kFloat32).transpose(-2, -1));
    s.mul_(1.0 / std::sqrt(double(q.size(-1))));  // [B, H, L, S]
    if (!keyMask.defined()) return torch::matmul(torch::softmax(s, -1).to(v.scalar_type()), v);
    const int64_t B = keyMask.size(0);
    s.masked_fill_(keyMask.logical_not().view({B, 1, 1, keyMask.size(1)}),
                   -std::numeric_limits<float>::infinity());
    auto p = torch::softmax(s, -1).masked_fill(keyMask.logical_not().all(1).view({B, 1, 1, 1}), 0);
    return torch::matmul(p.to(v.scalar_type()), v);  // [B, H, L, D]
}

}  // namespace

// ---- AnimaTextConditionerAttention ----

AnimaAttentionImpl::AnimaAttentionImpl(int64_t dim, int64_t contextDim, int heads,
                                       const std::string& path)
    : m_heads(heads),
      m_headDim(dim / heads),
      m_out(path, ProbeLevel::Layer),
      m_qkv(path, {"q_proj", "k_proj", "v_proj", "q_norm", "k_norm"}),
      m_ropeQ(path + ".rope_q", ProbeLevel::Op),
      m_ropeK(path + ".rope_k", ProbeLevel::Op),
      m_sdpa(path + ".sdpa", ProbeLevel::Op) {
    q_proj = register_module("q_proj", nn::Linear(dim, dim, false));
    q_norm = register_module("q_norm", nn::RMSNorm(m_headDim, 1e-6));
    k_proj = register_module("k_proj", nn::Linear(contextDim, dim, false));
    k_norm = register_module("k_norm", nn::RMSNorm(m_headDim, 1e-6));
    v_proj = register_module("v_proj", nn::Linear(contextDim, dim, false));
    o_proj = register_module("o_proj", nn::Linear(dim, dim, false));
}

torch::Tensor AnimaAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& context,
                                          const torch::Tensor& keyMask, const CosmosRope& ropeQ,
                                          const CosmosRope& ropeK, ProbeContext& probes) {
    // AnimaTextConditionerAttnProcessor
    const int64_t B = x.size(0), L = x.size(1), S = context.size(1);
    auto q = probes.point(m_qkv.q, q_proj->forward(x)).view({B, L, m_heads, m_headDim});
    auto k = probes.point(m_qkv.k, k_proj->forward(context)).view({B, S, m_heads, m_headDim});
    auto v = probes.point(m_qkv.v, v_proj->forward(context)).view({B, S, m_heads, m_headDim});
    q = probes.point(m_qkv.nq, q_norm->forward(q));        // [B, L, H, Dh]
    k = probes.point(m_qkv.nk, k_norm->forward(k));        // [B, S, H, Dh]
    q = probes.point(m_ropeQ, applyCosmosRope(q, ropeQ));  // rotate_half, same layout
    k = probes.point(m_ropeK, applyCosmosRope(k, ropeK));
    auto o = maskedAttention(q.transpose(1, 2), k.transpose(1, 2), asTypeOf(v, q).transpose(1, 2),
                             keyMask);  // [B, H, L, Dh]
    o = probes.point(m_sdpa, o.transpose(1, 2).reshape({B, L, m_heads * m_headDim}));
    return probes.point(m_out, o_proj->forward(o));  // [B, L, D]
}

// ---- norms ----

AnimaNorm::AnimaNorm(torch::nn::Module& owner, const std::string& key, int64_t dim,
                     bool layerNorm) {
    if (layerNorm)
        ln = owner.register_module(key, nn::LayerNorm(dim, 1e-5));
    else
        rms = owner.register_module(key, nn::RMSNorm(dim, 1e-6));
}

torch::Tensor AnimaNorm::forward(const torch::Tensor& x) {
    return rms ? rms->forward(x) : ln->forward(x);
}

// ---- AnimaTextConditionerBlock ----

AnimaBlockImpl::AnimaBlockImpl(const AnimaAdapterConfig& c, const std::string& path)
    : m_path(path),
      m_out(path, ProbeLevel::Module, kResidualStream),
      m_normSelf(path + ".norm_self_attn", ProbeLevel::Layer),
      m_selfResidual(path + ".self_attn_residual", ProbeLevel::Layer, kResidualStream),
      m_normCross(path + ".norm_cross_attn", ProbeLevel::Layer),
      m_crossResidual(path + ".cross_attn_residual", ProbeLevel::Layer, kResidualStream),
      m_normMlp(path + ".norm_mlp", ProbeLevel::Layer),
      m_mlp0(path + ".mlp.0", ProbeLevel::Op),
      m_mlpAct(path + ".mlp.1", ProbeLevel::Op),
      m_mlp(path + ".mlp", ProbeLevel::Layer) {
    const int64_t d = c.modelDim;
    if (c.useSelfAttention) {
        norm_self_attn = AnimaNorm(*this, "norm_self_attn", d, c.useLayerNorm);
        self_attn = register_module("self_attn",
                                    AnimaAttention(d, d, c.numAttentionHeads, path + ".self_attn"));
    }
    norm_cross_attn = AnimaNorm(*this, "norm_cross_attn", d, c.useLayerNorm);
    cross_attn = register_module(
        "cross_attn", AnimaAttention(d, c.sourceDim, c.numAttentionHeads, path + ".cross_attn"));
    norm_mlp = AnimaNorm(*this, "norm_mlp", d, c.useLayerNorm);
    mlp0 = nn::Linear(d, c.mlpDim());
    mlp2 = nn::Linear(c.mlpDim(), d);
    mlp = register_module("mlp", torch::nn::ModuleList());
    mlp->push_back(mlp0);
    mlp->push_back(torch::nn::Identity());  // mlp.1: nn.GELU, no parameters
    mlp->push_back(mlp2);
}

torch::Tensor AnimaBlockImpl::forward(const torch::Tensor& xIn, const torch::Tensor& sourceIn,
                                      const torch::Tensor& targetMask,
                                      const torch::Tensor& sourceMask, const CosmosRope& ropeT,
                                      const CosmosRope& ropeS, ProbeContext& probes) {
    // The residual stream lives in this block's format (norm_cross_attn's dtype).
    auto x = probes.enter(m_path, xIn, norm_cross_attn.weight());              // [B, L, D]
    auto source = probes.enter(m_path, sourceIn, cross_attn->k_proj->weight);  // [B, S, C]
    if (self_attn) {
        auto h = probes.point(m_normSelf, norm_self_attn.forward(x));
        auto a = self_attn->forward(h, h, targetMask, ropeT, ropeT, probes);  // [B, L, D]
        x = probes.point(m_selfResidual, x + asTypeOf(a, x));
    }
    auto h = probes.point(m_normCross, norm_cross_attn.forward(x));
    auto a = cross_attn->forward(h, source, sourceMask, ropeT, ropeS, probes);  // [B, L, D]
    x = probes.point(m_crossResidual, x + asTypeOf(a, x));
    h = probes.point(m_normMlp, norm_mlp.forward(x));
    h = probes.point(m_mlp0, mlp0->forward(h));  // [B, L, M]
    h = probes.point(m_mlpAct, geluExact(h));
    h = probes.point(m_mlp, mlp2->forward(h));  // [B, L, D]
    return probes.point(m_out, x + asTypeOf(h, x));
}

// ---- AnimaTextConditioner ----

AnimaTextConditionerImpl::AnimaTextConditionerImpl(const AnimaAdapterConfig& c,
                                                   const std::string& component)
    : m_config(c),
      m_component(component),
      m_embed(component + ".embed", ProbeLevel::Layer),
      m_inProj(component + ".in_proj", ProbeLevel::Layer),
      m_outProj(component + ".out_proj", ProbeLevel::Layer),
      m_norm(component + ".norm", ProbeLevel::Module),
      m_masked(component + ".masked", ProbeLevel::Op) {
    embed = register_module("embed", nn::Embedding(c.targetVocabSize, c.targetDim));
    if (c.hasInProj()) in_proj = register_module("in_proj", nn::Linear(c.targetDim, c.modelDim));
    blocks = register_module("blocks", torch::nn::ModuleList());
    for (int i = 0; i < c.numLayers; ++i) {
        blockList.emplace_back(c, component + ".blocks." + std::to_string(i));
        blocks->push_back(blockList.back());
    }
    out_proj = register_module("out_proj", nn::Linear(c.modelDim, c.targetDim));
    norm = register_module("norm", nn::RMSNorm(c.targetDim, 1e-6));
}

torch::Tensor AnimaTextConditionerImpl::forward(const AnimaAdapterInputs& in,
                                                ProbeContext& probes) {
    // AnimaTextConditioner.forward
    const auto& c = m_config;
    auto tmask = in.targetAttentionMask.defined() ? in.targetAttentionMask.to(torch::kBool)
                                                  : torch::Tensor();  // [B, L]
    auto smask = in.sourceAttentionMask.defined() ? in.sourceAttentionMask.to(torch::kBool)
                                                  : torch::Tensor();    // [B, S]
    auto x = probes.point(m_embed, embed->forward(in.targetInputIds));  // [B, L, target_dim]
    if (in_proj) {
        x = probes.enter(m_inProj.name, x, in_proj->weight);
        x = probes.point(m_inProj, in_proj->forward(x));  // [B, L, D]
    }
    const int64_t L = x.size(1), S = in.sourceHiddenStates.size(1);
    const CosmosRope ropeT = animaRope(L, c.headDim(), x.device());
    const CosmosRope ropeS = animaRope(S, c.headDim(), x.device());
    for (auto& b : blockList)
        x = b->forward(x, in.sourceHiddenStates, tmask, smask, ropeT, ropeS, probes);
    x = probes.enter(m_outProj.name, x, out_proj->weight);
    x = probes.point(m_outProj, out_proj->forward(x));  // [B, L, target_dim]
    x = probes.point(m_norm, norm->forward(x));
    if (tmask.defined())
        x = probes.point(m_masked, x * tmask.to(x.scalar_type()).unsqueeze(-1));  // padding zeroed
    if (L < c.minSequenceLength)
        x = torch::constant_pad_nd(x, {0, 0, 0, c.minSequenceLength - L});  // [B, min, target_dim]
    return x;
}

AnimaTextConditioner loadAnimaTextConditioner(const nlohmann::json& config,
                                              const WeightMap& weights,
                                              const PrecisionPolicy& policy,
                                              const std::string& component) {
    AnimaTextConditioner model(AnimaAdapterConfig::fromJson(config), component);
    loadWeights(*model, weights, component, policy);
    model->eval();
    return model;
}

}  // namespace hs
