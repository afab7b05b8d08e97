#pragma once
// Qwen text encoders stored with transformers' keys in a single file, without config.json:
// ComfyUI's qwen_3_06b_base.safetensors (Anima's Qwen3-0.6B) and qwen_2.5_vl_7b*.safetensors
// (Qwen-Image's Qwen2.5-VL; its visual.* tower and lm_head.weight are left unloaded). Keys
// under "model." (model.embed_tokens, model.layers.N.{self_attn,mlp,*_layernorm}, model.norm),
// under "model.language_model." (Qwen2.5-VL saved by transformers >= 4.52) or bare (a
// Qwen3Model / Qwen2Model's own model.safetensors). Produces the Qwen family's keys (no prefix)
// and a Qwen3Model / Qwen2Model config.json inferred from the shapes.
//
// Qwen3 (q_norm present): head_dim is the q_norm width. Qwen2 (no q_norm): head_dim 128 when
// the q/k widths are multiples of 128 (every Qwen2 / Qwen2.5 release), else 4 query heads (the
// test-sized models). Assumed, not in the file: rope_theta 1e6 (Qwen3-0.6B and Qwen2.5-VL-7B),
// rms_norm_eps 1e-6, max_position_embeddings 40960 (Qwen3) / 128000 (Qwen2.5-VL), silu.
#include "models/single_file.h"

namespace hs {

// Qwen2's head_dim from the widths of q_proj and k_proj (rows); throws ConfigError when neither
// rule applies.
int qwen2HeadDimFor(int64_t qRows, int64_t kRows);

SingleFileLayout qwenSingleFileLayout();

}  // namespace hs
