#pragma once
// Tensors <-> 8-bit images (io/image_io.h), kept apart from image_io.h so that header stays
// free of LibTorch.
#include <torch/types.h>

#include "io/image_io.h"

namespace hs {

// The value range a float image tensor uses: VAE decoders produce [-1, 1], previews and most
// image processing use [0, 1].
enum class PixelRange { MinusOneToOne, ZeroToOne };

// Float tensor -> Image. Accepted layouts: [C, H, W] or [H, W, C] with C in {1, 3, 4}, an
// optional leading batch dimension of 1, or [H, W] (grey). When both the first and the last
// dimension could be channels ([3, H, 3]) the tensor is read as [C, H, W], LibTorch's layout.
// Values are mapped to [0, 1] (x / 2 + 0.5 for MinusOneToOne), clamped, then scaled by 255 and
// rounded half to even, as diffusers' numpy_to_pil does, so 8-bit outputs match the reference.
// +-Inf clamp to the ends. A pixel with any NaN channel becomes magenta (255, 0, 255; grey:
// 255), never black: a NaN image must not pass for a dark one. Any dtype and device.
// Throws std::invalid_argument for other shapes.
Image imageFromTensor(const torch::Tensor& t, PixelRange range = PixelRange::MinusOneToOne,
                      bool nanAsMagenta = true);

// Image -> float32 [C, H, W] in `range` (the inverse of imageFromTensor up to 8-bit rounding).
torch::Tensor tensorFromImage(const Image& img, PixelRange range = PixelRange::MinusOneToOne);

}  // namespace hs
