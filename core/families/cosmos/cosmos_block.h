#pragma once
// diffusers CosmosTransformerBlock (without image context or ControlNet projections):
//   x = x + gate1 * attn1(norm1(x))            self-attention with RoPE
//   x = x + gate2 * attn2(norm2(x), text)      cross-attention to the text states
//   x = x + gate3 * ff(norm3(x))               GELU MLP
// with AdaLN-LoRA modulations (shift, scale, gate) from the embedded timestep and temb.
//
// The residual stream is where bf16-trained Cosmos models (Cosmos-Predict2, Anima) leave the
// fp16 range: each of the three residual sums is its own probe point, so the first one past
// 65504 is named. diffusers does not clip this stream in fp16 (unlike Flux), so neither do we.
#include <torch/torch.h>

#include <string>

#include "families/cosmos/cosmos_attention.h"
#include "families/cosmos/cosmos_layers.h"
#include "numerics/probe.h"

namespace hs {

// Probe points under `path`: Module `path` (the block's output, the MLP's residual sum); Layer
// norm1, norm2, norm3, attn1, attn2, ff, attn1_residual, attn2_residual; Op attn1_gated,
// attn2_gated, ff_gated and the layers' own ops.
class CosmosTransformerBlockImpl : public torch::nn::Module {
public:
    CosmosTransformerBlockImpl(const CosmosConfig& config, const std::string& path);
    // x [B, L, D], text [B, L_txt, text_embed_dim], emb [B|1, D], temb [B|1, 3D] -> [B, L, D]
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& text,
                          const torch::Tensor& emb, const torch::Tensor& temb,
                          const CosmosRope& rope, ProbeContext& probes);

    CosmosAdaNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};
    CosmosAttention attn1{nullptr}, attn2{nullptr};
    FeedForward ff{nullptr};

private:
    std::string m_path;
    ProbePoint m_out, m_attn1Gated, m_attn1Residual, m_attn2Gated, m_attn2Residual, m_ffGated;
};
TORCH_MODULE(CosmosTransformerBlock);

}  // namespace hs
