#pragma once
// Small layers of diffusers' CosmosTransformer3DModel (models/transformers/transformer_cosmos.py):
// the 3-axis rotary table, the AdaLN-LoRA modulations and the timestep embedding (the GELU
// feed-forward is the shared FeedForward of models/common/dit_layers.h). Precision rules as in
// models/common/dit_layers.h: each layer casts its input to its weight dtype, and every op output
// passes a named probe point.
#include <torch/torch.h>

#include <string>

#include "models/common/dit_layers.h"
#include "families/cosmos/cosmos_config.h"
#include "numerics/probe.h"

namespace hs {

// CosmosRotaryPosEmbed (fps None: images) for a patched grid of t x h x w tokens: cos and sin,
// each [t * h * w, head_dim] float32, laid out [t | h | w | t | h | w] along the head (the halves
// that apply_rotary_emb(use_real_unbind_dim=-2) rotates against each other). Thetas are 10000
// times the NTK factor rope_scale^(d / (d - 2)) of each axis; frequencies in float32, as diffusers.
struct CosmosRope {
    torch::Tensor cos, sin;
};
CosmosRope cosmosRope(const CosmosConfig& config, int64_t t, int64_t h, int64_t w,
                      const torch::Device& device);

// diffusers apply_rotary_emb(use_real=True, use_real_unbind_dim=-2) on x [B, L, H, Dh]: the
// first half of the head is the real part, the second the imaginary part; computed in float32
// and cast back to x's dtype.
torch::Tensor applyCosmosRope(const torch::Tensor& x, const CosmosRope& rope);

// nn.LayerNorm(elementwise_affine=False, eps=1e-6) over the last axis. A bf16 input on the CPU is
// normalised in float32 and rounded once, as GPUs do: LibTorch 1.13's bf16 CPU kernel was ~8x
// slower than the detour on [1024, 2048] and off by up to 2 bf16 ulps.
torch::Tensor cosmosLayerNorm(const torch::Tensor& x);

// CosmosAdaLayerNormZero (chunks 3: shift, scale, gate) and CosmosAdaLayerNorm (chunks 2: shift,
// scale; the final layer): linear_2(linear_1(silu(embedded_timestep))) + temb[..., :chunks * D],
// then LayerNorm(eps 1e-6, no affine) modulated by x * (1 + scale) + shift. Keys linear_1
// [lora, D] and linear_2 [chunks * D, lora], no biases. Layer point `path` (the modulated x),
// Op points for the rest.
struct CosmosAdaNormOut {
    torch::Tensor x;     // [B, L, D]
    torch::Tensor gate;  // [B or 1, D] (chunks 3 only)
};
class CosmosAdaNormImpl : public torch::nn::Module {
public:
    CosmosAdaNormImpl(int64_t dim, int64_t loraDim, int chunks, const std::string& path);
    // x [B, L, D], emb [B or 1, D] (embedded timestep), temb [B or 1, 3D]
    CosmosAdaNormOut forward(const torch::Tensor& x, const torch::Tensor& emb,
                             const torch::Tensor& temb, ProbeContext& probes);
    nn::Linear linear_1{nullptr}, linear_2{nullptr};

private:
    int64_t m_dim;
    int m_chunks;
    ProbePoint m_act, m_l1, m_l2, m_sum, m_norm;
    ModulatePoints m_mod;
};
TORCH_MODULE(CosmosAdaNorm);

// CosmosTimestepEmbedding: linear_1 [D, D] -> SiLU -> linear_2 [3D, D], no biases.
class CosmosTimestepEmbeddingImpl : public torch::nn::Module {
public:
    explicit CosmosTimestepEmbeddingImpl(int64_t dim);
    nn::Linear linear_1{nullptr}, linear_2{nullptr};
};
TORCH_MODULE(CosmosTimestepEmbedding);

// CosmosEmbedding: Timesteps(D, flip_sin_to_cos, shift 0) of the raw timestep, cast to the
// model's dtype; temb = t_embedder(proj) [B, 3D] (Layer point `path`.t_embedder) and the
// embedded timestep = RMSNorm(proj, eps 1e-6) [B, D] (Layer point `path`.norm).
struct CosmosTimeEmbedding {
    torch::Tensor temb;  // [B, 3D]
    torch::Tensor emb;   // [B, D]
};
class CosmosTimeEmbedImpl : public torch::nn::Module {
public:
    CosmosTimeEmbedImpl(int64_t dim, const std::string& path);
    CosmosTimeEmbedding forward(const torch::Tensor& timestep, ProbeContext& probes);  // t [B]
    CosmosTimestepEmbedding t_embedder{nullptr};
    nn::RMSNorm norm{nullptr};

private:
    int64_t m_dim;
    std::string m_path;
    ProbePoint m_proj, m_l1, m_act, m_temb, m_norm;
};
TORCH_MODULE(CosmosTimeEmbed);

}  // namespace hs
