#pragma once
// What Halfscope knows about ComfyUI's node types: which sample, which encode a prompt, which
// load files, which only carry a value. The input names are ComfyUI's (nodes.py,
// comfy_extras/nodes_custom_sampler.py, nodes_model_advanced.py, nodes_flux.py ...).
#include <string>
#include <vector>

#include "reproduce/comfy_graph.h"

namespace hs {

// KSampler, KSamplerAdvanced, SamplerCustom, SamplerCustomAdvanced.
bool isSamplerNode(const ComfyNode& n);

// EmptyLatentImage, EmptySD3LatentImage, EmptyHunyuanLatentVideo ...: an Empty*Latent* node
// with a width and a height.
bool isEmptyLatentNode(const ComfyNode& n);

// The input holding the value of a node that only carries one (PrimitiveInt's "value", a seed
// node's "seed" ...), or null.
const char* primitiveValueInput(const ComfyNode& n);

// The ComfyUI sampler a sampler node stands for (SamplerEulerAncestral -> "euler_ancestral"),
// or null.
const char* samplerOfNode(const std::string& type);

// The scheduler a sigmas node computes (KarrasScheduler -> "karras"), or null. BasicScheduler
// names its own.
const char* schedulerOfNode(const std::string& type);

// Where a text encoder node keeps its prompt: `text`, else `fallback` when `text` is empty;
// `guidance` when it sets Flux's guidance too. text null: not a text encoder. known false:
// read, but listed as unsupported (an edit or image prompt Halfscope cannot run).
struct TextEncoderInputs {
    const char* text = nullptr;
    const char* fallback = nullptr;
    const char* guidance = nullptr;
    bool known = true;
};
TextEncoderInputs textEncoderOf(const ComfyNode& n);

// The inputs of a loader node that name model files (ckpt_name, unet_name, clip_name1 ...).
std::vector<std::string> loaderFileInputs(const ComfyNode& n);

// Node types Halfscope runs or that do not change the picture (loaders of what it runs, text
// encoders, samplers, latents, decode and save, primitives, notes, reroutes).
bool isKnownNode(const std::string& type);

// The model family a node tells: a CLIP loader's `type` ("flux", "sd3", "cosmos" ...; strong),
// Flux's guidance and shift nodes, an SDXL text encoder or checkpoint name (weak); "" none.
struct FamilyHint {
    std::string family;
    bool strong = false;
};
FamilyHint familyHint(const ComfyNode& n);

}  // namespace hs
