#include "models/sd3/sd3_layers.h"

#include <cmath>

namespace hs {

torch::Tensor sd3LayerNorm(const torch::Tensor& x) {
    // bf16 runs natively (LibTorch 1.13 has a bf16 CPU LayerNorm kernel; statistics in fp32).
    return torch::layer_norm(x, {x.size(-1)}, {}, {}, 1e-6);
}

SD3ModulatePoints::SD3ModulatePoints(const std::string& base, ProbePoint o)
    : onePlusScale(base + ".one_plus_scale", ProbeLevel::Op),
      scaled(base + ".scaled", ProbeLevel::Op),
      out(std::move(o)) {}

torch::Tensor sd3Modulate(ProbeContext& probes, const SD3ModulatePoints& p, const torch::Tensor& x,
                          const torch::Tensor& scale, const torch::Tensor& shift) {
    auto s = probes.point(p.onePlusScale, asTypeOf(scale, x) + 1);    // [B, D]
    auto y = probes.point(p.scaled, x * s.unsqueeze(1));              // [B, L, D]
    return probes.point(p.out, y + asTypeOf(shift, x).unsqueeze(1));  // [B, L, D]
}

// ---- AdaLayerNormZero / SD35AdaLayerNormZeroX ----

SD3AdaLayerNormZeroImpl::SD3AdaLayerNormZeroImpl(int64_t dim, int chunks, const std::string& path)
    : m_chunks(chunks),
      m_silu(path + ".silu", ProbeLevel::Op),
      m_linear(path + ".linear", ProbeLevel::Op),
      m_norm(path + ".norm", ProbeLevel::Op),
      m_mod(path, {path, ProbeLevel::Layer}),
      m_mod2(path + ".modulated2", {path + ".modulated2", ProbeLevel::Op}) {
    TORCH_CHECK(chunks == 6 || chunks == 9, "AdaLayerNormZero has 6 or 9 chunks, not ", chunks);
    linear = register_module("linear", nn::Linear(dim, chunks * dim));
}

SD3AdaNormOut SD3AdaLayerNormZeroImpl::forward(const torch::Tensor& x, const torch::Tensor& temb,
                                               ProbeContext& probes) {
    auto e = probes.point(m_silu, torch::silu(asTypeOf(temb, linear->weight)));  // [B, D]
    e = probes.point(m_linear, linear->forward(e));                              // [B, chunks * D]
    SD3AdaNormOut out;
    out.parts = e.chunk(m_chunks, 1);
    auto xn = probes.point(m_norm, sd3LayerNorm(asTypeOf(x, linear->weight)));  // [B, L, D]
    out.x = sd3Modulate(probes, m_mod, xn, out.parts[1], out.parts[0]);
    if (m_chunks == 9) out.x2 = sd3Modulate(probes, m_mod2, xn, out.parts[7], out.parts[6]);
    return out;
}

// ---- AdaLayerNormContinuous ----

SD3AdaLayerNormContinuousImpl::SD3AdaLayerNormContinuousImpl(int64_t dim, const std::string& path)
    : m_silu(path + ".silu", ProbeLevel::Op),
      m_linear(path + ".linear", ProbeLevel::Op),
      m_norm(path + ".norm", ProbeLevel::Op),
      m_mod(path, {path, ProbeLevel::Layer}) {
    linear = register_module("linear", nn::Linear(dim, 2 * dim));
}

torch::Tensor SD3AdaLayerNormContinuousImpl::forward(const torch::Tensor& x,
                                                     const torch::Tensor& temb,
                                                     ProbeContext& probes) {
    // `self.linear(self.silu(conditioning_embedding).to(x.dtype))`
    auto e = probes.point(m_silu, torch::silu(asTypeOf(temb, linear->weight)));  // [B, D]
    e = probes.point(m_linear, linear->forward(e));                              // [B, 2D]
    auto parts = e.chunk(2, 1);                                                  // scale, shift
    auto xn = probes.point(m_norm, sd3LayerNorm(asTypeOf(x, linear->weight)));
    return sd3Modulate(probes, m_mod, xn, parts[0], parts[1]);  // [B, L, D]
}

// ---- FeedForward ----

torch::Tensor sd3GeluTanh(const torch::Tensor& x) {
    if (x.scalar_type() == torch::kFloat32) return torch::gelu(x, "tanh");
    return torch::gelu(x.to(torch::kFloat32), "tanh").to(x.scalar_type());
}

SD3GeluProjImpl::SD3GeluProjImpl(int64_t in, int64_t out) {
    proj = register_module("proj", nn::Linear(in, out));
}

SD3FeedForwardImpl::SD3FeedForwardImpl(int64_t dim, const std::string& path)
    : m_outPoint(path, ProbeLevel::Layer),
      m_proj(path + ".net.0.proj", ProbeLevel::Op),
      m_act(path + ".net.0", ProbeLevel::Op) {
    m_in = SD3GeluProj(dim, 4 * dim);
    m_out = nn::Linear(4 * dim, dim);
    m_net = register_module("net", torch::nn::ModuleList());
    m_net->push_back(m_in);
    m_net->push_back(torch::nn::Dropout(0.0));  // net.1: no parameters
    m_net->push_back(m_out);
}

torch::Tensor SD3FeedForwardImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto h = probes.point(m_proj, m_in->proj->forward(x));  // [B, L, 4D]
    h = probes.point(m_act, sd3GeluTanh(h));                // [B, L, 4D]
    return probes.point(m_outPoint, m_out->forward(h));     // [B, L, D]
}

// ---- CombinedTimestepTextProjEmbeddings ----

torch::Tensor sd3TimestepProj(const torch::Tensor& t, int dim) {
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

SD3MlpEmbedderImpl::SD3MlpEmbedderImpl(int64_t in, int64_t out, const std::string& path,
                                       const std::string& actName)
    : m_l1(path + ".linear_1", ProbeLevel::Op),
      m_act(path + "." + actName, ProbeLevel::Op),
      m_l2(path + ".linear_2", ProbeLevel::Op) {
    linear_1 = register_module("linear_1", nn::Linear(in, out));
    linear_2 = register_module("linear_2", nn::Linear(out, out));
}

torch::Tensor SD3MlpEmbedderImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto h = probes.point(m_l1, linear_1->forward(x));  // [B, out]
    h = probes.point(m_act, torch::silu(h));
    return probes.point(m_l2, linear_2->forward(h));  // [B, out]
}

SD3TimeTextEmbedImpl::SD3TimeTextEmbedImpl(int64_t dim, int64_t pooledDim, const std::string& path)
    : m_out(path, ProbeLevel::Layer), m_timeProj(path + ".time_proj", ProbeLevel::Op) {
    timestep_embedder = register_module(
        "timestep_embedder", SD3MlpEmbedder(256, dim, path + ".timestep_embedder", "act"));
    text_embedder = register_module(
        "text_embedder", SD3MlpEmbedder(pooledDim, dim, path + ".text_embedder", "act_1"));
}

torch::Tensor SD3TimeTextEmbedImpl::forward(const torch::Tensor& timestep,
                                            const torch::Tensor& pooled, ProbeContext& probes) {
    // `timestep_embedder(timesteps_proj.to(dtype=pooled_projection.dtype))`: the sinusoid in
    // float32, stored in the embedder's format.
    const auto& w = timestep_embedder->linear_1->weight;
    auto s = probes.point(m_timeProj, asTypeOf(sd3TimestepProj(timestep, 256), w));  // [B, 256]
    auto temb = timestep_embedder->forward(s, probes);                               // [B, D]
    auto p = probes.enter(m_out.name, pooled, text_embedder->linear_1->weight);      // [B, P]
    p = text_embedder->forward(p, probes);                                           // [B, D]
    return probes.point(m_out, temb + asTypeOf(p, temb));                            // [B, D]
}

// ---- PatchEmbed ----

namespace {

// get_1d_sincos_pos_embed_from_grid(dim, pos): pos [M] -> [M, dim] float64, [sin | cos].
torch::Tensor sd3SincosAxis(int64_t dim, const torch::Tensor& pos) {
    auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
    auto omega = torch::arange(dim / 2, f64) / (double(dim) / 2.0);  // [dim/2]
    omega = 1.0 / torch::pow(10000.0, omega);
    auto out = torch::outer(pos.to(torch::kFloat64), omega);   // [M, dim/2]
    return torch::cat({torch::sin(out), torch::cos(out)}, 1);  // [M, dim]
}

}  // namespace

torch::Tensor sd3SincosPosEmbed(int64_t dim, int64_t gridSize, int64_t baseSize) {
    TORCH_CHECK(dim % 4 == 0, "the 2-D sin-cos table needs a width that is a multiple of 4, not ",
                dim);
    // grid = arange(n) / (n / base_size) / interpolation_scale, in float32
    auto f32 = torch::TensorOptions().dtype(torch::kFloat32);
    auto axis = torch::arange(gridSize, f32) / (double(gridSize) / double(baseSize));  // [n]
    // meshgrid(grid_w, grid_h, indexing="xy"): grid[0] is the column, grid[1] the row.
    auto col = axis.unsqueeze(0).expand({gridSize, gridSize}).reshape({-1});  // [n*n]
    auto row = axis.unsqueeze(1).expand({gridSize, gridSize}).reshape({-1});  // [n*n]
    auto emb = torch::cat({sd3SincosAxis(dim / 2, col), sd3SincosAxis(dim / 2, row)}, 1);
    return emb.to(torch::kFloat32);  // [n*n, dim]
}

torch::Tensor sd3CropPosEmbed(const torch::Tensor& table, int64_t maxSize, int64_t h, int64_t w) {
    TORCH_CHECK(h >= 1 && w >= 1 && h <= maxSize && w <= maxSize, "a ", h, " x ", w,
                " patch grid does not fit the ", maxSize, " x ", maxSize, " positional table");
    const int64_t top = (maxSize - h) / 2, left = (maxSize - w) / 2;
    auto spatial = table.reshape({1, maxSize, maxSize, -1});
    spatial = spatial.narrow(1, top, h).narrow(2, left, w);  // [1, h, w, D]
    return spatial.reshape({1, h * w, spatial.size(-1)});    // [1, h*w, D]
}

SD3PatchEmbedImpl::SD3PatchEmbedImpl(int64_t inChannels, int64_t dim, int64_t patch,
                                     int64_t maxSize, int64_t baseSize, const std::string& path)
    : m_patch(patch),
      m_maxSize(maxSize),
      m_baseSize(baseSize),
      m_out(path, ProbeLevel::Layer),
      m_proj(path + ".proj", ProbeLevel::Op) {
    proj = register_module("proj", nn::Conv2d(inChannels, dim, patch, patch));
    // Allocated without values (loading overwrites it), on the meta device when so constructed.
    pos_embed = register_buffer("pos_embed",
                                torch::empty({1, maxSize * maxSize, dim}, nn::parameterOptions()));
}

void SD3PatchEmbedImpl::resetParameters() {
    torch::NoGradGuard noGrad;
    pos_embed.copy_(sd3SincosPosEmbed(pos_embed.size(2), m_maxSize, m_baseSize).unsqueeze(0));
}

torch::Tensor SD3PatchEmbedImpl::forward(const torch::Tensor& latents, ProbeContext& probes) {
    const int64_t h = latents.size(2) / m_patch, w = latents.size(3) / m_patch;
    auto x = probes.point(m_proj, proj->forward(latents));  // [B, D, h, w]
    x = x.flatten(2).transpose(1, 2);                       // [B, h*w, D]
    // `(latent + pos_embed).to(latent.dtype)`: added in the wider of the two formats.
    auto pos = sd3CropPosEmbed(pos_embed, m_maxSize, h, w).to(x.device());  // [1, h*w, D]
    return probes.point(m_out, (x + pos).to(x.scalar_type()));              // [B, h*w, D]
}

}  // namespace hs
