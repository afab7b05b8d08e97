#pragma once
// Batches of the demo world as tensors: images [B, 3, S, S] in [-1, 1] and their captions.
#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "demo/world.h"

namespace hs::demo {

struct Batch {
    torch::Tensor images;               // [B, 3, S, S] float32 in [-1, 1]
    std::vector<std::string> captions;  // B captions
    std::vector<Scene> scenes;
};

// Scenes for seeds first, first+1, ..., first+count-1. Training draws from seeds below 2^40;
// held-out evaluation uses seeds from kHeldOutSeedBase on, which training never reaches.
Batch makeBatch(uint64_t firstSeed, int count, int size = kImageSize);
constexpr uint64_t kHeldOutSeedBase = 1ull << 40;

// [B, 1, S, S]: 1 where a pixel differs from its scene's background (an object, its anti-aliased
// rim included), else 0.
torch::Tensor objectMask(const Batch& batch);

// [H][W][3] floats in [0, 1] -> [3, H, W] in [-1, 1].
torch::Tensor imageTensor(const std::vector<float>& hwc, int size);

}  // namespace hs::demo
