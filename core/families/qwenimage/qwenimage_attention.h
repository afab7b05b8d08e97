#pragma once
// The joint attention of Qwen-Image's blocks: diffusers Attention(query_dim=dim,
// added_kv_proj_dim=dim, context_pre_only=False, qk_norm="rms_norm", eps=1e-6, bias=True) run by
// QwenDoubleStreamAttnProcessor2_0: q, k, v of each stream, RMSNorm over each head of q and k
// (norm_q / norm_k for the image, norm_added_q / norm_added_k for the text), RoPE, one attention
// over [text | image] with the text mask, the result split back and projected per stream.
#include <torch/torch.h>

#include <string>

#include "models/common/attention.h"
#include "models/common/layers.h"
#include "numerics/probe.h"

namespace hs {

struct QwenImageAttentionOut {
    torch::Tensor img;  // [B, L_img, D] after to_out.0
    torch::Tensor txt;  // [B, L_txt, D] after to_add_out
};

// Keys: to_q, to_k, to_v, norm_q, norm_k, add_q_proj, add_k_proj, add_v_proj, norm_added_q,
// norm_added_k, to_out.0 (to_out.1 is dropout), to_add_out. Layer points `path` (image output)
// and `path`.to_add_out (text output); Op points for each projection, norm, rope_q, rope_k, sdpa.
class QwenImageAttentionImpl : public JointAttentionParams {
public:
    QwenImageAttentionImpl(int64_t dim, int heads, int headDim, const std::string& path);
    // img [B, L_img, D], txt [B, L_txt, D], textMask [B, L_txt] bool or undefined, rope over
    // [text | image] -> per-stream outputs
    QwenImageAttentionOut forward(const torch::Tensor& img, const torch::Tensor& txt,
                                  const torch::Tensor& textMask, const RopeTables& rope,
                                  ProbeContext& probes);

private:
    ProbePoint m_out, m_addOut, m_ropeQ, m_ropeK, m_sdpa;
};
TORCH_MODULE(QwenImageAttention);

}  // namespace hs
