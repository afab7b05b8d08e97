#pragma once
// T5 encoders stored with transformers' keys in a single file: ComfyUI's t5xxl_fp16.safetensors
// and t5xxl_fp8 siblings (encoder.block.N.layer.0.SelfAttention.{q,k,v,o}, the relative
// attention bias in block 0 only, layer.1.DenseReluDense.{wi_0, wi_1, wo} gated or {wi, wo},
// encoder.final_layer_norm, shared.weight and/or encoder.embed_tokens.weight), also under
// ComfyUI's all-in-one prefix text_encoders.t5xxl.transformer. Produces T5EncoderModel's keys
// (shared.weight + encoder.*) and a transformers T5Config.
//
// Assumed, not in the file: relative_attention_max_distance 128 (every T5 release),
// layer_norm_epsilon 1e-6, and the feed-forward activation: gelu_new when gated
// ("gated-gelu", T5 v1.1 / Flan-T5), relu otherwise (T5 v1.0). UMT5 (a relative attention bias
// in every block, Wan's umt5-xxl) is recognised and refused: it is another model class.
#include "models/single_file.h"

namespace hs {

SingleFileLayout t5SingleFileLayout();

}  // namespace hs
