#pragma once
// ComfyUI's single-file Qwen-Image transformer (qwen_image_*.safetensors in
// models/diffusion_models, or a whole checkpoint under "model.diffusion_model."): the keys are
// diffusers' QwenImageTransformer2DModel keys already, so the conversion only removes the prefix
// (every tensor a view into the file) and infers the config from the shapes. ComfyUI's
// model_detection.py marks Qwen-Image by txt_norm.weight.
#include "models/single_file.h"

namespace hs {

SingleFileLayout qwenImageComfyLayout();

}  // namespace hs
