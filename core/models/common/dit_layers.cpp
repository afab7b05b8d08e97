#include "models/common/dit_layers.h"

#include <cmath>

namespace hs {

torch::Tensor timestepSinusoid(const torch::Tensor& t, int dim, bool flipSinToCos,
                               double downscaleFreqShift, double scale) {
    // diffusers get_timestep_embedding: the same torch ops in the same dtypes (float32).
    const int64_t half = dim / 2;
    auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(t.device());
    auto exponent = torch::arange(0, half, opts) * (-std::log(10000.0));  // [half]
    exponent = exponent / (double(half) - downscaleFreqShift);
    auto freqs = torch::exp(exponent);                                    // [half]
    auto args = t.to(torch::kFloat32).unsqueeze(1) * freqs.unsqueeze(0);  // [B, half]
    if (scale != 1.0) args = args * scale;
    auto emb = flipSinToCos ? torch::cat({torch::cos(args), torch::sin(args)}, 1)
                            : torch::cat({torch::sin(args), torch::cos(args)}, 1);  // [B, 2 half]
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

torch::Tensor geluExact(const torch::Tensor& x) {
    // LibTorch's bf16 CPU kernel computes in float32 and rounds once (bit-identical to the
    // float32 detour on 8 M values) and ran 8x faster than the detour; CUDA's does the same.
    return torch::gelu(x);
}

torch::Tensor plainLayerNorm(const torch::Tensor& x) {
    // bf16 runs natively (LibTorch 1.13 has a bf16 CPU LayerNorm kernel; statistics in fp32).
    return torch::layer_norm(x, {x.size(-1)}, {}, {}, 1e-6);
}

// ---- AdaLayerNormZero / AdaLayerNormZeroSingle / SD35AdaLayerNormZeroX ----

AdaLayerNormZeroImpl::AdaLayerNormZeroImpl(int64_t dim, int chunks, const std::string& path)
    : m_chunks(chunks),
      m_silu(path + ".silu", ProbeLevel::Op),
      m_linear(path + ".linear", ProbeLevel::Op),
      m_norm(path + ".norm", ProbeLevel::Op),
      m_mod(path, {path, ProbeLevel::Layer}),
      m_mod2(path + ".modulated2", {path + ".modulated2", ProbeLevel::Op}) {
    TORCH_CHECK(chunks == 3 || chunks == 6 || chunks == 9,
                "AdaLayerNormZero has 3, 6 or 9 chunks, not ", chunks);
    linear = register_module("linear", nn::Linear(dim, chunks * dim));
}

AdaNormOut AdaLayerNormZeroImpl::forward(const torch::Tensor& x, const torch::Tensor& temb,
                                         ProbeContext& probes) {
    auto e = probes.point(m_silu, torch::silu(asTypeOf(temb, linear->weight)));  // [B, D]
    e = probes.point(m_linear, linear->forward(e));                              // [B, chunks * D]
    AdaNormOut out;
    out.parts = e.chunk(m_chunks, 1);
    auto xn = probes.point(m_norm, plainLayerNorm(asTypeOf(x, linear->weight)));  // [B, L, D]
    out.x = modulate(probes, m_mod, xn, out.parts[1], out.parts[0]);
    if (m_chunks == 9) out.x2 = modulate(probes, m_mod2, xn, out.parts[7], out.parts[6]);
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
    // `self.linear(self.silu(conditioning_embedding).to(x.dtype))`
    auto e = probes.point(m_silu, torch::silu(asTypeOf(temb, linear->weight)));  // [B, D]
    e = probes.point(m_linear, linear->forward(e));                              // [B, 2D]
    auto parts = e.chunk(2, 1);                                                  // scale, shift
    auto xn = probes.point(m_norm, plainLayerNorm(asTypeOf(x, linear->weight)));
    return modulate(probes, m_mod, xn, parts[0], parts[1]);  // [B, L, D]
}

// ---- FeedForward ----

GeluProjImpl::GeluProjImpl(int64_t in, int64_t out, bool bias) {
    proj = register_module("proj", nn::Linear(in, out, bias));
}

FeedForwardImpl::FeedForwardImpl(int64_t dim, const std::string& path)
    : FeedForwardImpl(dim, 4 * dim, GeluKind::Tanh, true, path) {}

FeedForwardImpl::FeedForwardImpl(int64_t dim, int64_t inner, GeluKind gelu, bool bias,
                                 const std::string& path)
    : m_gelu(gelu),
      m_outPoint(path, ProbeLevel::Layer),
      m_proj(path + ".net.0.proj", ProbeLevel::Op),
      m_act(path + ".net.0", ProbeLevel::Op) {
    m_in = GeluProj(dim, inner, bias);
    m_out = nn::Linear(inner, dim, bias);
    m_net = register_module("net", torch::nn::ModuleList());
    m_net->push_back(m_in);
    m_net->push_back(torch::nn::Dropout(0.0));  // net.1: no parameters
    m_net->push_back(m_out);
}

torch::Tensor FeedForwardImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto h = probes.point(m_proj, m_in->proj->forward(x));  // [B, L, inner]
    h = probes.point(m_act, m_gelu == GeluKind::Tanh ? geluTanh(h) : geluExact(h));
    return probes.point(m_outPoint, m_out->forward(h));  // [B, L, D]
}

// ---- joint (MM-DiT) block streams ----

JointStreamPoints::JointStreamPoints(const std::string& path, bool context) {
    auto op = [&](const std::string& n) { return ProbePoint(path + n, ProbeLevel::Op); };
    auto stream = [&](const std::string& n, ProbeLevel l) {
        return ProbePoint(path + n, l, kResidualStream);
    };
    const std::string pre = context ? ".context_" : ".",
                      norm2 = context ? ".norm2_context" : ".norm2";
    attnGated = op(pre + "attn_gated");
    attnResidual = stream(pre + "attn_residual", ProbeLevel::Op);
    this->norm2 = op(norm2);
    ffGated = op(pre + "ff_gated");
    out = stream(context ? ".context" : "", ProbeLevel::Module);
    mod = ModulatePoints(path + norm2, {path + norm2 + ".modulated", ProbeLevel::Op});
}

torch::Tensor gatedResidual(ProbeContext& probes, const torch::Tensor& x, const torch::Tensor& gate,
                            const torch::Tensor& branch, const ProbePoint& gated,
                            const ProbePoint& residual) {
    auto g = probes.point(gated, asTypeOf(gate, x).unsqueeze(1) * asTypeOf(branch, x));
    return probes.point(residual, x + g);  // [B, L, D]
}

torch::Tensor jointFeedForwardTail(ProbeContext& probes, const torch::Tensor& x,
                                   const std::vector<torch::Tensor>& parts, FeedForward& ff,
                                   const JointStreamPoints& p) {
    // parts: shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp, each [B, D]
    auto h = probes.point(p.norm2, plainLayerNorm(x));   // norm2(_context)
    h = modulate(probes, p.mod, h, parts[4], parts[3]);  // [B, L, D]
    auto f = ff->forward(h, probes);                     // [B, L, D]
    return gatedResidual(probes, x, parts[5], f, p.ffGated, p.out);
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

}  // namespace hs
