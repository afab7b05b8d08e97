#pragma once
// Attention of the Flux blocks: diffusers Attention with qk nn::RMSNorm run by
// FluxAttnProcessor2_0, the 3-axis rotary embedding (FluxPosEmbed, apply_rotary_emb) and one fused
// attention op.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "models/flux/flux_layers.h"
#include "numerics/probe.h"

namespace hs {

// Rotary tables of FluxPosEmbed: cos and sin, each [L, head_dim] float32.
struct FluxRope {
    torch::Tensor cos, sin;
};

// diffusers FluxPosEmbed(theta, axes_dim): ids [L, n_axes] (any dtype) -> tables [L, sum(axes)].
// Frequencies and angles in float64 (as diffusers off MPS), tables cast to float32.
FluxRope fluxRope(const torch::Tensor& ids, const std::vector<int>& axesDims, double theta);

// diffusers apply_rotary_emb(use_real=True, unbind_dim=-1, sequence_dim=1) on x [B, L, H, D]:
// computed in float32, cast back to x's dtype.
torch::Tensor applyRope(const torch::Tensor& x, const FluxRope& rope);

// softmax(q k^T / sqrt(D)) v for q [B, H, Lq, D], k and v [B, H, Lk, D] -> [B, H, Lq, D], as one
// op: with LibTorch >= 2 it is at::scaled_dot_product_attention; on 1.13 the scores and the
// softmax run in float32 for half types (as SDPA kernels accumulate), the probabilities are
// cast to v's dtype for the second product (as flash attention does), and the query axis is
// processed in chunks so the score matrix stays below ~256 MB.
torch::Tensor fusedAttention(const torch::Tensor& q, const torch::Tensor& k,
                             const torch::Tensor& v);

struct FluxAttentionOut {
    torch::Tensor hidden;   // [B, L_img, D]  (joint: after to_out.0; single: the whole stream)
    torch::Tensor context;  // [B, L_txt, D]  (joint only: after to_add_out)
};

// diffusers Attention(query_dim=dim, heads, dim_head, qk_norm="rms_norm", eps=1e-6, bias=True)
// with FluxAttnProcessor2_0. joint=true: the double block's attention (added_kv_proj_dim=dim,
// context_pre_only=False): keys to_q, to_k, to_v, norm_q, norm_k, add_q_proj, add_k_proj,
// add_v_proj, norm_added_q, norm_added_k, to_out.0, to_add_out. joint=false: the single
// block's (pre_only=True): to_q, to_k, to_v, norm_q, norm_k; no output projection.
class FluxAttentionImpl : public torch::nn::Module {
public:
    FluxAttentionImpl(int64_t dim, int heads, int headDim, bool joint, const std::string& path);
    // x [B, L, D] (single: the joint [txt | img] stream), context [B, L_txt, D] (joint only)
    FluxAttentionOut forward(const torch::Tensor& x, const torch::Tensor& context,
                             const FluxRope& rope, ProbeContext& probes);

    nn::Linear to_q{nullptr}, to_k{nullptr}, to_v{nullptr};
    nn::RMSNorm norm_q{nullptr}, norm_k{nullptr};
    nn::Linear add_q_proj{nullptr}, add_k_proj{nullptr}, add_v_proj{nullptr};
    nn::RMSNorm norm_added_q{nullptr}, norm_added_k{nullptr};
    torch::nn::ModuleList to_out{nullptr};
    nn::Linear to_out0{nullptr}, to_add_out{nullptr};

private:
    // q, k, v of one stream, each [B, L, H, Dh], q and k RMS-normalised.
    struct Qkv {
        torch::Tensor q, k, v;
    };
    struct QkvPoints {
        ProbePoint q, k, v, nq, nk;
    };
    Qkv project(const torch::Tensor& x, nn::Linear& lq, nn::Linear& lk, nn::Linear& lv,
                nn::RMSNorm& nq, nn::RMSNorm& nk, const QkvPoints& points, ProbeContext& probes);

    int m_heads, m_headDim;
    bool m_joint;
    ProbePoint m_out;  // the attention's output (the module's own path)
    QkvPoints m_img, m_txt;
    ProbePoint m_ropeQ, m_ropeK, m_sdpa, m_addOut;
};
TORCH_MODULE(FluxAttention);

}  // namespace hs
