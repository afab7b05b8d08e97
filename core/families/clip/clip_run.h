#pragma once
// Runs a CLIP text encoder on named tensors (the golden files' and `halfscope-cli run-module`'s
// form).
#include "families/clip/clip_text_model.h"
#include "models/common/named_tensors.h"

namespace hs {

// Input: in.input_ids [B, L] integer (1 <= L <= max_position_embeddings, 0 <= id < vocab_size),
// an optional in.attention_mask [B, L] without padding (runTextEncoder); keys not starting with
// "in." are ignored.
// Outputs, float32 (exact for any format): out.last_hidden_state [B, L, D],
// out.pooler_output [B, D], out.text_embeds [B, projection_dim] (with projection only),
// out.hidden_states.N [B, L, D] for N = 0 (embeddings) .. num_hidden_layers.
// Throws InputError naming the key, the expected shape or the bad id. Runs without autograd on
// the device of `probes`.
NamedTensors runClipText(ClipTextModel& model, const NamedTensors& inputs, ProbeContext& probes);

}  // namespace hs
