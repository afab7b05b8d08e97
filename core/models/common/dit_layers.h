#pragma once
// Small layers the DiT families (Flux, Qwen-Image, Cosmos, SD3) share, as diffusers defines them:
// the timestep sinusoid, the x * (1 + scale) + shift modulation, the adaptive layer norms
// (AdaLayerNormZero, AdaLayerNormContinuous), the GELU feed-forward and the linear_1 -> SiLU ->
// linear_2 embedder (TimestepEmbedding, PixArtAlphaTextProjection).
//
// Precision rules shared by these modules (and the families built on them):
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

// diffusers get_timestep_embedding(t, dim, flip_sin_to_cos, downscale_freq_shift, scale): the
// same torch ops in the same dtypes (float32). t [B] (any dtype, read as float32) -> [B, dim]
// float32, [cos | sin] when flipSinToCos, else [sin | cos]; an odd dim is padded with a zero.
torch::Tensor timestepSinusoid(const torch::Tensor& t, int dim, bool flipSinToCos = true,
                               double downscaleFreqShift = 0.0, double scale = 1.0);

// Probe points of x * (1 + scale) + shift, each op its own point (`base`.one_plus_scale and
// `base`.scaled at Op level, then `out`).
struct ModulatePoints {
    ProbePoint onePlusScale, scaled, out;
    ModulatePoints() = default;
    ModulatePoints(const std::string& base, ProbePoint out);
};
// x [B, L, D], scale/shift [B, D] -> [B, L, D] in x's dtype
torch::Tensor modulate(ProbeContext& probes, const ModulatePoints& p, const torch::Tensor& x,
                       const torch::Tensor& scale, const torch::Tensor& shift);

// gelu(approximate="tanh") (diffusers FeedForward "gelu-approximate"); half inputs computed in
// fp32 and rounded once, as CUDA's kernels do.
torch::Tensor geluTanh(const torch::Tensor& x);
// torch.nn.functional.gelu (exact); half types are computed in float32 and rounded once by
// LibTorch's own kernels.
torch::Tensor geluExact(const torch::Tensor& x);
// LayerNorm without affine parameters, eps 1e-6 (nn.LayerNorm(elementwise_affine=False)).
torch::Tensor plainLayerNorm(const torch::Tensor& x);

// linear(silu(temb)) chunked, then LayerNorm(eps 1e-6, no affine) modulated by the first shift
// and scale: diffusers AdaLayerNormZeroSingle (chunks 3: shift, scale, gate), AdaLayerNormZero
// (chunks 6: shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp) or
// SD35AdaLayerNormZeroX (chunks 9: the same, then shift_msa2, scale_msa2, gate_msa2: a second
// modulation of the same normalised input). Key: linear. Points: `path` (Layer, the modulated
// input), `path`.modulated2 (Op, 9 chunks only), silu, linear, norm (Op).
struct AdaNormOut {
    torch::Tensor x;                   // [B, L, D] norm(x) * (1 + scale) + shift
    torch::Tensor x2;                  // [B, L, D] the same with the *_msa2 chunks (9 only)
    std::vector<torch::Tensor> parts;  // chunks of linear(silu(temb)), each [B, D]
};
class AdaLayerNormZeroImpl : public torch::nn::Module {
public:
    AdaLayerNormZeroImpl(int64_t dim, int chunks, const std::string& path);
    // x [B, L, D], temb [B, D]
    AdaNormOut forward(const torch::Tensor& x, const torch::Tensor& temb, ProbeContext& probes);
    nn::Linear linear{nullptr};

private:
    int m_chunks;
    ProbePoint m_silu, m_linear, m_norm;
    ModulatePoints m_mod, m_mod2;
};
TORCH_MODULE(AdaLayerNormZero);

// diffusers AdaLayerNormContinuous(dim, dim, elementwise_affine=False, eps=1e-6): note the
// chunk order (scale, shift). Key: linear. Points: `path` (Layer), silu, linear, norm (Op).
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

// The `net.0` of FeedForward: diffusers GELU(in, out, approximate, bias). Key: proj.
class GeluProjImpl : public torch::nn::Module {
public:
    GeluProjImpl(int64_t in, int64_t out, bool bias = true);
    nn::Linear proj{nullptr};
};
TORCH_MODULE(GeluProj);

// The activation of a FeedForward: "gelu-approximate" (tanh) or "gelu" (exact).
enum class GeluKind { Tanh, Exact };

// diffusers FeedForward(dim, dim_out=dim, inner_dim, activation_fn, bias): net.0 = GELU(dim,
// inner), net.1 dropout, net.2 the output linear. Keys net.0.proj, net.2. Points: `path`
// (Layer, the output), `path`.net.0.proj and `path`.net.0 (Op: the projection and its
// activation).
class FeedForwardImpl : public torch::nn::Module {
public:
    // activation_fn="gelu-approximate", inner 4 * dim, with biases (Flux, SD3, Qwen-Image).
    FeedForwardImpl(int64_t dim, const std::string& path);
    FeedForwardImpl(int64_t dim, int64_t inner, GeluKind gelu, bool bias, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);  // [B, L, D] -> same

private:
    torch::nn::ModuleList m_net;
    GeluProj m_in{nullptr};
    nn::Linear m_out{nullptr};
    GeluKind m_gelu;
    ProbePoint m_outPoint, m_proj, m_act;
};
TORCH_MODULE(FeedForward);

// One stream of a joint (MM-DiT) block after its attention, as diffusers FluxTransformerBlock
// and JointTransformerBlock compute it: x + gate_msa * attn, then
// x + gate_mlp * ff(norm2(x) * (1 + scale_mlp) + shift_mlp). Points under the block's `path`,
// for the image stream (context false) or the text stream: Op attn_gated / context_attn_gated,
// attn_residual / context_attn_residual (residual stream), norm2 / norm2_context, its modulation
// (`.modulated` the output), ff_gated / context_ff_gated; Module `path` / `path`.context (the
// stream out, residual).
struct JointStreamPoints {
    ProbePoint attnGated, attnResidual, norm2, ffGated, out;
    ModulatePoints mod;
    JointStreamPoints() = default;
    JointStreamPoints(const std::string& path, bool context);
};
// x + gate.unsqueeze(1) * branch in x's dtype: x [B, L, D], gate [B, D], branch [B, L, D].
torch::Tensor gatedResidual(ProbeContext& probes, const torch::Tensor& x, const torch::Tensor& gate,
                            const torch::Tensor& branch, const ProbePoint& gated,
                            const ProbePoint& residual);
// The feed-forward half of a joint stream: parts are AdaLayerNormZero's six chunks (shift_mlp,
// scale_mlp, gate_mlp at 3, 4, 5). x [B, L, D] -> [B, L, D] (point p.out).
torch::Tensor jointFeedForwardTail(ProbeContext& probes, const torch::Tensor& x,
                                   const std::vector<torch::Tensor>& parts, FeedForward& ff,
                                   const JointStreamPoints& p);

// linear_1 -> SiLU -> linear_2: diffusers TimestepEmbedding (activation point "act") and
// PixArtAlphaTextProjection with act_fn="silu" ("act_1"). Points under `path`, Op level.
class MlpEmbedderImpl : public torch::nn::Module {
public:
    MlpEmbedderImpl(int64_t in, int64_t out, const std::string& path, const std::string& actName);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);  // [B, in] -> [B, out]
    nn::Linear linear_1{nullptr}, linear_2{nullptr};

private:
    ProbePoint m_l1, m_act, m_l2;
};
TORCH_MODULE(MlpEmbedder);

}  // namespace hs
