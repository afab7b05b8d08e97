#include "demo/dataset.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

namespace hs::demo {

torch::Tensor imageTensor(const std::vector<float>& hwc, int size) {
    auto t = torch::from_blob(const_cast<float*>(hwc.data()), {size, size, 3}, torch::kFloat32);
    return t.permute({2, 0, 1}).mul(2.0).sub(1.0).contiguous();  // [3, S, S]
}

Batch makeBatch(uint64_t firstSeed, int count, int size) {
    Batch b;
    b.scenes.resize(count);
    b.captions.resize(count);
    b.images = torch::empty({count, 3, size, size});
    at::parallel_for(0, count, 8, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
            b.scenes[i] = randomScene(firstSeed + uint64_t(i));
            b.captions[i] = b.scenes[i].caption();
            b.images[i].copy_(imageTensor(render(b.scenes[i], size), size));
        }
    });
    return b;
}

torch::Tensor objectMask(const Batch& batch) {
    std::vector<float> bg;
    for (const auto& sc : batch.scenes)
        for (float c : palette()[sc.background].rgb) bg.push_back(c * 2 - 1);
    auto bgt = torch::tensor(bg).view({-1, 3, 1, 1});
    return ((batch.images - bgt).abs().sum(1, true) > 0.05).to(torch::kFloat32);
}

}  // namespace hs::demo
