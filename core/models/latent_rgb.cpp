#include "models/latent_rgb.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "base/pipeline_error.h"
#include "models/roles.h"

namespace hs {

LatentRgbMap latentRgbMapOf(const std::vector<double>& rowsThenBias, std::string origin) {
    LatentRgbMap m;
    m.factors = torch::tensor(rowsThenBias, torch::kFloat64).to(torch::kFloat32).view({-1, 3});
    m.origin = std::move(origin);
    return m;
}

torch::Tensor projectLatentsToRgb(const LatentRgbMap& map, const torch::Tensor& latents) {
    const torch::Tensor& f = map.factors;  // [C + 1, 3]
    const int64_t c = latents.size(1);
    auto x = latents[0].to(torch::kFloat32).cpu().permute({1, 2, 0});  // [h, w, C]
    auto rgb = torch::matmul(x, f.slice(0, 0, c)) + f[c];              // [h, w, 3]
    return rgb.permute({2, 0, 1}).contiguous();                        // [3, h, w]
}

LatentRgbMap fitLatentRgbMap(VaeComponent& vae, ProbeContext& quiet, const torch::Device& device,
                             const LatentRgbFit& how) {
    torch::NoGradGuard noGrad;
    const int64_t c = vae.latentChannels(), f = vae.downFactor(), g = how.grid;
    auto gen = at::detail::createCPUGenerator(how.seed);
    const torch::Tensor latents =
        torch::randn({how.samples, c, g, g}, gen, torch::kFloat32);  // [S, C, g, g]
    torch::Tensor image =
        vae.decode(vae.unscale(latents.to(device)), quiet).to(torch::kCPU, torch::kFloat64);
    if (image.dim() != 4 || image.size(0) != how.samples || image.size(1) < 3 ||
        image.size(2) != g * f || image.size(3) != g * f)
        throw PipelineError("the VAE decoded " + std::to_string(g) + " x " + std::to_string(g) +
                            " latents to an image of another size");
    if (!torch::isfinite(image).all().item<bool>())
        throw PipelineError("the VAE's decodes of random latents hold NaN or Inf values");
    // Each latent pixel's f x f block of the decode: the colour the map should give it.
    auto pooled = torch::avg_pool2d(image.slice(1, 0, 3), {f, f});                // [S, 3, g, g]
    auto y = pooled.permute({0, 2, 3, 1}).reshape({-1, 3});                       // [S g g, 3]
    auto x = latents.to(torch::kFloat64).permute({0, 2, 3, 1}).reshape({-1, c});  // [S g g, C]
    x = torch::cat({x, torch::ones({x.size(0), 1}, x.options())}, 1);             // [S g g, C + 1]
    // Normal equations with a whisper of ridge, so a channel the decoder ignores stays at 0.
    auto xtx = torch::matmul(x.t(), x) + 1e-6 * torch::eye(c + 1, x.options());
    auto w = torch::linalg_solve(xtx, torch::matmul(x.t(), y), true);  // [C + 1, 3]
    LatentRgbMap m;
    m.factors = w.to(torch::kFloat32).contiguous();
    m.origin = "fitted at load from " + std::to_string(how.samples) + " VAE decodes";
    return m;
}

}  // namespace hs
