#pragma once
// Scaled dot-product attention as the DiT families (Flux, Qwen-Image, Cosmos, SD3) call it, and
// the interleaved-pair rotary embedding Flux and Qwen-Image apply to q and k.
#include <torch/torch.h>

#include <array>
#include <functional>
#include <string>

#include "models/common/layers.h"
#include "numerics/probe.h"

namespace hs {

// Op probe points of one stream's q, k, v projections and the RMSNorms of q and k, under the
// attention's `path`: to_q, to_k, to_v, norm_q, norm_k or, added (the text stream of a joint
// attention), add_q_proj, add_k_proj, add_v_proj, norm_added_q, norm_added_k.
struct QkvPoints {
    ProbePoint q, k, v, nq, nk;
    QkvPoints() = default;
    QkvPoints(const std::string& path, bool added);
    // Other key names: {q, k, v, q norm, k norm} ("q_proj", ..., "q_norm", "k_norm").
    QkvPoints(const std::string& path, const std::array<const char*, 5>& names);
};
struct Qkv {
    torch::Tensor q, k, v;
};
// One stream's q, k, v in diffusers Attention: the projections of x [B, L, D], each split into
// heads [B, L, H, Dh] (headsFirst: transposed to [B, H, L, Dh] before the norms), q and k then
// RMS-normalised over each head where nq / nk are set (qk_norm "rms_norm").
Qkv projectQkv(ProbeContext& probes, const torch::Tensor& x, int heads, int headDim,
               bool headsFirst, nn::Linear& lq, nn::Linear& lk, nn::Linear& lv, nn::RMSNorm& nq,
               nn::RMSNorm& nk, const QkvPoints& points);

// The parameters of diffusers' Attention as the MMDiT processors hold them (Flux, SD3,
// Qwen-Image), registered at the module's own level: the image stream's to_q, to_k, to_v
// (+ norm_q, norm_k: RMSNorm over each head, eps 1e-6, when qkNorm) and to_out.0 (when imageOut;
// to_out.1 is dropout); with a text stream add_q_proj, add_k_proj, add_v_proj (+ norm_added_q,
// norm_added_k) and to_add_out (when textOut). The families' attention modules derive from it.
class JointAttentionParams : public torch::nn::Module {
public:
    struct Shape {
        int64_t dim;
        int heads, headDim;
        bool qkNorm, text, imageOut, textOut;
    };
    nn::Linear to_q{nullptr}, to_k{nullptr}, to_v{nullptr};
    nn::RMSNorm norm_q{nullptr}, norm_k{nullptr};
    nn::Linear add_q_proj{nullptr}, add_k_proj{nullptr}, add_v_proj{nullptr};
    nn::RMSNorm norm_added_q{nullptr}, norm_added_k{nullptr};
    torch::nn::ModuleList to_out{nullptr};
    nn::Linear to_out0{nullptr}, to_add_out{nullptr};

protected:
    JointAttentionParams(const Shape& shape, const std::string& path);
    // projectQkv over the image stream x [B, L_img, D] or the text stream [B, L_txt, D].
    Qkv imageQkv(ProbeContext& probes, const torch::Tensor& x, bool headsFirst);
    Qkv textQkv(ProbeContext& probes, const torch::Tensor& context, bool headsFirst);

    int m_heads, m_headDim;
    QkvPoints m_img, m_txt;
};

// Rotary tables: cos and sin, each [L, head_dim] float32, each angle repeated for its (2k, 2k+1)
// pair (FluxPosEmbed; QwenEmbedRope laid out for real arithmetic).
struct RopeTables {
    torch::Tensor cos, sin;
};

// diffusers apply_rotary_emb(use_real=True, unbind_dim=-1, sequence_dim=1) on x [B, L, H, D]:
// computed in float32, cast back to x's dtype.
torch::Tensor applyRope(const torch::Tensor& x, const RopeTables& rope);

// softmax(q k^T / sqrt(D)) v for q [B, H, Lq, D], k and v [B, H, Lk, D] -> [B, H, Lq, D], as one
// op: with LibTorch >= 2 it is at::scaled_dot_product_attention; on 1.13 the scores and the
// softmax run in float32 for half types (as SDPA kernels accumulate), the probabilities are
// cast to v's dtype for the second product (as flash attention does), and the query axis is
// processed in chunks so the score matrix stays below ~256 MB.
// one(q chunk) over chunks of q's rows, q [B, H, Lq, D], so that the float32 scores of a chunk,
// [B, H, n, keys], stay under ~256 MB; the results [B, H, n, D] concatenated along the rows.
torch::Tensor overQueryChunks(const torch::Tensor& q, int64_t keys,
                              const std::function<torch::Tensor(const torch::Tensor&)>& one);

torch::Tensor fusedAttention(const torch::Tensor& q, const torch::Tensor& k,
                             const torch::Tensor& v);

}  // namespace hs
