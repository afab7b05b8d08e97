#pragma once
// The attentions of SD3's JointTransformerBlock: diffusers Attention(query_dim=dim, heads,
// dim_head, out_dim=dim, bias=True, qk_norm, eps=1e-6) run by JointAttnProcessor2_0.
//   - joint (`attn`, added_kv_proj_dim=dim): the image and text streams attend together over
//     the sequence [image | text] (image first, unlike Flux); keys to_q, to_k, to_v, add_q_proj,
//     add_k_proj, add_v_proj, to_out.0, and to_add_out unless context_pre_only (the last block,
//     whose text output is dropped); with qk_norm "rms_norm" also norm_q, norm_k, norm_added_q,
//     norm_added_k (RMSNorm over each head, eps 1e-6).
//   - self (`attn2`, SD3.5's dual attention): the image stream alone; keys to_q, to_k, to_v,
//     to_out.0 (+ norm_q, norm_k).
#include <torch/torch.h>

#include <string>

#include "models/common/attention.h"
#include "models/common/layers.h"
#include "numerics/probe.h"

namespace hs {

struct SD3AttentionOut {
    torch::Tensor hidden;   // [B, L_img, D] after to_out.0
    torch::Tensor context;  // [B, L_txt, D] after to_add_out (joint, not context_pre_only)
};

enum class SD3AttentionKind {
    Joint,                // image + text, both outputs
    JointContextPreOnly,  // image + text, the image output only (no to_add_out)
    Self,                 // image only (attn2)
};

// Points under `path`: `path` (Layer, to_out.0's output), `path`.to_add_out (Layer); Op: to_q,
// to_k, to_v, norm_q, norm_k, add_q_proj, add_k_proj, add_v_proj, norm_added_q, norm_added_k,
// sdpa (the heads merged, before the output projections).
class SD3AttentionImpl : public JointAttentionParams {
public:
    SD3AttentionImpl(int64_t dim, int heads, int headDim, bool qkRmsNorm, SD3AttentionKind kind,
                     const std::string& path);
    // x [B, L_img, D], context [B, L_txt, D] (joint kinds only; undefined for Self)
    SD3AttentionOut forward(const torch::Tensor& x, const torch::Tensor& context,
                            ProbeContext& probes);

private:
    SD3AttentionKind m_kind;
    ProbePoint m_out, m_addOut, m_sdpa;
};
TORCH_MODULE(SD3Attention);

}  // namespace hs
