#pragma once
// ComfyUI's UI graph (the "workflow" chunk), read as the API graph it stands for, for images that
// carry no "prompt" chunk: a node's widget values are a list in the order of its widgets, links
// sit in a table of their own, and the UI's own nodes (reroutes, primitives, notes; muted and
// bypassed nodes) are resolved as ComfyUI's frontend does when it queues the graph.
#include <string>

#include "reproduce/comfy_graph.h"

namespace hs {

// Throws std::runtime_error saying what is wrong (bounds as ComfyGraph::fromApiJson).
ComfyGraph comfyGraphFromWorkflow(const std::string& text);

}  // namespace hs
