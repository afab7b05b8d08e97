#pragma once
// Small layers of diffusers' SD3Transformer2DModel (the adaptive layer norms AdaLayerNormZero,
// SD35AdaLayerNormZeroX and AdaLayerNormContinuous, the GELU-tanh feed-forward and the embedders
// are the DiT families' shared ones, in models/common/dit_layers.h):
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

#include "models/common/dit_layers.h"
#include "numerics/probe.h"

namespace hs {

// ---- CombinedTimestepTextProjEmbeddings ----

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
    MlpEmbedder timestep_embedder{nullptr}, text_embedder{nullptr};

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
