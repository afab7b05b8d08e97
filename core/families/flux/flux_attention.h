#pragma once
// Attention of the Flux blocks: diffusers Attention with qk nn::RMSNorm run by
// FluxAttnProcessor2_0, the 3-axis rotary embedding (FluxPosEmbed, apply_rotary_emb) and one fused
// attention op.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "models/common/attention.h"
#include "models/common/layers.h"
#include "numerics/probe.h"

namespace hs {

// diffusers FluxPosEmbed(theta, axes_dim): ids [L, n_axes] (any dtype) -> tables [L, sum(axes)].
// Frequencies and angles in float64 (as diffusers off MPS), tables cast to float32.
RopeTables fluxRope(const torch::Tensor& ids, const std::vector<int>& axesDims, double theta);

struct FluxAttentionOut {
    torch::Tensor hidden;   // [B, L_img, D]  (joint: after to_out.0; single: the whole stream)
    torch::Tensor context;  // [B, L_txt, D]  (joint only: after to_add_out)
};

// diffusers Attention(query_dim=dim, heads, dim_head, qk_norm="rms_norm", eps=1e-6, bias=True)
// with FluxAttnProcessor2_0. joint=true: the double block's attention (added_kv_proj_dim=dim,
// context_pre_only=False): keys to_q, to_k, to_v, norm_q, norm_k, add_q_proj, add_k_proj,
// add_v_proj, norm_added_q, norm_added_k, to_out.0, to_add_out. joint=false: the single
// block's (pre_only=True): to_q, to_k, to_v, norm_q, norm_k; no output projection.
class FluxAttentionImpl : public JointAttentionParams {
public:
    FluxAttentionImpl(int64_t dim, int heads, int headDim, bool joint, const std::string& path);
    // x [B, L, D] (single: the joint [txt | img] stream), context [B, L_txt, D] (joint only)
    FluxAttentionOut forward(const torch::Tensor& x, const torch::Tensor& context,
                             const RopeTables& rope, ProbeContext& probes);

private:
    bool m_joint;
    ProbePoint m_out;  // the attention's output (the module's own path)
    ProbePoint m_ropeQ, m_ropeK, m_sdpa, m_addOut;
};
TORCH_MODULE(FluxAttention);

}  // namespace hs
