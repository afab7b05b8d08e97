#pragma once
// Attention of the Cosmos blocks: diffusers Attention(qk_norm="rms_norm", eps=1e-5, no biases,
// out_bias=False) run by CosmosAttnProcessor2_0. attn1 attends to the image tokens with RoPE,
// attn2 to the text states without.
#include <torch/torch.h>

#include <string>

#include "models/common/attention.h"
#include "models/common/layers.h"
#include "families/cosmos/cosmos_layers.h"
#include "numerics/probe.h"

namespace hs {

// Keys: to_q [inner, query_dim], to_k and to_v [inner, kv_dim], norm_q and norm_k [head_dim]
// (RMSNorm over each head), to_out.0 [query_dim, inner] (to_out.1 is dropout). Layer point
// `path` (the output); Op points to_q, to_k, to_v, norm_q, norm_k, rope_q, rope_k, sdpa.
class CosmosAttentionImpl : public torch::nn::Module {
public:
    CosmosAttentionImpl(int64_t queryDim, int64_t kvDim, int heads, int headDim,
                        const std::string& path);
    // x [B, L, D]; context [B, L_txt, kv_dim] (cross-attention) or undefined (self-attention);
    // rope: the table for self-attention, null for none. -> [B, L, D]
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& context,
                          const CosmosRope* rope, ProbeContext& probes);

    nn::Linear to_q{nullptr}, to_k{nullptr}, to_v{nullptr}, to_out0{nullptr};
    nn::RMSNorm norm_q{nullptr}, norm_k{nullptr};
    torch::nn::ModuleList to_out{nullptr};

private:
    int m_heads, m_headDim;
    ProbePoint m_out;
    QkvPoints m_qkv;
    ProbePoint m_ropeQ, m_ropeK, m_sdpa;
};
TORCH_MODULE(CosmosAttention);

}  // namespace hs
