#include "families/t5/t5_encoder.h"

#include <cmath>

#include "runtime/parallelism.h"

namespace hs {

torch::Tensor t5RelativeBuckets(int64_t L, int numBuckets, int maxDistance,
                                const torch::Device& device) {
    const auto opts = torch::TensorOptions().dtype(torch::kInt64).device(device);
    auto pos = torch::arange(L, opts);
    auto rel = pos.unsqueeze(0) - pos.unsqueeze(1);  // [q, k]: key position - query position
    // Half the buckets for keys after the query, half for keys before it.
    const int64_t half = numBuckets / 2;
    auto buckets = rel.gt(0).to(torch::kInt64) * half;
    rel = rel.abs();
    // Exact buckets up to half / 2, then logarithmic up to maxDistance, the rest in the last.
    const int64_t maxExact = half / 2;
    auto large =
        maxExact + (torch::log(rel.to(torch::kFloat32) / double(maxExact)) /
                    std::log(double(maxDistance) / double(maxExact)) * double(half - maxExact))
                       .to(torch::kInt64);
    large = torch::clamp_max(large, half - 1);
    return buckets + torch::where(rel.lt(maxExact), rel, large);  // [q, k]
}

T5AttentionImpl::T5AttentionImpl(const T5Config& cfg, const std::string& path, bool hasRelativeBias)
    : m_cfg(cfg),
      m_nQ(path + ".q", ProbeLevel::Op),
      m_nK(path + ".k", ProbeLevel::Op),
      m_nV(path + ".v", ProbeLevel::Op),
      m_nScores(path + ".scores", ProbeLevel::Op),
      m_nBiased(path + ".biased_scores", ProbeLevel::Op),
      m_nWeights(path + ".weights", ProbeLevel::Op),
      m_nContext(path + ".context", ProbeLevel::Op),
      m_nO(path + ".o", ProbeLevel::Layer),
      m_nBias(path + ".position_bias", ProbeLevel::Op) {
    const int64_t d = cfg.dModel, inner = cfg.innerDim();
    m_q = register_module("q", nn::Linear(d, inner, false));
    m_k = register_module("k", nn::Linear(d, inner, false));
    m_v = register_module("v", nn::Linear(d, inner, false));
    m_o = register_module("o", nn::Linear(inner, d, false));
    if (hasRelativeBias)
        m_relativeBias =
            register_module("relative_attention_bias",
                            nn::Embedding(cfg.relativeAttentionNumBuckets, cfg.numHeads));
}

torch::Tensor T5AttentionImpl::positionBias(int64_t L, const torch::Device& device,
                                            ProbeContext& probes) {
    auto buckets = t5RelativeBuckets(L, m_cfg.relativeAttentionNumBuckets,
                                     m_cfg.relativeAttentionMaxDistance, device);  // [L, L]
    auto values = m_relativeBias->forward(buckets);                                // [L, L, H]
    return probes.point(m_nBias, values.permute({2, 0, 1}).unsqueeze(0));          // [1,H,L,L]
}

torch::Tensor T5AttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& bias,
                                       ProbeContext& probes) {
    const int64_t B = x.size(0), L = x.size(1), H = m_cfg.numHeads, Dh = m_cfg.dKv;
    auto heads = [&](const torch::Tensor& t) {
        return t.view({B, L, H, Dh}).transpose(1, 2);  // [B, H, L, Dh]
    };
    auto q = heads(probes.point(m_nQ, m_q->forward(x)));
    auto k = heads(probes.point(m_nK, m_k->forward(x)));
    auto v = heads(probes.point(m_nV, m_v->forward(x)));
    auto scores = probes.point(m_nScores, torch::matmul(q, k.transpose(-2, -1)));  // [B,H,L,L]
    scores = probes.point(m_nBiased, scores + bias.to(scores.scalar_type()));
    auto weights = torch::softmax(scores.to(torch::kFloat32), -1).to(scores.scalar_type());
    weights = probes.point(m_nWeights, weights);  // [B, H, L, L]
    auto ctx = torch::matmul(weights, v).transpose(1, 2).reshape({B, L, H * Dh});
    ctx = probes.point(m_nContext, ctx);           // [B, L, inner]
    return probes.point(m_nO, m_o->forward(ctx));  // [B, L, D]
}

T5DenseImpl::T5DenseImpl(const T5Config& cfg, const std::string& path)
    : m_cfg(cfg),
      m_nWi0(path + ".wi_0", ProbeLevel::Op),
      m_nWi1(path + ".wi_1", ProbeLevel::Op),
      m_nWi(path + ".wi", ProbeLevel::Op),
      m_nAct(path + ".act", ProbeLevel::Op),
      m_nGate(path + ".gate", ProbeLevel::Op),
      m_nWo(path + ".wo", ProbeLevel::Layer) {
    if (cfg.gated) {
        m_wi0 = register_module("wi_0", nn::Linear(cfg.dModel, cfg.dFf, false));
        m_wi1 = register_module("wi_1", nn::Linear(cfg.dModel, cfg.dFf, false));
    } else {
        m_wi = register_module("wi", nn::Linear(cfg.dModel, cfg.dFf, false));
    }
    m_wo = register_module("wo", nn::Linear(cfg.dFf, cfg.dModel, false));
}

torch::Tensor T5DenseImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto act = [&](const torch::Tensor& h) {
        switch (m_cfg.act) {
            case T5Activation::Relu:
                return torch::relu(h);
            case T5Activation::Gelu:
                return torch::gelu(h);
            case T5Activation::GeluTanh:  // gelu_new: the tanh approximation
                return torch::gelu(h, "tanh");
            case T5Activation::Silu:
                return torch::silu(h);
        }
        return h;
    };
    torch::Tensor h;  // [B, L, F]
    if (m_cfg.gated) {
        auto g = probes.point(m_nAct, act(probes.point(m_nWi0, m_wi0->forward(x))));
        auto lin = probes.point(m_nWi1, m_wi1->forward(x));
        h = probes.point(m_nGate, g * lin);
    } else {
        h = probes.point(m_nAct, act(probes.point(m_nWi, m_wi->forward(x))));
    }
    // The Linear casts h to wo's dtype: transformers does the same when wo is kept in fp32.
    return probes.point(m_nWo, m_wo->forward(h));  // [B, L, D]
}

T5BlockImpl::T5BlockImpl(const T5Config& cfg, const std::string& path, bool hasRelativeBias)
    : m_path(path),
      m_nNorm0(path + ".layer.0.layer_norm", ProbeLevel::Layer),
      m_nNorm1(path + ".layer.1.layer_norm", ProbeLevel::Layer),
      m_nLayer0(path + ".layer.0", ProbeLevel::Layer, kResidualStream),
      m_nOutput(path, ProbeLevel::Module, kResidualStream) {
    auto layers = register_module("layer", torch::nn::ModuleList());
    auto selfAttention = std::make_shared<torch::nn::Module>();
    auto ff = std::make_shared<torch::nn::Module>();
    layers->push_back(selfAttention);
    layers->push_back(ff);
    m_attention = selfAttention->register_module(
        "SelfAttention", T5Attention(cfg, path + ".layer.0.SelfAttention", hasRelativeBias));
    m_norm0 =
        selfAttention->register_module("layer_norm", nn::RMSNorm(cfg.dModel, cfg.layerNormEpsilon));
    m_dense = ff->register_module("DenseReluDense", T5Dense(cfg, path + ".layer.1.DenseReluDense"));
    m_norm1 = ff->register_module("layer_norm", nn::RMSNorm(cfg.dModel, cfg.layerNormEpsilon));
}

T5Stream T5BlockImpl::residual(const T5Stream& s, const torch::Tensor& branch,
                               const std::string& branchPath, const ProbePoint& p,
                               ProbeContext& probes) const {
    const PrecisionPolicy& policy = probes.policy();
    Format f = promoted(s.format, policy.formatFor(branchPath));
    // An fp32-residual stream is summed and held in fp32 (on a GPU too, where fp16 is native).
    if (p.residual && policy.info(p.name).fp32Residual) f = Format::FP32;
    // The point's own dtype when the sum keeps its format (a remedy may run it emulated).
    const auto dt =
        f == policy.formatFor(p.name) ? policy.computeTypeFor(p.name) : policy.computeTypeOf(f);
    torch::Tensor y = s.x.to(dt) + branch.to(dt);  // [B, L, D]
    if (f == Format::FP16 && policy.plan().clamps(m_path)) {
        // transformers' T5Block: clamp_value = max - 1000 once the stream holds an Inf.
        if (policy.executionOf(f) == Execution::Emulated) y = roundTo(y, f);
        const bool inf = y.isinf().any().item<bool>();
        const double limit = inf ? kFp16Max - 1000 : kFp16Max;
        y = y.clamp(-limit, limit);
    }
    return {probes.pointAs(p, f, y), f};
}

T5Stream T5BlockImpl::forward(T5Stream s, const torch::Tensor& bias, ProbeContext& probes) {
    auto h = probes.point(m_nNorm0, m_norm0->forward(s.x));  // [B, L, D]
    h = m_attention->forward(h, bias, probes);
    s = residual(s, h, m_attention->outputPath(), m_nLayer0, probes);
    h = probes.point(m_nNorm1, m_norm1->forward(s.x));
    h = m_dense->forward(h, probes);
    return residual(s, h, m_dense->outputPath(), m_nOutput, probes);
}

T5EncoderModelImpl::T5EncoderModelImpl(T5Config cfg, const std::string& component)
    : m_cfg(std::move(cfg)) {
    const std::string base = component.empty() ? "" : component + ".";
    m_nShared = {base + "shared", ProbeLevel::Layer};
    m_nFinalNorm = {base + "encoder.final_layer_norm", ProbeLevel::Layer};
    m_shared = register_module("shared", nn::Embedding(m_cfg.vocabSize, m_cfg.dModel));
    auto encoder = register_module("encoder", std::make_shared<torch::nn::Module>());
    auto blocks = encoder->register_module("block", torch::nn::ModuleList());
    for (int i = 0; i < m_cfg.numLayers; ++i) {
        m_blocks.push_back(T5Block(m_cfg, base + "encoder.block." + std::to_string(i), i == 0));
        blocks->push_back(m_blocks.back());
    }
    m_finalNorm = encoder->register_module("final_layer_norm",
                                           nn::RMSNorm(m_cfg.dModel, m_cfg.layerNormEpsilon));
}

torch::Tensor T5EncoderModelImpl::forward(const torch::Tensor& ids, const torch::Tensor& mask,
                                          ProbeContext& probes) {
    const int64_t B = ids.size(0), L = ids.size(1);
    SmallWork work(B * L * m_cfg.dModel * int64_t(m_cfg.dFf));  // one feed-forward matmul
    const PrecisionPolicy& policy = probes.policy();
    T5Stream s{probes.point(m_nShared, m_shared->forward(ids)), policy.formatFor(m_nShared.name)};

    // Shared by every block, as transformers passes block 0's bias on: [1 or B, H, L, L].
    T5Attention& first = m_blocks.front()->attention();
    // The bucket table is block 0's weight: hold block 0 from here through its run.
    WeightStream::Scope held0 = holdBlock("encoder.block.0.");
    torch::Tensor bias = first->positionBias(L, ids.device(), probes);
    if (mask.defined()) {
        // (1 - mask) * finfo(model dtype).min on the keys, added to the bias: [B, 1, 1, L].
        const Format f = policy.formatFor(first->outputPath());
        const double lowest = -limitsOf(f).maxFinite;
        auto keys = (1 - mask.to(bias.scalar_type())).mul(lowest).view({B, 1, 1, L});
        bias = bias + keys;
    }
    for (size_t i = 0; i < m_blocks.size(); ++i) {
        WeightStream::Scope held =
            i == 0 ? std::move(held0) : holdBlock("encoder.block." + std::to_string(i) + ".");
        s = m_blocks[i]->forward(s, bias, probes);  // [B, L, D]
    }
    return probes.point(m_nFinalNorm, m_finalNorm->forward(s.x));  // [B, L, D]
}

}  // namespace hs
