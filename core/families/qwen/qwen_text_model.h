#pragma once
// transformers Qwen3Model (models/qwen3/modeling_qwen3.py) and Qwen2Model
// (models/qwen2/modeling_qwen2.py), the decoder-only language models used as text encoders
// (Anima: Qwen3-0.6B; Qwen-Image: the language model of Qwen2.5-VL). named_parameters() equal
// the checkpoint keys under a key prefix K ("" for Qwen3Model / Qwen2Model files, "model." for
// *ForCausalLM and the original Qwen2.5-VL files, "model.language_model." for Qwen2.5-VL files
// saved by transformers >= 4.52): K.embed_tokens.weight,
// K.layers.N.self_attn.{q,k,v,o}_proj.{weight,bias}, K.layers.N.self_attn.{q,k}_norm.weight
// (Qwen3), K.layers.N.{input,post_attention}_layernorm.weight,
// K.layers.N.mlp.{gate,up,down}_proj.weight, K.norm.weight.
//
// Probe points, under P = component + "." + K (e.g. "text_encoder.layers.0"), with B = P.layers.N:
//   Module: B (the decoder layer's output)
//   Layer:  P.embed_tokens, B.input_layernorm, B.self_attn (o_proj's output),
//           B.post_attention_layernorm, B.mlp (down_proj's output), P.norm
//   Op:     P.rotary_emb.{cos,sin} (stored in the model's format, as transformers casts them),
//           B.self_attn.{q_proj,k_proj,v_proj,q_norm,k_norm,q_rope,k_rope,scores,weights,context},
//           B.attn_residual, B.mlp.{gate_proj,act,up_proj,gate}
// Attention: the causal mask combined with the padding mask, as transformers builds it. Scores
// q·kᵀ·head_dim^-0.5 and the softmax in fp32 (the scores point records them as fp32, unrounded),
// probabilities stored in the model's format before the product with v: what transformers'
// default sdpa path does on a GPU (its fused kernels keep the scores in fp32), and in fp32 the
// same numbers as the eager path. A query whose keys are all masked (left padding, a prompt of
// padding only) attends evenly to every key, as eager attention's finfo.min mask makes it.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "models/common/attention.h"
#include "models/common/layers.h"
#include "models/common/weight_stream.h"
#include "families/qwen/qwen_config.h"
#include "numerics/probe.h"

namespace hs {

// Qwen3Attention / Qwen2Attention: grouped-query self-attention with rotary positions.
class QwenAttentionImpl : public torch::nn::Module {
public:
    QwenAttentionImpl(const QwenConfig& cfg, const std::string& path);
    // x [B, L, D] (normed), cos/sin [B or 1, L, Dh], allowed [B, 1, L, L] bool (true: the query
    // may attend to the key) -> [B, L, D]
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& cos,
                          const torch::Tensor& sin, const torch::Tensor& allowed,
                          ProbeContext& probes);

private:
    QwenConfig m_cfg;
    nn::Linear m_q{nullptr}, m_k{nullptr}, m_v{nullptr}, m_o{nullptr};
    nn::RMSNorm m_qNorm{nullptr}, m_kNorm{nullptr};
    ProbePoint m_output;
    QkvPoints m_qkv;
    ProbePoint m_nQRope, m_nKRope, m_nScores, m_nWeights, m_nContext;
};
TORCH_MODULE(QwenAttention);

// Qwen3MLP / Qwen2MLP: down_proj(silu(gate_proj(x)) * up_proj(x)). [B, L, D] -> [B, L, D]
class QwenMlpImpl : public torch::nn::Module {
public:
    QwenMlpImpl(const QwenConfig& cfg, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);

private:
    nn::Linear m_gate{nullptr}, m_up{nullptr}, m_down{nullptr};
    ProbePoint m_output, m_nGate, m_nAct, m_nUp, m_nProduct;
};
TORCH_MODULE(QwenMlp);

// Qwen3DecoderLayer / Qwen2DecoderLayer: pre-norm attention and feed-forward, each with a
// residual. [B, L, D] -> [B, L, D]
class QwenDecoderLayerImpl : public torch::nn::Module {
public:
    QwenDecoderLayerImpl(const QwenConfig& cfg, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& cos,
                          const torch::Tensor& sin, const torch::Tensor& allowed,
                          ProbeContext& probes);

private:
    QwenAttention m_selfAttn{nullptr};
    QwenMlp m_mlp{nullptr};
    nn::RMSNorm m_inputNorm{nullptr}, m_postNorm{nullptr};
    ProbePoint m_output, m_nInputNorm, m_nResidual, m_nPostNorm;
};
TORCH_MODULE(QwenDecoderLayer);

struct QwenTextOutput {
    torch::Tensor lastHiddenState;            // [B, L, D] after the final norm
    std::vector<torch::Tensor> hiddenStates;  // embeddings, layers 0 .. n-2, then the normed
                                              // last one: transformers' output_hidden_states
};

// With a weight stream (LoadMode::Streamed) each decoder layer's weights are held only while it
// runs: prefixes K + "layers.N.".
class QwenTextModelImpl : public torch::nn::Module, public StreamedBlocks {
public:
    // keyPrefix: "" or a dotted prefix ending in "." (see above).
    QwenTextModelImpl(QwenConfig cfg, const std::string& component = "text_encoder",
                      const std::string& keyPrefix = "");
    // ids [B, L] int64 (ids < vocab_size: the component checks); mask [B, L] (1 = token,
    // 0 = padding) or undefined for none. Positions 0 .. L-1 (QwenConfig::maskedPositions: see
    // there).
    QwenTextOutput forward(const torch::Tensor& ids, const torch::Tensor& mask,
                           ProbeContext& probes);
    const QwenConfig& config() const { return m_cfg; }
    const std::string& keyPrefix() const { return m_keyPrefix; }

private:
    QwenConfig m_cfg;
    std::string m_keyPrefix;
    nn::Embedding m_embed{nullptr};
    std::vector<QwenDecoderLayer> m_layers;
    nn::RMSNorm m_norm{nullptr};
    ProbePoint m_nEmbed, m_nCos, m_nSin, m_nNorm;
};
TORCH_MODULE(QwenTextModel);

// The rotary table of transformers' default RoPE: inv_freq = theta^(-2i/Dh), angles
// position x inv_freq repeated over both halves. positions [B, L] -> cos, sin [B, L, Dh] fp32.
std::pair<torch::Tensor, torch::Tensor> qwenRotary(const torch::Tensor& positions, int64_t headDim,
                                                   double theta);

// The mask transformers builds for a causal decoder: key j <= query i and key j not padding.
// mask [B, L] (1 token, 0 padding) or undefined -> [B or 1, 1, L, L] bool.
torch::Tensor qwenAllowed(const torch::Tensor& mask, int64_t L, const torch::Device& device);

}  // namespace hs
