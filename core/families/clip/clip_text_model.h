#pragma once
// transformers CLIPTextModel / CLIPTextModelWithProjection (families/clip/modeling_clip.py).
// named_parameters() equal the checkpoint keys: text_model.embeddings.{token,position}_embedding,
// text_model.encoder.layers.N.{self_attn.{q,k,v,out}_proj, layer_norm1, mlp.fc1, mlp.fc2,
// layer_norm2}, text_model.final_layer_norm and, with projection, text_projection.weight.
//
// Probe points, under the component prefix P given at construction ("text_encoder" by default):
//   Module: P.text_model.encoder.layers.N (the layer output)
//   Layer:  P.text_model.embeddings, ...layers.N.layer_norm1, ...layers.N.self_attn,
//           ...layers.N.layer_norm2, ...layers.N.mlp, P.text_model.final_layer_norm,
//           P.text_projection
//   Op:     ...embeddings.token_embedding, ...embeddings.position_embedding,
//           ...self_attn.{q,k,v}_proj, ...self_attn.sdpa (attention before out_proj),
//           ...layers.N.attn_residual, ...mlp.fc1, ...mlp.activation_fn
// Attention runs as a fused kernel would: scores and softmax in fp32 for 16-bit formats and no
// probe on the raw scores. Each op casts its input to its own weights' dtype, so a plan may give
// every layer its own format.
#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "families/clip/clip_config.h"
#include "models/common/weights.h"
#include "numerics/probe.h"

namespace hs {

// CLIPTextEmbeddings: token + absolute position embeddings.
class ClipTextEmbeddingsImpl : public torch::nn::Module {
public:
    ClipTextEmbeddingsImpl(const ClipTextConfig& cfg, const std::string& path);
    // input_ids [B, L] int64 -> [B, L, D]
    torch::Tensor forward(const torch::Tensor& ids, ProbeContext& probes);

private:
    nn::Embedding m_tokenEmbedding{nullptr};
    nn::Embedding m_positionEmbedding{nullptr};
    ProbePoint m_output, m_nToken, m_nPosition;
};
TORCH_MODULE(ClipTextEmbeddings);

// CLIPAttention (causal self-attention of the text tower, SDPA path).
class ClipAttentionImpl : public torch::nn::Module {
public:
    ClipAttentionImpl(const ClipTextConfig& cfg, const std::string& path);
    // [B, L, D] -> [B, L, D]; `causal` [L, L] bool, true above the diagonal.
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& causal,
                          ProbeContext& probes);

private:
    nn::Linear m_q{nullptr}, m_k{nullptr}, m_v{nullptr}, m_out{nullptr};
    int64_t m_heads, m_headDim;
    ProbePoint m_output, m_nQ, m_nK, m_nV, m_nSdpa;
};
TORCH_MODULE(ClipAttention);

// CLIPMLP: fc1, quick_gelu or gelu, fc2.
class ClipMlpImpl : public torch::nn::Module {
public:
    ClipMlpImpl(const ClipTextConfig& cfg, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);  // [B, L, D] -> [B, L, D]

private:
    nn::Linear m_fc1{nullptr}, m_fc2{nullptr};
    ClipActivation m_act;
    ProbePoint m_output, m_nFc1, m_nAct;
};
TORCH_MODULE(ClipMlp);

// CLIPEncoderLayer: pre-norm attention and MLP blocks with residual adds.
class ClipEncoderLayerImpl : public torch::nn::Module {
public:
    ClipEncoderLayerImpl(const ClipTextConfig& cfg, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& causal,
                          ProbeContext& probes);

private:
    ClipAttention m_selfAttn{nullptr};
    nn::LayerNorm m_layerNorm1{nullptr}, m_layerNorm2{nullptr};
    ClipMlp m_mlp{nullptr};
    ProbePoint m_output, m_nLn1, m_nResidual, m_nLn2;
};
TORCH_MODULE(ClipEncoderLayer);

// CLIPEncoder: the stack of layers ("layers.N").
class ClipEncoderImpl : public torch::nn::Module {
public:
    ClipEncoderImpl(const ClipTextConfig& cfg, const std::string& path);
    // Appends the output of every layer to `hiddenStates`; returns the last one.
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& causal, ProbeContext& probes,
                          std::vector<torch::Tensor>& hiddenStates);

private:
    torch::nn::ModuleList m_layers;
    std::vector<ClipEncoderLayer> m_layerList;
};
TORCH_MODULE(ClipEncoder);

struct ClipTextOutput {
    torch::Tensor lastHiddenState;            // [B, L, D], after final_layer_norm
    torch::Tensor poolerOutput;               // [B, D]
    torch::Tensor textEmbeds;                 // [B, projection_dim]; undefined without projection
    std::vector<torch::Tensor> hiddenStates;  // N + 1 of [B, L, D]: embeddings, then each layer
                                              // output (the last one before final_layer_norm)
};

// CLIPTextTransformer ("text_model") plus, for CLIPTextModelWithProjection, text_projection.
class ClipTextModelImpl : public torch::nn::Module {
public:
    explicit ClipTextModelImpl(ClipTextConfig cfg, const std::string& component = "text_encoder");
    // input_ids [B, L] int64 (L <= max_position_embeddings, ids < vocab_size: runClipText checks)
    ClipTextOutput forward(const torch::Tensor& ids, ProbeContext& probes);

    const ClipTextConfig& config() const { return m_cfg; }
    const std::string& component() const { return m_component; }

private:
    ClipTextConfig m_cfg;
    std::string m_component;
    ProbePoint m_nFinalNorm, m_nProjection;
    std::shared_ptr<torch::nn::Module> m_textModel;
    ClipTextEmbeddings m_embeddings{nullptr};
    ClipEncoder m_encoder{nullptr};
    nn::LayerNorm m_finalLayerNorm{nullptr};
    nn::Linear m_textProjection{nullptr};
};
TORCH_MODULE(ClipTextModel);

// Builds the model that `config` describes and loads `weights` into it in the formats of
// `policy` (text_model.embeddings.position_ids of older checkpoints, and the vision tower of a
// full CLIPModel checkpoint, are ignored). Throws ConfigError / WeightError naming the field or
// tensor.
ClipTextModel loadClipText(const nlohmann::json& config, const WeightMap& weights,
                           const PrecisionPolicy& policy,
                           const std::string& component = "text_encoder");

}  // namespace hs
