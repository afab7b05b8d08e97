#include "families/flux/flux_latents.h"

#include <torch/torch.h>

#include "models/common/named_tensors.h"

namespace hs {

torch::Tensor packLatents(const torch::Tensor& latents) {
    if (latents.dim() != 4)
        throw InputError("packLatents: latents must be [B, C, H, W], got " +
                         std::to_string(latents.dim()) + " dimensions");
    const int64_t B = latents.size(0), C = latents.size(1), H = latents.size(2),
                  W = latents.size(3);
    if (H % 2 || W % 2)
        throw InputError("packLatents: latent height and width must be even, got " +
                         std::to_string(H) + " x " + std::to_string(W));
    auto x = latents.reshape({B, C, H / 2, 2, W / 2, 2});  // [B, C, h, 2, w, 2]
    x = x.permute({0, 2, 4, 1, 3, 5});                     // [B, h, w, C, 2, 2]
    return x.reshape({B, (H / 2) * (W / 2), C * 4});       // [B, h*w, 4C]
}

torch::Tensor unpackLatents(const torch::Tensor& packed, int64_t H, int64_t W) {
    if (packed.dim() != 3 || H % 2 || W % 2 || packed.size(1) != (H / 2) * (W / 2) ||
        packed.size(2) % 4) {
        throw InputError("unpackLatents: expected [B, " + std::to_string((H / 2) * (W / 2)) +
                         ", 4C] for an even " + std::to_string(H) + " x " + std::to_string(W) +
                         " latent");
    }
    const int64_t B = packed.size(0), C = packed.size(2) / 4;
    auto x = packed.reshape({B, H / 2, W / 2, C, 2, 2});  // [B, h, w, C, 2, 2]
    x = x.permute({0, 3, 1, 4, 2, 5});                    // [B, C, h, 2, w, 2]
    return x.reshape({B, C, H, W});                       // [B, C, H, W]
}

torch::Tensor prepareLatentImageIds(int64_t gridH, int64_t gridW, const torch::Device& device) {
    auto ids = torch::zeros({gridH, gridW, 3}, torch::kFloat32);  // [h, w, 3]
    ids.select(2, 1).add_(torch::arange(gridH, torch::kFloat32).unsqueeze(1));
    ids.select(2, 2).add_(torch::arange(gridW, torch::kFloat32).unsqueeze(0));
    return ids.reshape({gridH * gridW, 3}).to(device);  // [h*w, 3]
}

torch::Tensor prepareTextIds(int64_t textLength, const torch::Device& device) {
    return torch::zeros({textLength, 3},
                        torch::TensorOptions().dtype(torch::kFloat32).device(device));
}

}  // namespace hs
