#pragma once
// Hugging Face model folders as downloaded from the Hub:
//   component (diffusers model or transformers model): config.json + weights, e.g.
//     vae/config.json + vae/diffusion_pytorch_model[.fp16].safetensors
//     text_encoder/config.json + text_encoder/model.safetensors
//     transformer/diffusion_pytorch_model.safetensors.index.json + shards
//   pipeline: model_index.json naming the components and their sub-folders.
//
// Only safetensors weights are ever opened. Pickle checkpoints (.bin/.ckpt/.pt/.pth) can run
// arbitrary code when loaded, so a folder holding nothing else is an error that says how to
// convert it.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/safetensors.h"

namespace hs {

struct ComponentFolder {
    std::string dir;
    nlohmann::json config;  // config.json
    std::string className;  // "_class_name" (diffusers) or "architectures[0]"; "" if none
    std::string variant;    // the variant actually opened ("" plain, "fp16", "bf16", ...)
    TensorSet weights;
    std::vector<std::string> weightFiles;  // the safetensors files (shards) behind `weights`
};

// Opens the component folder `dir`. With `variant` empty, plain weights are preferred; when a
// folder holds only one variant (say only *.fp16.safetensors), that one is used and reported
// in `variant`. A requested variant that is missing is an error, never a silent fallback: the
// precision of the stored weights is what this program diagnoses. Throws FileError.
ComponentFolder openComponent(const std::string& dir, const std::string& variant = "");

enum class ComponentKind { Model, Tokenizer, Scheduler, Other };
std::string componentKindName(ComponentKind k);  // "model", "tokenizer", "scheduler", "other"

struct PipelineComponent {
    std::string name;       // key in model_index.json: "vae", "text_encoder", ...
    std::string library;    // "diffusers", "transformers"
    std::string className;  // "AutoencoderKL", "CLIPTokenizer", ...
    std::string dir;        // <pipeline>/<name>
    ComponentKind kind = ComponentKind::Other;
    // A config given inline rather than in <dir> (a file set's scheduler, which has no folder);
    // null for a folder's component.
    nlohmann::json config;
};

struct PipelineFolder {
    std::string dir;
    nlohmann::json modelIndex;  // model_index.json
    std::string className;      // "_class_name": "StableDiffusionPipeline", "FluxPipeline", ...
    std::vector<PipelineComponent> components;  // sorted by name; [null, null] entries skipped
    const PipelineComponent* find(const std::string& name) const;
};

// Reads model_index.json (or modular_model_index.json) and checks that every listed component
// folder exists. Weights are not opened here (openComponent(component.dir) does that on demand).
// Throws FileError.
PipelineFolder openPipeline(const std::string& dir);

// Has model_index.json, or modular_model_index.json (diffusers' modular pipelines: Anima).
bool isPipelineFolder(const std::string& dir);
bool isComponentFolder(const std::string& dir);  // has config.json and no model_index.json

// A scheduler component's config: its inline config, else <dir>/scheduler_config.json.
nlohmann::json schedulerConfigOf(const PipelineComponent& scheduler);

// config.json / model_index.json: parse errors carry the line and column. Throws FileError.
nlohmann::json readJsonFile(const std::string& path);

}  // namespace hs
