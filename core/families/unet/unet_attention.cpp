#include "families/unet/unet_attention.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hs {

UNetAttentionImpl::UNetAttentionImpl(int queryDim, int crossDim, int heads, int headDim,
                                     bool upcast, const std::string& path)
    : m_heads(heads),
      m_headDim(headDim),
      m_upcast(upcast),
      m_scale(1.0 / std::sqrt(double(headDim))),
      m_qkv(path, false),
      m_nScores(path + ".scores", ProbeLevel::Op),
      m_nProbs(path + ".probs", ProbeLevel::Op),
      m_nSdpa(path + ".sdpa", ProbeLevel::Op),
      m_nOut(path + ".to_out.0", ProbeLevel::Op) {
    const int inner = heads * headDim;
    const int kv = crossDim > 0 ? crossDim : queryDim;
    to_q = register_module("to_q", nn::Linear(queryDim, inner, /*bias=*/false));
    to_k = register_module("to_k", nn::Linear(kv, inner, /*bias=*/false));
    to_v = register_module("to_v", nn::Linear(kv, inner, /*bias=*/false));
    to_out0 = nn::Linear(inner, queryDim);
    m_toOut->push_back(to_out0);  // to_out.1 is a dropout: no parameters
    register_module("to_out", m_toOut);
}

torch::Tensor UNetAttentionImpl::attend(const torch::Tensor& q, const torch::Tensor& k,
                                        const torch::Tensor& v, ProbeContext& probes) {
    // get_attention_scores: with upcast_attention q and k go to float32 first.
    const auto scoreType = m_upcast ? torch::kFloat : q.scalar_type();
    auto qs = q.scalar_type() == scoreType ? q : q.to(scoreType);                    // [BH, Lq, d]
    auto kt = (k.scalar_type() == scoreType ? k : k.to(scoreType)).transpose(1, 2);  // [BH, d, Lk]
    const int64_t BH = q.size(0), Lq = q.size(1), Lk = k.size(1);
    const int64_t rows =
        std::max<int64_t>(1, kUNetMaxScoreElements / std::max<int64_t>(1, BH * Lk));
    const int64_t n0 = std::min(rows, Lq);
    // One score buffer for all chunks (the allocator would otherwise map and fault it in anew).
    auto buffer = torch::empty({BH * n0 * Lk}, qs.options());
    std::vector<torch::Tensor> parts;
    for (int64_t s = 0; s < Lq; s += rows) {
        const int64_t n = std::min(rows, Lq - s);
        auto qc = n == Lq ? qs : qs.narrow(1, s, n);  // [BH, n, d]
        auto buf = buffer.narrow(0, 0, BH * n * Lk).view({BH, n, Lk});
        at::bmm_out(buf, qc, kt);  // [BH, n, Lk], q already carries the scale
        // Upcast scores are float32 whatever the block's format: recorded as such, not rounded.
        auto scores =
            m_upcast ? probes.pointAs(m_nScores, Format::FP32, buf) : probes.point(m_nScores, buf);
        // Softmax kernels accumulate in float32 and round once for half types (LibTorch's bf16
        // CPU kernel gives the float32 result rounded, bit for bit); on the CPU in place.
        torch::Tensor probs;
        const auto st = scores.scalar_type();
        if ((st == torch::kFloat || st == torch::kBFloat16) && scores.is_contiguous() &&
            scores.device().is_cpu())
            probs = at::_softmax_out(scores, scores, -1, false);  // row by row
        else
            probs = torch::softmax(scores, -1);
        probs = probes.point(m_nProbs, asTypeOf(probs, v));  // attention_probs.to(dtype)
        parts.push_back(torch::bmm(probs, v));               // [BH, n, d]
    }
    return parts.size() == 1 ? parts.front() : torch::cat(parts, 1);  // [BH, Lq, d]
}

torch::Tensor UNetAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& context,
                                         ProbeContext& probes) {
    const int64_t B = x.size(0), Lq = x.size(1), H = m_heads, d = m_headDim;
    const auto& ctx = context.defined() ? context : x;
    const int64_t Lk = ctx.size(1);
    auto q = probes.point(m_qkv.q, to_q->forward(x));    // [B, Lq, H d]
    auto k = probes.point(m_qkv.k, to_k->forward(ctx));  // [B, Lk, H d]
    auto v = probes.point(m_qkv.v, to_v->forward(ctx));  // [B, Lk, H d]
    // head_to_batch_dim: [B, L, H d] -> [B H, L, d]; the scale rides on q's copy.
    auto qh = q.view({B, Lq, H, d}).permute({0, 2, 1, 3}).reshape({B * H, Lq, d}).mul_(m_scale);
    auto kh = k.view({B, Lk, H, d}).permute({0, 2, 1, 3}).reshape({B * H, Lk, d});
    auto vh = v.view({B, Lk, H, d}).permute({0, 2, 1, 3}).reshape({B * H, Lk, d});
    auto o = attend(qh, kh, vh, probes);  // [B H, Lq, d]
    // batch_to_head_dim: [B H, Lq, d] -> [B, Lq, H d]
    o = probes.point(m_nSdpa, o.view({B, H, Lq, d}).permute({0, 2, 1, 3}).reshape({B, Lq, H * d}));
    return probes.point(m_nOut, to_out0->forward(o));  // [B, Lq, D]
}

}  // namespace hs
