#pragma once
// transformers T5EncoderModel (families/t5/modeling_t5.py), the encoder stack of T5 v1.0 and v1.1.
// named_parameters() equal the checkpoint keys: shared.weight,
// encoder.block.N.layer.0.SelfAttention.{q,k,v,o}.weight (+ relative_attention_bias.weight in
// block 0), encoder.block.N.layer.0.layer_norm.weight,
// encoder.block.N.layer.1.DenseReluDense.{wi_0,wi_1,wo | wi,wo}.weight,
// encoder.block.N.layer.1.layer_norm.weight, encoder.final_layer_norm.weight.
//
// Probe points, under the component prefix P ("text_encoder_2" by default), with B =
// P.encoder.block.N:
//   Module: B (the block output)
//   Layer:  P.shared, B.layer.0.layer_norm, B.layer.0.SelfAttention.o, B.layer.0 (after the
//           attention residual), B.layer.1.layer_norm, B.layer.1.DenseReluDense.wo,
//           P.encoder.final_layer_norm
//   Op:     B.layer.0.SelfAttention.{q,k,v,scores,biased_scores,weights,context},
//           P.encoder.block.0.layer.0.SelfAttention.position_bias,
//           B.layer.1.DenseReluDense.{wi_0,act,wi_1,gate | wi,act}
// Attention is transformers' eager path: q·kᵀ without scaling is stored in the model's format
// (T5's scores are large: in fp16 they are the first place to overflow after the
// feed-forward), softmax in fp32, probabilities stored back in the format.
//
// The residual stream follows PyTorch's type promotion, as in transformers: a branch whose last
// layer is kept in fp32 (the "...DenseReluDense.wo=fp32" rule, transformers'
// _keep_in_fp32_modules) widens the stream to fp32 from there on. A "P=clamp" rule applies
// transformers' fp16 clamp after the attention and feed-forward layers of every block while
// the stream is fp16: once it holds an Inf, everything is clamped to +-(65504 - 1000).
#include <torch/torch.h>

#include <string>
#include <vector>

#include "models/common/layers.h"
#include "models/common/weight_stream.h"
#include "families/t5/t5_config.h"
#include "numerics/probe.h"

namespace hs {

// The residual stream and its format (where the format is emulated the tensor is fp32).
struct T5Stream {
    torch::Tensor x;  // [B, L, D]
    Format format;
};

// T5Attention (encoder self-attention, bidirectional relative position buckets).
class T5AttentionImpl : public torch::nn::Module {
public:
    T5AttentionImpl(const T5Config& cfg, const std::string& path, bool hasRelativeBias);
    // x [B, L, D] (normed) and bias [B or 1, H, L, L] (position bias plus mask) -> [B, L, D]
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& bias, ProbeContext& probes);
    // Block 0 only: the learned bias of each relative position bucket, [1, H, L, L].
    torch::Tensor positionBias(int64_t L, const torch::Device& device, ProbeContext& probes);
    const std::string& outputPath() const { return m_nO.name; }

private:
    T5Config m_cfg;
    nn::Linear m_q{nullptr}, m_k{nullptr}, m_v{nullptr}, m_o{nullptr};
    nn::Embedding m_relativeBias{nullptr};
    ProbePoint m_nQ, m_nK, m_nV, m_nScores, m_nBiased, m_nWeights, m_nContext, m_nO, m_nBias;
};
TORCH_MODULE(T5Attention);

// T5DenseGatedActDense (wi_0, wi_1, wo) or T5DenseActDense (wi, wo): [B, L, D] -> [B, L, D]
class T5DenseImpl : public torch::nn::Module {
public:
    T5DenseImpl(const T5Config& cfg, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);
    const std::string& outputPath() const { return m_nWo.name; }

private:
    T5Config m_cfg;
    nn::Linear m_wi0{nullptr}, m_wi1{nullptr}, m_wi{nullptr}, m_wo{nullptr};
    ProbePoint m_nWi0, m_nWi1, m_nWi, m_nAct, m_nGate, m_nWo;
};
TORCH_MODULE(T5Dense);

// T5Block: layer.0 = T5LayerSelfAttention, layer.1 = T5LayerFF, each pre-norm with a residual.
class T5BlockImpl : public torch::nn::Module {
public:
    T5BlockImpl(const T5Config& cfg, const std::string& path, bool hasRelativeBias);
    T5Stream forward(T5Stream s, const torch::Tensor& bias, ProbeContext& probes);
    T5Attention& attention() { return m_attention; }

private:
    T5Stream residual(const T5Stream& s, const torch::Tensor& branch, const std::string& branchPath,
                      const ProbePoint& p, ProbeContext& probes) const;
    std::string m_path;
    T5Attention m_attention{nullptr};
    T5Dense m_dense{nullptr};
    nn::RMSNorm m_norm0{nullptr}, m_norm1{nullptr};
    ProbePoint m_nNorm0, m_nNorm1, m_nLayer0, m_nOutput;
};
TORCH_MODULE(T5Block);

// With a weight stream (LoadMode::Streamed) each block's weights are held only while it runs:
// prefixes "encoder.block.N.". Block 0's relative attention bias is needed before the blocks
// run (it is shared by all of them), so it is held for the position bias too.
class T5EncoderModelImpl : public torch::nn::Module, public StreamedBlocks {
public:
    explicit T5EncoderModelImpl(T5Config cfg, const std::string& component = "text_encoder_2");
    // ids [B, L] int64 (ids < vocab_size: runT5Encoder checks); mask [B, L] (1 = token, 0 =
    // padding) or undefined for none, as FluxPipeline calls it. -> last_hidden_state [B, L, D]
    torch::Tensor forward(const torch::Tensor& ids, const torch::Tensor& mask,
                          ProbeContext& probes);
    const T5Config& config() const { return m_cfg; }

private:
    T5Config m_cfg;
    nn::Embedding m_shared{nullptr};
    std::vector<T5Block> m_blocks;
    nn::RMSNorm m_finalNorm{nullptr};
    ProbePoint m_nShared, m_nFinalNorm;
};
TORCH_MODULE(T5EncoderModel);

// transformers' T5Attention._relative_position_bucket for an encoder (bidirectional): the bucket
// of each (query, key) pair, [L, L] int64. Exposed for tests.
torch::Tensor t5RelativeBuckets(int64_t L, int numBuckets, int maxDistance,
                                const torch::Device& device);

}  // namespace hs
