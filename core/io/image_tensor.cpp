#include "io/image_tensor.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>

namespace hs {

namespace {

bool isChannelCount(int64_t c) {
    return c == 1 || c == 3 || c == 4;
}

std::string sizesText(const torch::Tensor& t) {
    std::string s = "[";
    for (int64_t i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
    return s + "]";
}

}  // namespace

Image imageFromTensor(const torch::Tensor& input, PixelRange range, bool nanAsMagenta) {
    torch::Tensor t = input.detach();
    if (t.dim() == 4 && t.size(0) == 1) t = t.squeeze(0);
    if (t.dim() == 2) t = t.unsqueeze(0);  // [H, W] -> [1, H, W]
    if (t.dim() != 3)
        throw std::invalid_argument("image tensor must be [C, H, W] or [H, W, C], got " +
                                    sizesText(input));
    if (isChannelCount(t.size(0))) {
        t = t.permute({1, 2, 0});  // [C, H, W] -> [H, W, C]
    } else if (!isChannelCount(t.size(2))) {
        throw std::invalid_argument("image tensor has no channel dimension of 1, 3 or 4: " +
                                    sizesText(input));
    }
    if (t.size(0) > INT32_MAX / 4 || t.size(1) > INT32_MAX / 4 ||
        t.size(0) * t.size(1) > kMaxImagePixels)
        throw std::invalid_argument("image tensor too large: " + sizesText(input));
    t = t.to(torch::kCPU, torch::kFloat32).contiguous();  // [H, W, C]

    Image img;
    img.height = int(t.size(0));
    img.width = int(t.size(1));
    img.channels = int(t.size(2));
    img.pixels.resize(size_t(t.numel()));
    const float* src = t.data_ptr<float>();
    const int c = img.channels;
    const size_t pixels = size_t(img.width) * img.height;
    for (size_t p = 0; p < pixels; ++p) {
        const float* in = src + p * c;
        uint8_t* out = img.pixels.data() + p * c;
        bool nan = false;
        for (int k = 0; k < c; ++k) nan |= std::isnan(in[k]);
        if (nan && nanAsMagenta) {
            static const uint8_t magenta[4] = {255, 0, 255, 255};
            for (int k = 0; k < c; ++k) out[k] = c >= 3 ? magenta[k] : 255;
            continue;
        }
        for (int k = 0; k < c; ++k) {
            float v = range == PixelRange::MinusOneToOne ? in[k] * 0.5f + 0.5f : in[k];
            v = std::isnan(v) ? 0.f : std::min(1.f, std::max(0.f, v));  // NaN: only if !magenta
            out[k] = uint8_t(std::nearbyint(v * 255.f));  // default FE_TONEAREST: half to even
        }
    }
    return img;
}

torch::Tensor tensorFromImage(const Image& img, PixelRange range) {
    if (img.empty() || img.channels < 1 || img.channels > 4 ||
        img.pixels.size() != size_t(img.width) * img.height * img.channels)
        throw std::invalid_argument("inconsistent Image");
    auto t = torch::from_blob(const_cast<uint8_t*>(img.pixels.data()),
                              {img.height, img.width, img.channels}, torch::kUInt8)
                 .permute({2, 0, 1})
                 .to(torch::kFloat32)
                 .div(255.0);  // [C, H, W] in [0, 1]; to() copies, so the Image may go
    if (range == PixelRange::MinusOneToOne) t = t.mul(2.0).sub(1.0);
    return t.contiguous();
}

}  // namespace hs
