#pragma once
// Reads a ComfyUI graph the way ComfyUI runs it: from the sampler node back through the links to
// the prompt texts, the loaders, the latent and the model sampling nodes.
#include "reproduce/comfy_graph.h"
#include "reproduce/reproduce_settings.h"

namespace hs {

// The settings of the graph's first sampling stage; `stages` counts the samplers chained by
// their latents (base + refiner: 2). Node types it does not know are listed in `unsupported`;
// one that sits where a setting must be read (the prompt's encoder, the sampler itself) is an
// error. Throws std::runtime_error naming the node.
ReproduceSettings traceComfyGraph(const ComfyGraph& graph);

}  // namespace hs
