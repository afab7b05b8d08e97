#pragma once
// One line naming what a single-file checkpoint is, for `inspect`: "SDXL base, SGM layout: UNet
// 2.57 B, two text encoders, VAE; fp16 weights", "SD 1.x, LDM layout: UNet 0.86 B, CLIP-L text
// encoder, VAE; fp32 weights, EMA weights left out", or for other files the components it holds.
#include <string>
#include <vector>

#include "models/single_file.h"

namespace hs {

// `f` converted from `all` (the whole file).
std::string singleFileHeadline(const SingleFileContents& f, const WeightMap& all);

// A file's tensors as the single-file detectors and conversions take them, from its header
// alone: meta tensors (shape and dtype, no storage), fp8 ones as float32 (what a load decodes them
// into), and without a scaled-fp8 file's marker and scales, as weightMapOf leaves them out.
WeightMap layoutTensorsOf(const std::vector<StTensorInfo>& tensors);

}  // namespace hs
