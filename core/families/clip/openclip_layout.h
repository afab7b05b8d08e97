#pragma once
// OpenCLIP text towers as LDM/SGM checkpoints store them: SD 2.x's cond_stage_model.model.*
// (ViT-H), SDXL's conditioner.embedders.1.model.* (ViT-bigG) and the SDXL refiner's
// conditioner.embedders.0.model.* (ViT-bigG). Converted to transformers' CLIP text keys as
// diffusers' convert_open_clip_checkpoint does:
//   token_embedding / positional_embedding  -> text_model.embeddings.*
//   transformer.resblocks.N.attn.in_proj_*  -> self_attn.{q,k,v}_proj (row views of the fused
//                                              projection: q, k, v in that order)
//   attn.out_proj, ln_1, ln_2, mlp.c_fc, mlp.c_proj
//                                           -> self_attn.out_proj, layer_norm1/2, mlp.fc1/fc2
//   ln_final                                -> text_model.final_layer_norm
//   text_projection [width, proj]           -> text_projection.weight [proj, width] (transposed)
//
// Slots and classes as diffusers builds them: SD 2.x's is "text_encoder", a CLIPTextModel of
// all but the last resblock (SD 2.x conditions on the penultimate layer, so diffusers' SD 2
// text_encoder config has num_hidden_layers 23 of ViT-H's 24, and drops text_projection); SDXL's
// and the refiner's are "text_encoder_2", CLIPTextModelWithProjection with every layer (the
// pipeline takes the penultimate hidden state itself).
//
// Not loaded, deliberately: logit_scale (the contrastive temperature) and attn_mask (the causal
// mask buffer, rebuilt). Assumed as for clipSingleFileLayout(): heads from clipHeadsFor() (head
// dim 64), exact GELU (OpenCLIP's activation), layer_norm_eps 1e-5, argmax pooling (token ids
// bos 0, eos 2, pad 1 as in diffusers' configs).
#include "models/single_file.h"

namespace hs {

SingleFileLayout openClipLayout();

}  // namespace hs
