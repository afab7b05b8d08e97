#pragma once
// Fast step previews: a linear map from a latent format's channels to RGB, applied to the
// denoised latents of each step in diffusion space (the scaled latents a sampler works on).
// Where the map comes from travels with it: a VAE config's own latent_rgb_factors, published
// factors its family recognises (families/vae, families/wan_vae), or a fit from the VAE's own
// decodes (fitLatentRgbMap) for a latent space nobody published.
#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hs {

class VaeComponent;
class ProbeContext;

struct LatentRgbMap {
    torch::Tensor factors;  // [C + 1, 3] float32 on the CPU, the last row the bias; undefined:
                            // none (then `origin` says why, when anything was tried)
    std::string origin;     // "published: ComfyUI's SDXL latent_rgb_factors", "fitted at load
                            // from 8 VAE decodes", "the VAE config's latent_rgb_factors"
    bool defined() const { return factors.defined(); }
};

// `rowsThenBias`: C rows of R, G, B then the bias row, (C + 1) * 3 numbers.
LatentRgbMap latentRgbMapOf(const std::vector<double>& rowsThenBias, std::string origin);

// Latents [1, C, h, w] (any dtype or device) -> RGB [3, h, w] float32 on the CPU, [-1, 1]
// nominal: rgb = latents^T factors[:C] + factors[C].
torch::Tensor projectLatentsToRgb(const LatentRgbMap& map, const torch::Tensor& latents);

// How a map is fitted from a VAE's decodes.
struct LatentRgbFit {
    int samples = 8;    // random latents decoded, in one batch
    int grid = 8;       // each h = w = grid latent pixels
    uint64_t seed = 0;  // of their N(0, 1) draw
};

// A map fitted from `vae`'s own decodes: random diffusion-space latents [samples, C, grid,
// grid] on `device`, unscaled and decoded with `quiet` probes (off) and no autograd; each decode
// average-pooled to the latent grid ([samples, 3, grid, grid]); least squares of the pooled RGB
// on the latents and a constant over all samples * grid^2 latent pixels, in float64. Throws
// PipelineError when a decode is not of the expected size or not finite.
LatentRgbMap fitLatentRgbMap(VaeComponent& vae, ProbeContext& quiet, const torch::Device& device,
                             const LatentRgbFit& how = {});

}  // namespace hs
