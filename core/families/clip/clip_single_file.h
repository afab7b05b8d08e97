#pragma once
// CLIP text encoders stored with transformers' keys (text_model.*, text_projection.weight) in a
// single file: ComfyUI's clip_l.safetensors, SD 1.x checkpoints' cond_stage_model.transformer.*,
// SDXL's conditioner.embedders.0.transformer.*, ComfyUI's all-in-one text_encoders.clip_l/clip_g.
// The keys stay as they are; the config is inferred from the shapes.
//
// What the file does not say, and is assumed:
//  - heads: clipHeadsFor() (head dim 64 for real widths);
//  - hidden_act: quick_gelu (OpenAI's CLIP-L/B) except for OpenCLIP's widths 1024 (ViT-H, SD 2.x)
//    and 1280 (ViT-bigG, SDXL / SD3), trained with exact GELU;
//  - the legacy token ids of openai/clip-vit-large-patch14 (bos 0, eos 2, pad 1): pooling takes
//    argmax(input_ids), which is the end-of-text token for CLIP's real vocabulary;
//  - layer_norm_eps 1e-5.
#include "models/single_file.h"

namespace hs {

SingleFileLayout clipSingleFileLayout();

// Attention heads for a CLIP text width. Every released CLIP text tower has 64-wide heads
// (768 / 12, 1024 / 16, 1280 / 20, 512 / 8), so widths of 256 and more that are multiples of 64
// get hidden / 64. Narrower widths are test-sized models; transformers' and diffusers' tiny
// CLIP configs (the golden models here: width 32) use 4 heads, so they get 4. A width that is
// neither is a ConfigError. This is a rule, not a reading: a model with other heads converts
// wrongly without an error.
int clipHeadsFor(int64_t hidden);

}  // namespace hs
