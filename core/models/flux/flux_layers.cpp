#include "models/flux/flux_layers.h"

#include <cmath>

#include "models/common/weights.h"

namespace hs {

torch::Tensor timestepSinusoid(const torch::Tensor& t, int dim) {
    // diffusers get_timestep_embedding: the same torch ops in the same dtypes (float32).
    const int64_t half = dim / 2;
    auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(t.device());
    auto exponent = torch::arange(0, half, opts) * (-std::log(10000.0));  // [half]
    exponent = exponent / double(half);  // downscale_freq_shift = 0
    auto freqs = torch::exp(exponent);   // [half]
    auto args = t.to(torch::kFloat32).unsqueeze(1) * freqs.unsqueeze(0);  // [B, half]
    auto emb = torch::cat({torch::cos(args), torch::sin(args)}, 1);  // flip_sin_to_cos: [cos|sin]
    if (dim % 2 == 1) emb = torch::constant_pad_nd(emb, {0, 1});
    return emb;  // [B, dim]
}

// ---- modulation ----

ModulatePoints::ModulatePoints(const std::string& base, ProbePoint o)
    : onePlusScale(base + ".one_plus_scale", ProbeLevel::Op),
      scaled(base + ".scaled", ProbeLevel::Op),
      out(std::move(o)) {}

torch::Tensor modulate(ProbeContext& probes, const ModulatePoints& p, const torch::Tensor& x,
                       const torch::Tensor& scale, const torch::Tensor& shift) {
    auto s = probes.point(p.onePlusScale, asTypeOf(scale, x) + 1);    // [B, D]
    auto y = probes.point(p.scaled, x * s.unsqueeze(1));              // [B, L, D]
    return probes.point(p.out, y + asTypeOf(shift, x).unsqueeze(1));  // [B, L, D]
}

torch::Tensor geluTanh(const torch::Tensor& x) {
    // Half inputs: compute in fp32 and round the output once, as CUDA's kernels do (opmath);
    // LibTorch 1.13's CPU bf16 kernel is twice as slow, forward and backward.
    if (x.scalar_type() == torch::kFloat32) return torch::gelu(x, "tanh");
    return torch::gelu(x.to(torch::kFloat32), "tanh").to(x.scalar_type());
}

torch::Tensor plainLayerNorm(const torch::Tensor& x) {
    // bf16 runs natively (LibTorch 1.13 has a bf16 CPU LayerNorm kernel; statistics in fp32).
    return torch::layer_norm(x, {x.size(-1)}, {}, {}, 1e-6);
}

// ---- AdaLayerNormZero / AdaLayerNormZeroSingle ----

AdaLayerNormZeroImpl::AdaLayerNormZeroImpl(int64_t dim, int chunks, const std::string& path)
    : m_chunks(chunks),
      m_silu(path + ".silu", ProbeLevel::Op),
      m_linear(path + ".linear", ProbeLevel::Op),
      m_norm(path + ".norm", ProbeLevel::Op),
      m_mod(path, {path, ProbeLevel::Layer}) {
    linear = register_module("linear", nn::Linear(dim, chunks * dim));
}

AdaNormOut AdaLayerNormZeroImpl::forward(const torch::Tensor& x, const torch::Tensor& temb,
                                         ProbeContext& probes) {
    auto e = probes.point(m_silu, torch::silu(asTypeOf(temb, linear->weight)));
    e = probes.point(m_linear, linear->forward(e));  // [B, chunks * D]
    AdaNormOut out;
    out.parts = e.chunk(m_chunks, 1);  // shift, scale, gate (, shift_mlp, scale_mlp, gate_mlp)
    auto xn = probes.point(m_norm, plainLayerNorm(asTypeOf(x, linear->weight)));
    out.x = modulate(probes, m_mod, xn, out.parts[1], out.parts[0]);  // [B, L, D]
    return out;
}

// ---- AdaLayerNormContinuous ----

AdaLayerNormContinuousImpl::AdaLayerNormContinuousImpl(int64_t dim, const std::string& path)
    : m_silu(path + ".silu", ProbeLevel::Op),
      m_linear(path + ".linear", ProbeLevel::Op),
      m_norm(path + ".norm", ProbeLevel::Op),
      m_mod(path, {path, ProbeLevel::Layer}) {
    linear = register_module("linear", nn::Linear(dim, 2 * dim));
}

torch::Tensor AdaLayerNormContinuousImpl::forward(const torch::Tensor& x, const torch::Tensor& temb,
                                                  ProbeContext& probes) {
    auto e = probes.point(m_silu, torch::silu(asTypeOf(temb, linear->weight)));
    e = probes.point(m_linear, linear->forward(e));  // [B, 2D]
    auto parts = e.chunk(2, 1);                      // scale, shift
    auto xn = probes.point(m_norm, plainLayerNorm(asTypeOf(x, linear->weight)));
    return modulate(probes, m_mod, xn, parts[0], parts[1]);  // [B, L, D]
}

// ---- FeedForward ----

GeluProjImpl::GeluProjImpl(int64_t in, int64_t out) {
    proj = register_module("proj", nn::Linear(in, out));
}

FeedForwardImpl::FeedForwardImpl(int64_t dim, const std::string& path)
    : m_outPoint(path, ProbeLevel::Layer),
      m_proj(path + ".net.0.proj", ProbeLevel::Op),
      m_act(path + ".net.0", ProbeLevel::Op) {
    m_in = GeluProj(dim, 4 * dim);
    m_out = nn::Linear(4 * dim, dim);
    m_net = register_module("net", torch::nn::ModuleList());
    m_net->push_back(m_in);
    m_net->push_back(torch::nn::Dropout(0.0));  // net.1: no parameters
    m_net->push_back(m_out);
}

torch::Tensor FeedForwardImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto h = probes.point(m_proj, m_in->proj->forward(x));  // [B, L, 4D]
    h = probes.point(m_act, geluTanh(h));                   // [B, L, 4D]
    return probes.point(m_outPoint, m_out->forward(h));     // [B, L, D]
}

// ---- TimestepEmbedding / PixArtAlphaTextProjection ----

MlpEmbedderImpl::MlpEmbedderImpl(int64_t in, int64_t out, const std::string& path,
                                 const std::string& actName)
    : m_l1(path + ".linear_1", ProbeLevel::Op),
      m_act(path + "." + actName, ProbeLevel::Op),
      m_l2(path + ".linear_2", ProbeLevel::Op) {
    linear_1 = register_module("linear_1", nn::Linear(in, out));
    linear_2 = register_module("linear_2", nn::Linear(out, out));
}

torch::Tensor MlpEmbedderImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto h = probes.point(m_l1, linear_1->forward(x));  // [B, out]
    h = probes.point(m_act, torch::silu(h));
    return probes.point(m_l2, linear_2->forward(h));  // [B, out]
}

// ---- CombinedTimestep(Guidance)TextProjEmbeddings ----

FluxTimeTextEmbedImpl::FluxTimeTextEmbedImpl(int64_t dim, int64_t pooledDim, bool guidance,
                                             const std::string& path)
    : m_out(path, ProbeLevel::Layer),
      m_timestep(path + ".timestep", ProbeLevel::Op),
      m_timeProj(path + ".time_proj", ProbeLevel::Op),
      m_guidance(path + ".guidance", ProbeLevel::Op),
      m_guidanceProj(path + ".guidance_proj", ProbeLevel::Op),
      m_sum(path + ".time_guidance", ProbeLevel::Op) {
    timestep_embedder = register_module("timestep_embedder",
                                        MlpEmbedder(256, dim, path + ".timestep_embedder", "act"));
    if (guidance) {
        guidance_embedder = register_module(
            "guidance_embedder", MlpEmbedder(256, dim, path + ".guidance_embedder", "act"));
    }
    text_embedder = register_module("text_embedder",
                                    MlpEmbedder(pooledDim, dim, path + ".text_embedder", "act_1"));
}

torch::Tensor FluxTimeTextEmbedImpl::embedTime(const torch::Tensor& t, MlpEmbedder& e,
                                               const ProbePoint& scaled, const ProbePoint& proj,
                                               ProbeContext& probes) {
    const auto& w = e->linear_1->weight;
    // `timestep.to(dtype) * 1000` in the model dtype: in bf16, 0.123 -> 123.0, as diffusers.
    auto t1 = probes.point(scaled, probes.enter(m_out.name, t, w) * 1000);  // [B]
    auto s = timestepSinusoid(t1, 256);  // [B, 256] float32 (diffusers Timesteps)
    s = probes.point(proj, asTypeOf(s, w));
    return e->forward(s, probes);  // [B, D]
}

torch::Tensor FluxTimeTextEmbedImpl::forward(const torch::Tensor& timestep,
                                             const torch::Tensor& guidance,
                                             const torch::Tensor& pooled, ProbeContext& probes) {
    auto temb = embedTime(timestep, timestep_embedder, m_timestep, m_timeProj, probes);  // [B, D]
    if (hasGuidance()) {
        TORCH_CHECK(guidance.defined(), "this Flux model needs a guidance value");
        auto g = embedTime(guidance, guidance_embedder, m_guidance, m_guidanceProj, probes);
        temb = probes.point(m_sum, temb + asTypeOf(g, temb));  // [B, D]
    }
    auto p = probes.enter(m_out.name, pooled, text_embedder->linear_1->weight);  // [B, P]
    p = text_embedder->forward(p, probes);                                       // [B, D]
    return probes.point(m_out, temb + asTypeOf(p, temb));                        // [B, D]
}

}  // namespace hs
