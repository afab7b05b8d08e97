#pragma once
// diffusers AnimaTextConditioner (models/condition_embedders/condition_embedder_anima.py):
// Anima's LLM adapter. Learned embeddings of T5 token ids (the target) pass through blocks of
// self-attention, cross-attention to the Qwen3 hidden states (the source) and a GELU MLP, each a
// pre-norm residual, with rotary embeddings on both sequences; then out_proj and an RMSNorm, the
// target mask applied and the output zero-padded to min_sequence_length. Its output is the
// Cosmos transformer's encoder_hidden_states.
// named_parameters() equal the diffusers checkpoint keys: embed, in_proj (when model_dim !=
// target_dim), blocks.N.{norm_self_attn, self_attn, norm_cross_attn, cross_attn, norm_mlp,
// mlp.0, mlp.2}, out_proj, norm.
//
// Probe points carry the component prefix (default "text_conditioner"): Module granularity for
// `blocks.N` and `norm` (the output); Layer for embed, in_proj, out_proj and each block's norms,
// attentions, MLP and residual sums; Op for the rest.
#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "families/anima/anima_config.h"
#include "models/common/attention.h"
#include "models/common/layers.h"
#include "models/common/weights.h"
#include "families/cosmos/cosmos_layers.h"
#include "numerics/probe.h"

namespace hs {

struct AnimaAdapterInputs {
    torch::Tensor sourceHiddenStates;   // [B, S, source_dim]  Qwen3 hidden states
    torch::Tensor targetInputIds;       // [B, L] int64  T5 token ids
    torch::Tensor targetAttentionMask;  // [B, L] (nonzero = keep) or undefined
    torch::Tensor sourceAttentionMask;  // [B, S] or undefined
};

// AnimaTextConditionerAttention: q_proj, k_proj, v_proj, o_proj (no biases), q_norm and k_norm
// (torch.nn.RMSNorm over each head, eps 1e-6). Layer point `path`; Op points for the rest.
class AnimaAttentionImpl : public torch::nn::Module {
public:
    AnimaAttentionImpl(int64_t dim, int64_t contextDim, int heads, const std::string& path);
    // x [B, L, D], context [B, S, C], keyMask [B, S] bool or undefined; ropes [L|S, Dh]
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& context,
                          const torch::Tensor& keyMask, const CosmosRope& ropeQ,
                          const CosmosRope& ropeK, ProbeContext& probes);
    nn::Linear q_proj{nullptr}, k_proj{nullptr}, v_proj{nullptr}, o_proj{nullptr};
    nn::RMSNorm q_norm{nullptr}, k_norm{nullptr};

private:
    int m_heads;
    int64_t m_headDim;
    ProbePoint m_out;
    QkvPoints m_qkv;
    ProbePoint m_ropeQ, m_ropeK, m_sdpa;
};
TORCH_MODULE(AnimaAttention);

// A norm of the blocks, registered in its block under its key: torch.nn.RMSNorm(eps 1e-6), or
// LayerNorm(eps 1e-5, weight and bias) with use_layer_norm.
struct AnimaNorm {
    nn::RMSNorm rms{nullptr};
    nn::LayerNorm ln{nullptr};
    AnimaNorm() = default;
    AnimaNorm(torch::nn::Module& owner, const std::string& key, int64_t dim, bool layerNorm);
    torch::Tensor forward(const torch::Tensor& x);
    const torch::Tensor& weight() const { return rms ? rms->weight : ln->weight; }
};

// AnimaTextConditionerBlock. Probe points: Module `path`; Layer norm_self_attn, self_attn,
// self_attn_residual, norm_cross_attn, cross_attn, cross_attn_residual, norm_mlp, mlp; Op
// mlp.0 and mlp.1 (the GELU).
class AnimaBlockImpl : public torch::nn::Module {
public:
    AnimaBlockImpl(const AnimaAdapterConfig& config, const std::string& path);
    // x [B, L, D], source [B, S, source_dim], masks [B, L] / [B, S] bool or undefined
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& source,
                          const torch::Tensor& targetMask, const torch::Tensor& sourceMask,
                          const CosmosRope& ropeT, const CosmosRope& ropeS, ProbeContext& probes);
    AnimaNorm norm_self_attn, norm_cross_attn, norm_mlp;
    AnimaAttention self_attn{nullptr}, cross_attn{nullptr};
    torch::nn::ModuleList mlp{nullptr};
    nn::Linear mlp0{nullptr}, mlp2{nullptr};

private:
    std::string m_path;
    ProbePoint m_out, m_normSelf, m_selfResidual, m_normCross, m_crossResidual, m_normMlp, m_mlp0,
        m_mlpAct, m_mlp;
};
TORCH_MODULE(AnimaBlock);

class AnimaTextConditionerImpl : public torch::nn::Module {
public:
    explicit AnimaTextConditionerImpl(const AnimaAdapterConfig& config,
                                      const std::string& component = "text_conditioner");
    // -> [B, max(L, min_sequence_length), target_dim], dtype of norm
    torch::Tensor forward(const AnimaAdapterInputs& in, ProbeContext& probes);
    const AnimaAdapterConfig& config() const { return m_config; }

    nn::Embedding embed{nullptr};
    nn::Linear in_proj{nullptr}, out_proj{nullptr};
    torch::nn::ModuleList blocks{nullptr};
    std::vector<AnimaBlock> blockList;  // typed views of blocks
    nn::RMSNorm norm{nullptr};

private:
    AnimaAdapterConfig m_config;
    std::string m_component;
    ProbePoint m_embed, m_inProj, m_outProj, m_norm, m_masked;
};
TORCH_MODULE(AnimaTextConditioner);

// Builds the adapter for `config` and loads `weights`. Throws ConfigError / WeightError.
AnimaTextConditioner loadAnimaTextConditioner(const nlohmann::json& config,
                                              const WeightMap& weights,
                                              const PrecisionPolicy& policy,
                                              const std::string& component = "text_conditioner");

}  // namespace hs
