#include "families/clip/clip_text_model.h"

#include <cmath>
#include <limits>

#include "models/common/probe_points.h"
#include "runtime/parallelism.h"

namespace hs {

ClipTextEmbeddingsImpl::ClipTextEmbeddingsImpl(const ClipTextConfig& cfg, const std::string& path)
    : m_output(path, ProbeLevel::Layer),
      m_nToken(path + ".token_embedding", ProbeLevel::Op),
      m_nPosition(path + ".position_embedding", ProbeLevel::Op) {
    m_tokenEmbedding =
        register_module("token_embedding", nn::Embedding(cfg.vocabSize, cfg.hiddenSize));
    m_positionEmbedding = register_module("position_embedding",
                                          nn::Embedding(cfg.maxPositionEmbeddings, cfg.hiddenSize));
}

torch::Tensor ClipTextEmbeddingsImpl::forward(const torch::Tensor& ids, ProbeContext& probes) {
    const int64_t L = ids.size(1);
    auto positions = torch::arange(L, ids.options().dtype(torch::kInt64));  // [L]
    auto tok = probes.point(m_nToken, m_tokenEmbedding->forward(ids));      // [B, L, D]
    auto pos = probes.point(m_nPosition, m_positionEmbedding->forward(positions).unsqueeze(0));
    return probes.point(m_output, addAs(tok, pos, m_output, probes));  // [B, L, D]
}

ClipAttentionImpl::ClipAttentionImpl(const ClipTextConfig& cfg, const std::string& path)
    : m_heads(cfg.numAttentionHeads),
      m_headDim(cfg.headDim()),
      m_output(path, ProbeLevel::Layer),
      m_nQ(path + ".q_proj", ProbeLevel::Op),
      m_nK(path + ".k_proj", ProbeLevel::Op),
      m_nV(path + ".v_proj", ProbeLevel::Op),
      m_nSdpa(path + ".sdpa", ProbeLevel::Op) {
    const int64_t d = cfg.hiddenSize;
    m_k = register_module("k_proj", nn::Linear(d, d));
    m_v = register_module("v_proj", nn::Linear(d, d));
    m_q = register_module("q_proj", nn::Linear(d, d));
    m_out = register_module("out_proj", nn::Linear(d, d));
}

torch::Tensor ClipAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& causal,
                                         ProbeContext& probes) {
    const int64_t B = x.size(0), L = x.size(1);
    auto heads = [&](const torch::Tensor& t) {
        return t.view({B, L, m_heads, m_headDim}).transpose(1, 2);  // [B, H, L, Dh]
    };
    auto q = heads(probes.point(m_nQ, m_q->forward(x)));
    auto k = heads(probes.point(m_nK, m_k->forward(x)));
    auto v = heads(probes.point(m_nV, m_v->forward(x)));
    // Fused scaled-dot-product attention: fp32 scores and softmax, probabilities cast to v.
    const double scale = 1.0 / std::sqrt(double(m_headDim));
    auto scores = torch::matmul(q.to(torch::kFloat32), k.to(torch::kFloat32).transpose(-2, -1));
    scores.mul_(scale).masked_fill_(causal, -std::numeric_limits<float>::infinity());  // [B,H,L,L]
    auto probs = torch::softmax(scores, -1).to(v.scalar_type());                       // [B,H,L,L]
    auto ctx = torch::matmul(probs, v).transpose(1, 2).reshape({B, L, m_heads * m_headDim});
    ctx = probes.point(m_nSdpa, ctx);                    // [B, L, D]
    return probes.point(m_output, m_out->forward(ctx));  // [B, L, D]
}

ClipMlpImpl::ClipMlpImpl(const ClipTextConfig& cfg, const std::string& path)
    : m_act(cfg.hiddenAct),
      m_output(path, ProbeLevel::Layer),
      m_nFc1(path + ".fc1", ProbeLevel::Op),
      m_nAct(path + ".activation_fn", ProbeLevel::Op) {
    m_fc1 = register_module("fc1", nn::Linear(cfg.hiddenSize, cfg.intermediateSize));
    m_fc2 = register_module("fc2", nn::Linear(cfg.intermediateSize, cfg.hiddenSize));
}

torch::Tensor ClipMlpImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto h = probes.point(m_nFc1, m_fc1->forward(x));  // [B, L, I]
    // transformers QuickGELUActivation: x * sigmoid(1.702 x); GELUActivation: exact erf form.
    h = m_act == ClipActivation::QuickGelu ? h * torch::sigmoid(1.702 * h) : torch::gelu(h);
    h = probes.point(m_nAct, h);                       // [B, L, I]
    return probes.point(m_output, m_fc2->forward(h));  // [B, L, D]
}

ClipEncoderLayerImpl::ClipEncoderLayerImpl(const ClipTextConfig& cfg, const std::string& path)
    : m_output(path, ProbeLevel::Module, kResidualStream),
      m_nLn1(path + ".layer_norm1", ProbeLevel::Layer),
      m_nResidual(path + ".attn_residual", ProbeLevel::Op, kResidualStream),
      m_nLn2(path + ".layer_norm2", ProbeLevel::Layer) {
    auto ln = [&] { return nn::LayerNorm(cfg.hiddenSize, cfg.layerNormEps); };
    m_selfAttn = register_module("self_attn", ClipAttention(cfg, path + ".self_attn"));
    m_layerNorm1 = register_module("layer_norm1", ln());
    m_mlp = register_module("mlp", ClipMlp(cfg, path + ".mlp"));
    m_layerNorm2 = register_module("layer_norm2", ln());
}

torch::Tensor ClipEncoderLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& causal,
                                            ProbeContext& probes) {
    auto h = probes.point(m_nLn1, m_layerNorm1->forward(x));  // [B, L, D]
    h = m_selfAttn->forward(h, causal, probes);               // [B, L, D]
    auto r = probes.point(m_nResidual, addAs(x, h, m_nResidual, probes));
    h = probes.point(m_nLn2, m_layerNorm2->forward(r));            // [B, L, D]
    h = m_mlp->forward(h, probes);                                 // [B, L, D]
    return probes.point(m_output, addAs(r, h, m_output, probes));  // [B, L, D]
}

ClipEncoderImpl::ClipEncoderImpl(const ClipTextConfig& cfg, const std::string& path) {
    m_layers = register_module("layers", torch::nn::ModuleList());
    for (int i = 0; i < cfg.numHiddenLayers; ++i) {
        m_layerList.push_back(ClipEncoderLayer(cfg, path + ".layers." + std::to_string(i)));
        m_layers->push_back(m_layerList.back());
    }
}

torch::Tensor ClipEncoderImpl::forward(const torch::Tensor& x, const torch::Tensor& causal,
                                       ProbeContext& probes,
                                       std::vector<torch::Tensor>& hiddenStates) {
    torch::Tensor h = x;
    for (auto& layer : m_layerList) {
        h = layer->forward(h, causal, probes);  // [B, L, D]
        hiddenStates.push_back(h);
    }
    return h;
}

ClipTextModelImpl::ClipTextModelImpl(ClipTextConfig cfg, const std::string& component)
    : m_cfg(std::move(cfg)), m_component(component) {
    const std::string base = component.empty() ? "text_model" : component + ".text_model";
    m_nFinalNorm = {base + ".final_layer_norm", ProbeLevel::Layer};
    m_nProjection = {component.empty() ? "text_projection" : component + ".text_projection",
                     ProbeLevel::Layer};
    m_textModel = register_module("text_model", std::make_shared<torch::nn::Module>());
    m_embeddings =
        m_textModel->register_module("embeddings", ClipTextEmbeddings(m_cfg, base + ".embeddings"));
    m_encoder = m_textModel->register_module("encoder", ClipEncoder(m_cfg, base + ".encoder"));
    m_finalLayerNorm = m_textModel->register_module(
        "final_layer_norm", nn::LayerNorm(m_cfg.hiddenSize, m_cfg.layerNormEps));
    if (m_cfg.withProjection)
        m_textProjection = register_module(
            "text_projection", nn::Linear(m_cfg.hiddenSize, m_cfg.projectionDim, /*bias=*/false));
}

ClipTextOutput ClipTextModelImpl::forward(const torch::Tensor& ids, ProbeContext& probes) {
    const int64_t B = ids.size(0), L = ids.size(1);
    SmallWork work(B * L * m_cfg.hiddenSize * int64_t(m_cfg.intermediateSize));  // MLP fc1
    ClipTextOutput out;
    auto h = m_embeddings->forward(ids, probes);  // [B, L, D]
    out.hiddenStates.push_back(h);
    auto causal = torch::ones({L, L}, ids.options().dtype(torch::kBool)).triu(1);    // [L, L]
    h = m_encoder->forward(h, causal, probes, out.hiddenStates);                     // [B, L, D]
    out.lastHiddenState = probes.point(m_nFinalNorm, m_finalLayerNorm->forward(h));  // [B, L, D]
    // CLIPTextTransformer pooling: legacy configs (eos_token_id == 2) take argmax(input_ids),
    // where CLIP's end-of-text token (the largest id) sits; others the first eos position.
    auto index = m_cfg.eosTokenId == 2
                     ? ids.to(torch::kInt32).argmax(-1)
                     : ids.eq(m_cfg.eosTokenId).to(torch::kInt32).argmax(-1);  // [B]
    auto rows = torch::arange(B, ids.options().dtype(torch::kInt64));
    out.poolerOutput = out.lastHiddenState.index({rows, index});  // [B, D]
    if (m_textProjection)
        out.textEmbeds =
            probes.point(m_nProjection, m_textProjection->forward(out.poolerOutput));  // [B, P]
    return out;
}

ClipTextModel loadClipText(const nlohmann::json& config, const WeightMap& weights,
                           const PrecisionPolicy& policy, const std::string& component) {
    const ClipTextConfig cfg =
        clipTextConfigFromJson(config, weights.count("text_projection.weight") > 0);
    ClipTextModel model(cfg, component);
    std::vector<std::string> ignored{"text_model.embeddings.position_ids"};
    if (cfg.nestedInFullClip)
        ignored.insert(ignored.end(),
                       {"vision_model.*", "visual_projection.weight", "logit_scale"});
    loadWeights(*model, weights, component, policy, ignored);
    model->eval();
    return model;
}

}  // namespace hs
