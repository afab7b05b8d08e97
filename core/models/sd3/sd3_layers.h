#pragma once
// Small layers of diffusers' SD3Transformer2DModel:
//   - the adaptive layer norms: AdaLayerNormZero (6 chunks), SD35AdaLayerNormZeroX (9: a second
//     modulation of the same normalised input for the dual attention), AdaLayerNormContinuous
//     (the last block's norm1_context and norm_out);
//   - the GELU-tanh feed-forward;
//   - CombinedTimestepTextProjEmbeddings: time_proj = Timesteps(256, flip_sin_to_cos=True,
//     downscale_freq_shift=0) (no weights), timestep_embedder = TimestepEmbedding(256, D),
//     text_embedder = PixArtAlphaTextProjection(P, D, act_fn="silu"); the conditioning is their
//     sum;
//   - PatchEmbed with pos_embed_max_size: a patch_size-strided convolution over the latents,
//     flattened to tokens, plus the crop of a stored 2-D sin-cos positional table centred on the
//     latent's patch grid.
//
// Precision rules shared by all SD3 modules:
// - each sub-layer casts its input to its weight dtype (a plan may mix formats);
// - every op output passes a named probe point, so an emulated format (fp16 on CPU) rounds it
//   where a GPU would store it; names are built once, in the constructors;
// - elementwise ops without weights keep the dtype of the stream they act on.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "models/common/layers.h"
#include "numerics/probe.h"

namespace hs {

// nn.LayerNorm(dim, elementwise_affine=False, eps=1e-6) over the last axis.
torch::Tensor sd3LayerNorm(const torch::Tensor& x);

// Probe points of x * (1 + scale) + shift, each op its own point (`base`.one_plus_scale and
// `base`.scaled at Op level, then `out`).
struct SD3ModulatePoints {
    ProbePoint onePlusScale, scaled, out;
    SD3ModulatePoints() = default;
    SD3ModulatePoints(const std::string& base, ProbePoint out);
};
// x [B, L, D], scale/shift [B, D] -> [B, L, D] in x's dtype
torch::Tensor sd3Modulate(ProbeContext& probes, const SD3ModulatePoints& p, const torch::Tensor& x,
                          const torch::Tensor& scale, const torch::Tensor& shift);

// linear(silu(temb)) chunked: diffusers AdaLayerNormZero (chunks 6: shift_msa, scale_msa,
// gate_msa, shift_mlp, scale_mlp, gate_mlp) or SD35AdaLayerNormZeroX (chunks 9: the same, then
// shift_msa2, scale_msa2, gate_msa2). Key: linear. Points: `path` (Layer, the modulated input),
// `path`.modulated2 (Op, 9 chunks only), silu, linear, norm (Op).
struct SD3AdaNormOut {
    torch::Tensor x;                   // [B, L, D] norm(x) * (1 + scale_msa) + shift_msa
    torch::Tensor x2;                  // [B, L, D] the same with the *_msa2 chunks (9 only)
    std::vector<torch::Tensor> parts;  // the chunks, each [B, D]
};
class SD3AdaLayerNormZeroImpl : public torch::nn::Module {
public:
    SD3AdaLayerNormZeroImpl(int64_t dim, int chunks, const std::string& path);
    // x [B, L, D], temb [B, D]
    SD3AdaNormOut forward(const torch::Tensor& x, const torch::Tensor& temb, ProbeContext& probes);
    nn::Linear linear{nullptr};

private:
    int m_chunks;
    ProbePoint m_silu, m_linear, m_norm;
    SD3ModulatePoints m_mod, m_mod2;
};
TORCH_MODULE(SD3AdaLayerNormZero);

// diffusers AdaLayerNormContinuous(dim, dim, elementwise_affine=False, eps=1e-6): note the
// chunk order (scale, shift). Key: linear. Points: `path` (Layer), silu, linear, norm (Op).
class SD3AdaLayerNormContinuousImpl : public torch::nn::Module {
public:
    SD3AdaLayerNormContinuousImpl(int64_t dim, const std::string& path);
    // x [B, L, D], temb [B, D] -> [B, L, D]
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& temb, ProbeContext& probes);
    nn::Linear linear{nullptr};

private:
    ProbePoint m_silu, m_linear, m_norm;
    SD3ModulatePoints m_mod;
};
TORCH_MODULE(SD3AdaLayerNormContinuous);

// ---- FeedForward ----

// gelu(approximate="tanh"); half inputs computed in fp32 and rounded once, as CUDA's kernels do.
torch::Tensor sd3GeluTanh(const torch::Tensor& x);

// The `net.0` of FeedForward. Key: proj.
class SD3GeluProjImpl : public torch::nn::Module {
public:
    SD3GeluProjImpl(int64_t in, int64_t out);
    nn::Linear proj{nullptr};
};
TORCH_MODULE(SD3GeluProj);

// diffusers FeedForward(dim, dim_out=dim, activation_fn="gelu-approximate"): net.0 = GELU(dim,
// 4 dim, approximate="tanh"), net.1 dropout, net.2 the output linear. Keys net.0.proj, net.2.
// Points: `path` (Layer, the output), `path`.net.0.proj and `path`.net.0
// (Op: the projection and its activation).
class SD3FeedForwardImpl : public torch::nn::Module {
public:
    SD3FeedForwardImpl(int64_t dim, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);  // [B, L, D] -> same

private:
    torch::nn::ModuleList m_net;
    SD3GeluProj m_in{nullptr};
    nn::Linear m_out{nullptr};
    ProbePoint m_outPoint, m_proj, m_act;
};
TORCH_MODULE(SD3FeedForward);

// ---- CombinedTimestepTextProjEmbeddings ----

// diffusers get_timestep_embedding(t, dim, flip_sin_to_cos=True, downscale_freq_shift=0,
// scale=1): t [B] (any dtype, read as float32) -> [B, dim] float32, [cos | sin].
torch::Tensor sd3TimestepProj(const torch::Tensor& t, int dim);

// linear_1 -> SiLU -> linear_2: diffusers TimestepEmbedding (activation point "act") and
// PixArtAlphaTextProjection with act_fn="silu" ("act_1"). Points under `path`, Op level.
class SD3MlpEmbedderImpl : public torch::nn::Module {
public:
    SD3MlpEmbedderImpl(int64_t in, int64_t out, const std::string& path,
                       const std::string& actName);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);  // [B, in] -> [B, out]
    nn::Linear linear_1{nullptr}, linear_2{nullptr};

private:
    ProbePoint m_l1, m_act, m_l2;
};
TORCH_MODULE(SD3MlpEmbedder);

// Keys timestep_embedder.linear_{1,2}, text_embedder.linear_{1,2}. The timestep arrives as the
// SD3 pipeline passes it (the scheduler's t in [0, 1000], float32) and is used as is: diffusers
// computes the sinusoid from `timesteps.float()`, so it is never rounded to the model's format.
// Points: `path` (Layer, the sum), `path`.time_proj (Op) and the embedders' own.
class SD3TimeTextEmbedImpl : public torch::nn::Module {
public:
    SD3TimeTextEmbedImpl(int64_t dim, int64_t pooledDim, const std::string& path);
    // timestep [B], pooled [B, P] -> temb [B, D]
    torch::Tensor forward(const torch::Tensor& timestep, const torch::Tensor& pooled,
                          ProbeContext& probes);
    SD3MlpEmbedder timestep_embedder{nullptr}, text_embedder{nullptr};

private:
    ProbePoint m_out, m_timeProj;
};
TORCH_MODULE(SD3TimeTextEmbed);

// ---- PatchEmbed ----

// diffusers get_2d_sincos_pos_embed(dim, gridSize, base_size=baseSize, interpolation_scale=1,
// output_type="pt").float(): [gridSize * gridSize, dim] float32, row-major over (row, column).
// Position p along an axis is p / (gridSize / baseSize) in float32; the first dim/2 channels
// embed the column, the last dim/2 the row, each as [sin(pos * w_k) | cos(pos * w_k)] with
// w_k = 10000^(-k / (dim / 4)), k < dim / 4, computed in float64. dim must be a multiple of 4.
torch::Tensor sd3SincosPosEmbed(int64_t dim, int64_t gridSize, int64_t baseSize);

// PatchEmbed.cropped_pos_embed: the centred [h, w] window of a table [1, max * max, D] ->
// [1, h * w, D] (top = (max - h) // 2, left = (max - w) // 2; h, w in patches, at most max).
torch::Tensor sd3CropPosEmbed(const torch::Tensor& table, int64_t maxSize, int64_t h, int64_t w);

// Keys proj.weight [D, C, p, p], proj.bias, and the persistent buffer pos_embed [1, max^2, D]
// (read from the checkpoint, as diffusers loads it; loaded in the plan's format of `path`).
// Points: `path`.proj (Op, the tokens), `path` (Layer, tokens + positions).
class SD3PatchEmbedImpl : public torch::nn::Module, public nn::SelfInitialising {
public:
    SD3PatchEmbedImpl(int64_t inChannels, int64_t dim, int64_t patch, int64_t maxSize,
                      int64_t baseSize, const std::string& path);
    // For training from scratch: pos_embed as diffusers' PatchEmbed computes it.
    void resetParameters() override;
    // latents [B, C, H, W] (H, W multiples of patch, at most max * patch) -> [B, H/p * W/p, D]
    torch::Tensor forward(const torch::Tensor& latents, ProbeContext& probes);

    nn::Conv2d proj{nullptr};
    torch::Tensor pos_embed;

private:
    int64_t m_patch, m_maxSize, m_baseSize;
    ProbePoint m_out, m_proj;
};
TORCH_MODULE(SD3PatchEmbed);

}  // namespace hs
