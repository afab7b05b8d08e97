#pragma once
// Small layers of diffusers' FluxTransformer2DModel: the adaptive layer norms, the
// feed-forward, and the timestep / guidance / pooled-text embedding.
//
// Precision rules shared by all Flux modules:
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

// diffusers get_timestep_embedding(t, dim, flip_sin_to_cos=True, downscale_freq_shift=0):
// t [B] -> [B, dim] float32, [cos | sin].
torch::Tensor timestepSinusoid(const torch::Tensor& t, int dim);

// Probe points of x * (1 + scale) + shift, each op its own point (`base`.one_plus_scale and
// `base`.scaled at Op level, then `out`).
struct ModulatePoints {
    ProbePoint onePlusScale, scaled, out;
    ModulatePoints() = default;
    ModulatePoints(const std::string& base, ProbePoint out);
};
// x [B, L, D], scale/shift [B, D] -> [B, L, D]
torch::Tensor modulate(ProbeContext& probes, const ModulatePoints& p, const torch::Tensor& x,
                       const torch::Tensor& scale, const torch::Tensor& shift);

// gelu(approximate="tanh") (diffusers FeedForward "gelu-approximate").
torch::Tensor geluTanh(const torch::Tensor& x);
// LayerNorm without affine parameters, eps 1e-6 (nn.LayerNorm(elementwise_affine=False)).
torch::Tensor plainLayerNorm(const torch::Tensor& x);

// diffusers AdaLayerNormZero (chunks 6: shift, scale, gate of attention; shift, scale, gate of
// the MLP) and AdaLayerNormZeroSingle (chunks 3: shift, scale, gate). Key: linear.
struct AdaNormOut {
    torch::Tensor x;                   // [B, L, D] normalised and modulated
    std::vector<torch::Tensor> parts;  // chunks of linear(silu(temb)), each [B, D]
};
class AdaLayerNormZeroImpl : public torch::nn::Module {
public:
    AdaLayerNormZeroImpl(int64_t dim, int chunks, const std::string& path);
    AdaNormOut forward(const torch::Tensor& x, const torch::Tensor& temb, ProbeContext& probes);
    nn::Linear linear{nullptr};

private:
    int m_chunks;
    ProbePoint m_silu, m_linear, m_norm;
    ModulatePoints m_mod;
};
TORCH_MODULE(AdaLayerNormZero);

// diffusers AdaLayerNormContinuous(dim, dim, elementwise_affine=False, eps=1e-6): note the
// chunk order (scale, shift). Key: linear.
class AdaLayerNormContinuousImpl : public torch::nn::Module {
public:
    AdaLayerNormContinuousImpl(int64_t dim, const std::string& path);
    // x [B, L, D], temb [B, D] -> [B, L, D]
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& temb, ProbeContext& probes);
    nn::Linear linear{nullptr};

private:
    ProbePoint m_silu, m_linear, m_norm;
    ModulatePoints m_mod;
};
TORCH_MODULE(AdaLayerNormContinuous);

// The `net.0` of FeedForward: diffusers GELU(dim, inner, approximate="tanh"). Key: proj.
class GeluProjImpl : public torch::nn::Module {
public:
    GeluProjImpl(int64_t in, int64_t out);
    nn::Linear proj{nullptr};
};
TORCH_MODULE(GeluProj);

// diffusers FeedForward(dim, dim_out=dim, activation_fn="gelu-approximate"): keys net.0.proj,
// net.2 (net.1 is dropout). Output point: `path` at Layer granularity.
class FeedForwardImpl : public torch::nn::Module {
public:
    FeedForwardImpl(int64_t dim, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);  // [B, L, D] -> same

private:
    torch::nn::ModuleList m_net;
    GeluProj m_in{nullptr};
    nn::Linear m_out{nullptr};
    ProbePoint m_outPoint, m_proj, m_act;
};
TORCH_MODULE(FeedForward);

// linear_1 -> SiLU -> linear_2: diffusers TimestepEmbedding (act "act") and
// PixArtAlphaTextProjection with act_fn="silu" (act "act_1").
class MlpEmbedderImpl : public torch::nn::Module {
public:
    MlpEmbedderImpl(int64_t in, int64_t out, const std::string& path, const std::string& actName);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);  // [B, in] -> [B, out]
    nn::Linear linear_1{nullptr}, linear_2{nullptr};

private:
    ProbePoint m_l1, m_act, m_l2;
};
TORCH_MODULE(MlpEmbedder);

// diffusers CombinedTimestepGuidanceTextProjEmbeddings (with guidance) or
// CombinedTimestepTextProjEmbeddings (without): keys timestep_embedder, guidance_embedder,
// text_embedder. Timestep and guidance arrive as the pipeline passes them (sigma in [0, 1],
// guidance scale) and are multiplied by 1000 here, in the embedder's dtype, as diffusers does
// (`timestep.to(dtype) * 1000`).
class FluxTimeTextEmbedImpl : public torch::nn::Module {
public:
    FluxTimeTextEmbedImpl(int64_t dim, int64_t pooledDim, bool guidance, const std::string& path);
    // timestep [B], guidance [B] or undefined, pooled [B, P] -> temb [B, D]
    torch::Tensor forward(const torch::Tensor& timestep, const torch::Tensor& guidance,
                          const torch::Tensor& pooled, ProbeContext& probes);
    bool hasGuidance() const { return !guidance_embedder.is_empty(); }
    MlpEmbedder timestep_embedder{nullptr}, guidance_embedder{nullptr}, text_embedder{nullptr};

private:
    torch::Tensor embedTime(const torch::Tensor& t, MlpEmbedder& e, const ProbePoint& scaled,
                            const ProbePoint& proj, ProbeContext& probes);
    ProbePoint m_out, m_timestep, m_timeProj, m_guidance, m_guidanceProj, m_sum;
};
TORCH_MODULE(FluxTimeTextEmbed);

}  // namespace hs
