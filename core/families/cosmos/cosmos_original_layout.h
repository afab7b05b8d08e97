#pragma once
// NVIDIA's own Cosmos-Predict2 DiT layout as Anima ships it (ComfyUI's single file
// anima-*.safetensors: the DiT under "net." with Anima's LLM adapter inside it as
// "net.llm_adapter.*"), converted the way diffusers' scripts/convert_cosmos_to_diffusers.py
// (TRANSFORMER_KEYS_RENAME_DICT_COSMOS_2_0 and its special keys) and
// scripts/convert_anima_to_diffusers.py (split_anima_transformer_checkpoint,
// infer_text_conditioner_config) do: pure renames, every tensor a view into the file.
//
// Two layouts, so that each yields its own component: the DiT as a CosmosTransformer3DModel
// ("transformer") and the adapter as an AnimaTextConditioner ("text_conditioner").
#include "models/single_file.h"

namespace hs {

// The DiT: net.x_embedder.proj.1.*, net.t_embedder.1.*, net.blocks.N.*, net.final_layer.* ...
SingleFileLayout cosmosOriginalLayout();

// Anima's LLM adapter: net.llm_adapter.* (its keys are diffusers' own once the prefix is gone).
SingleFileLayout animaAdapterOriginalLayout();

}  // namespace hs
