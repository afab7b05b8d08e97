#pragma once
// diffusers Attention as BasicTransformerBlock builds it (models/attention_processor.py):
// to_q, to_k, to_v without bias, to_out.0 with bias, heads of head_dim channels, scale
// head_dim^-0.5, run as the classic AttnProcessor runs it (diffusers' processor on torch 1.x):
//   scores = q k^T * scale            (the block's format; float32 with upcast_attention)
//   probs  = softmax(scores) cast to the block's format
//   out    = to_out.0(probs v)
// upcast_attention (SD 2.x) computes q.k and the softmax in float32 even when the block runs in
// fp16 or bf16: emulated, the scores are then not rounded to the format, which is where an fp16
// overflow of the scores (Inf, then NaN from the softmax) would otherwise appear.
//
// Probe points (Op): <path>.to_q, .to_k, .to_v, .scores, .probs, .sdpa (probs v, heads merged),
// .to_out.0. Score matrices larger than kUNetMaxScoreElements are computed in query chunks; the
// .scores and .probs points are then recorded once per chunk (same name), and rounded as always.
#include <torch/torch.h>

#include <string>

#include "models/common/attention.h"
#include "models/common/layers.h"
#include "numerics/probe.h"

namespace hs {

// 64 MiB of float32 scores: a chunk of SD 1.5's 4096-token self-attention at 512 x 512 (16 of
// them) ran 2x faster than the whole score matrix at once, and faster than smaller chunks.
constexpr int64_t kUNetMaxScoreElements = int64_t(1) << 24;

class UNetAttentionImpl : public torch::nn::Module {
public:
    // crossDim 0: self-attention (keys and values from the query input).
    UNetAttentionImpl(int queryDim, int crossDim, int heads, int headDim, bool upcast,
                      const std::string& path);
    // x [B, Lq, D], context [B, Lk, crossDim] (undefined for self-attention) -> [B, Lq, D]
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& context,
                          ProbeContext& probes);

    nn::Linear to_q{nullptr}, to_k{nullptr}, to_v{nullptr}, to_out0{nullptr};

private:
    // q [BH, Lq, d] (already scaled), k and v [BH, Lk, d] -> [BH, Lq, d]
    torch::Tensor attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                         ProbeContext& probes);

    torch::nn::ModuleList m_toOut;
    int m_heads, m_headDim;
    bool m_upcast;
    double m_scale;
    QkvPoints m_qkv;  // to_q, to_k, to_v (no q/k norms)
    ProbePoint m_nScores, m_nProbs, m_nSdpa, m_nOut;
};
TORCH_MODULE(UNetAttention);

}  // namespace hs
