#include "families/sd3/sd3_layers.h"

#include <cmath>

namespace hs {

// ---- CombinedTimestepTextProjEmbeddings ----

SD3TimeTextEmbedImpl::SD3TimeTextEmbedImpl(int64_t dim, int64_t pooledDim, const std::string& path)
    : m_out(path, ProbeLevel::Layer), m_timeProj(path + ".time_proj", ProbeLevel::Op) {
    timestep_embedder = register_module("timestep_embedder",
                                        MlpEmbedder(256, dim, path + ".timestep_embedder", "act"));
    text_embedder = register_module("text_embedder",
                                    MlpEmbedder(pooledDim, dim, path + ".text_embedder", "act_1"));
}

torch::Tensor SD3TimeTextEmbedImpl::forward(const torch::Tensor& timestep,
                                            const torch::Tensor& pooled, ProbeContext& probes) {
    // `timestep_embedder(timesteps_proj.to(dtype=pooled_projection.dtype))`: the sinusoid in
    // float32, stored in the embedder's format.
    const auto& w = timestep_embedder->linear_1->weight;
    auto s = probes.point(m_timeProj, asTypeOf(timestepSinusoid(timestep, 256), w));  // [B, 256]
    auto temb = timestep_embedder->forward(s, probes);                                // [B, D]
    auto p = probes.enter(m_out.name, pooled, text_embedder->linear_1->weight);       // [B, P]
    p = text_embedder->forward(p, probes);                                            // [B, D]
    return probes.point(m_out, temb + asTypeOf(p, temb));                             // [B, D]
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
