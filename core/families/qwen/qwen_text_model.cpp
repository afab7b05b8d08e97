#include "families/qwen/qwen_text_model.h"

#include <cmath>
#include <limits>

#include "models/common/probe_points.h"
#include "runtime/parallelism.h"

namespace hs {

namespace {

// transformers' rotate_half: [x1, x2] -> [-x2, x1] over the last axis.
torch::Tensor rotateHalf(const torch::Tensor& x) {
    const int64_t h = x.size(-1) / 2;
    return torch::cat({-x.narrow(-1, h, h), x.narrow(-1, 0, h)}, -1);
}

}  // namespace

std::pair<torch::Tensor, torch::Tensor> qwenRotary(const torch::Tensor& positions, int64_t headDim,
                                                   double theta) {
    const auto f32 = torch::TensorOptions().dtype(torch::kFloat32).device(positions.device());
    // compute_default_rope_parameters: base ** (arange(0, dim, 2) / dim) in float32.
    auto exponents = torch::arange(0, headDim, 2, f32) / double(headDim);   // [Dh/2]
    auto invFreq = 1.0 / torch::pow(torch::tensor(theta, f32), exponents);  // [Dh/2]
    auto freqs = positions.to(torch::kFloat32).unsqueeze(-1) * invFreq;     // [B, L, Dh/2]
    auto emb = torch::cat({freqs, freqs}, -1);                              // [B, L, Dh]
    return {emb.cos(), emb.sin()};
}

torch::Tensor qwenAllowed(const torch::Tensor& mask, int64_t L, const torch::Device& device) {
    auto causal = torch::ones({L, L}, torch::TensorOptions().dtype(torch::kBool).device(device))
                      .tril()
                      .view({1, 1, L, L});  // [1, 1, L, L]: key <= query
    if (!mask.defined()) return causal;
    const int64_t B = mask.size(0);
    auto keys = mask.to(device).ne(0).view({B, 1, 1, L});  // [B, 1, 1, L]
    return causal.logical_and(keys);                       // [B, 1, L, L]
}

QwenAttentionImpl::QwenAttentionImpl(const QwenConfig& cfg, const std::string& path)
    : m_cfg(cfg),
      m_output(path, ProbeLevel::Layer),
      m_qkv(path, {"q_proj", "k_proj", "v_proj", "q_norm", "k_norm"}),
      m_nQRope(path + ".q_rope", ProbeLevel::Op),
      m_nKRope(path + ".k_rope", ProbeLevel::Op),
      m_nScores(path + ".scores", ProbeLevel::Op),
      m_nWeights(path + ".weights", ProbeLevel::Op),
      m_nContext(path + ".context", ProbeLevel::Op) {
    const int64_t d = cfg.hiddenSize;
    m_q = register_module("q_proj", nn::Linear(d, cfg.qWidth(), cfg.qkvBias));
    m_k = register_module("k_proj", nn::Linear(d, cfg.kvWidth(), cfg.qkvBias));
    m_v = register_module("v_proj", nn::Linear(d, cfg.kvWidth(), cfg.qkvBias));
    m_o = register_module("o_proj", nn::Linear(cfg.qWidth(), d, cfg.oBias));
    if (cfg.qkNorm) {
        m_qNorm = register_module("q_norm", nn::RMSNorm(cfg.headDim, cfg.rmsNormEps));
        m_kNorm = register_module("k_norm", nn::RMSNorm(cfg.headDim, cfg.rmsNormEps));
    }
}

torch::Tensor QwenAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& cos,
                                         const torch::Tensor& sin, const torch::Tensor& allowed,
                                         ProbeContext& probes) {
    const int64_t B = x.size(0), L = x.size(1), H = m_cfg.numHeads, KV = m_cfg.numKeyValueHeads,
                  Dh = m_cfg.headDim;
    auto q = probes.point(m_qkv.q, m_q->forward(x)).view({B, L, H, Dh});   // [B, L, H, Dh]
    auto k = probes.point(m_qkv.k, m_k->forward(x)).view({B, L, KV, Dh});  // [B, L, KV, Dh]
    auto v = probes.point(m_qkv.v, m_v->forward(x)).view({B, L, KV, Dh});
    if (m_cfg.qkNorm) {  // Qwen3: RMSNorm over each head, before the rotation
        q = probes.point(m_qkv.nq, m_qNorm->forward(q));
        k = probes.point(m_qkv.nk, m_kNorm->forward(k));
    }
    q = q.transpose(1, 2);  // [B, H, L, Dh]
    k = k.transpose(1, 2);  // [B, KV, L, Dh]
    v = v.transpose(1, 2);  // [B, KV, L, Dh]
    // apply_rotary_pos_emb: x * cos + rotate_half(x) * sin, cos/sin broadcast over the heads.
    auto c = cos.unsqueeze(1).to(q.scalar_type()), s = sin.unsqueeze(1).to(q.scalar_type());
    q = probes.point(m_nQRope, q * c + rotateHalf(q) * s);  // [B, H, L, Dh]
    k = probes.point(m_nKRope, k * c + rotateHalf(k) * s);  // [B, KV, L, Dh]
    // repeat_kv: key/value head g serves query heads g * H/KV ... (g + 1) * H/KV - 1.
    auto repeat = [&](const torch::Tensor& t) {
        if (KV == H) return t;
        return t.unsqueeze(2).expand({B, KV, H / KV, L, Dh}).reshape({B, H, L, Dh});
    };
    k = repeat(k);
    v = repeat(v);
    const double scale = 1.0 / std::sqrt(double(Dh));
    auto scores = torch::matmul(q.to(torch::kFloat32), k.to(torch::kFloat32).transpose(-2, -1));
    scores = probes.pointAs(m_nScores, Format::FP32, scores.mul_(scale));  // [B, H, L, L]
    // finfo.min at masked keys: weight 0 there, and equal weights over every key in a row whose
    // keys are all masked (min + score == min in fp32).
    const double lowest = double(std::numeric_limits<float>::lowest());
    scores.masked_fill_(allowed.logical_not(), lowest);
    auto weights = torch::softmax(scores, -1).to(v.scalar_type());  // [B, H, L, L]
    weights = probes.point(m_nWeights, weights);
    auto ctx = torch::matmul(weights, v).transpose(1, 2).reshape({B, L, H * Dh});
    ctx = probes.point(m_nContext, ctx);               // [B, L, H * Dh]
    return probes.point(m_output, m_o->forward(ctx));  // [B, L, D]
}

QwenMlpImpl::QwenMlpImpl(const QwenConfig& cfg, const std::string& path)
    : m_output(path, ProbeLevel::Layer),
      m_nGate(path + ".gate_proj", ProbeLevel::Op),
      m_nAct(path + ".act", ProbeLevel::Op),
      m_nUp(path + ".up_proj", ProbeLevel::Op),
      m_nProduct(path + ".gate", ProbeLevel::Op) {
    m_gate = register_module("gate_proj", nn::Linear(cfg.hiddenSize, cfg.intermediateSize, false));
    m_up = register_module("up_proj", nn::Linear(cfg.hiddenSize, cfg.intermediateSize, false));
    m_down = register_module("down_proj", nn::Linear(cfg.intermediateSize, cfg.hiddenSize, false));
}

torch::Tensor QwenMlpImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto g = probes.point(m_nGate, m_gate->forward(x));  // [B, L, I]
    g = probes.point(m_nAct, torch::silu(g));
    auto u = probes.point(m_nUp, m_up->forward(x));     // [B, L, I]
    auto h = probes.point(m_nProduct, g * u);           // [B, L, I]
    return probes.point(m_output, m_down->forward(h));  // [B, L, D]
}

QwenDecoderLayerImpl::QwenDecoderLayerImpl(const QwenConfig& cfg, const std::string& path)
    : m_output(path, ProbeLevel::Module, kResidualStream),
      m_nInputNorm(path + ".input_layernorm", ProbeLevel::Layer),
      m_nResidual(path + ".attn_residual", ProbeLevel::Op, kResidualStream),
      m_nPostNorm(path + ".post_attention_layernorm", ProbeLevel::Layer) {
    m_selfAttn = register_module("self_attn", QwenAttention(cfg, path + ".self_attn"));
    m_mlp = register_module("mlp", QwenMlp(cfg, path + ".mlp"));
    m_inputNorm = register_module("input_layernorm", nn::RMSNorm(cfg.hiddenSize, cfg.rmsNormEps));
    m_postNorm =
        register_module("post_attention_layernorm", nn::RMSNorm(cfg.hiddenSize, cfg.rmsNormEps));
}

torch::Tensor QwenDecoderLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& cos,
                                            const torch::Tensor& sin, const torch::Tensor& allowed,
                                            ProbeContext& probes) {
    auto h = probes.point(m_nInputNorm, m_inputNorm->forward(x));  // [B, L, D]
    h = m_selfAttn->forward(h, cos, sin, allowed, probes);
    auto r = probes.point(m_nResidual, addAs(x, h, m_nResidual, probes));  // [B, L, D]
    h = probes.point(m_nPostNorm, m_postNorm->forward(r));
    h = m_mlp->forward(h, probes);
    return probes.point(m_output, addAs(r, h, m_output, probes));  // [B, L, D]
}

QwenTextModelImpl::QwenTextModelImpl(QwenConfig cfg, const std::string& component,
                                     const std::string& keyPrefix)
    : m_cfg(std::move(cfg)), m_keyPrefix(keyPrefix) {
    const std::string base = (component.empty() ? "" : component + ".") + keyPrefix;
    m_nEmbed = {base + "embed_tokens", ProbeLevel::Layer};
    m_nCos = {base + "rotary_emb.cos", ProbeLevel::Op};
    m_nSin = {base + "rotary_emb.sin", ProbeLevel::Op};
    m_nNorm = {base + "norm", ProbeLevel::Layer};
    // The key prefix as nested modules: "model.language_model." -> model -> language_model.
    torch::nn::Module* owner = this;
    std::shared_ptr<torch::nn::Module> nested;
    for (size_t start = 0; start < keyPrefix.size();) {
        const size_t dot = keyPrefix.find('.', start);
        if (dot == std::string::npos || dot == start)
            throw std::invalid_argument("Qwen key prefix '" + keyPrefix +
                                        "' must be dotted names ending in '.'");
        nested = owner->register_module(keyPrefix.substr(start, dot - start),
                                        std::make_shared<torch::nn::Module>());
        owner = nested.get();
        start = dot + 1;
    }
    m_embed =
        owner->register_module("embed_tokens", nn::Embedding(m_cfg.vocabSize, m_cfg.hiddenSize));
    auto layers = owner->register_module("layers", torch::nn::ModuleList());
    for (int i = 0; i < m_cfg.numLayers; ++i) {
        m_layers.push_back(QwenDecoderLayer(m_cfg, base + "layers." + std::to_string(i)));
        layers->push_back(m_layers.back());
    }
    m_norm = owner->register_module("norm", nn::RMSNorm(m_cfg.hiddenSize, m_cfg.rmsNormEps));
}

QwenTextOutput QwenTextModelImpl::forward(const torch::Tensor& ids, const torch::Tensor& mask,
                                          ProbeContext& probes) {
    const int64_t B = ids.size(0), L = ids.size(1);
    SmallWork work(B * L * m_cfg.hiddenSize * int64_t(m_cfg.intermediateSize));  // gate_proj
    QwenTextOutput out;
    auto h = probes.point(m_nEmbed, m_embed->forward(ids));  // [B, L, D]
    out.hiddenStates.push_back(h);
    torch::Tensor pos =
        torch::arange(L, ids.options().dtype(torch::kInt64)).unsqueeze(0);  // [1, L]
    if (m_cfg.maskedPositions && mask.defined()) {
        auto m = mask.to(ids.device(), torch::kInt64);
        pos = (m.cumsum(-1) - 1).masked_fill(m.eq(0), 1);  // [B, L]
    }
    auto [cos, sin] = qwenRotary(pos, m_cfg.headDim, m_cfg.ropeTheta);  // [B or 1, L, Dh]
    // Qwen3RotaryEmbedding returns cos and sin in the hidden states' dtype.
    cos = probes.point(m_nCos, cos);
    sin = probes.point(m_nSin, sin);
    const auto allowed = qwenAllowed(mask, L, ids.device());  // [B or 1, 1, L, L]
    for (size_t i = 0; i < m_layers.size(); ++i) {
        WeightStream::Scope held = holdBlock(m_keyPrefix + "layers." + std::to_string(i) + ".");
        h = m_layers[i]->forward(h, cos, sin, allowed, probes);  // [B, L, D]
        if (i + 1 < m_layers.size()) out.hiddenStates.push_back(h);
    }
    out.lastHiddenState = probes.point(m_nNorm, m_norm->forward(h));  // [B, L, D]
    out.hiddenStates.push_back(out.lastHiddenState);
    return out;
}

}  // namespace hs
