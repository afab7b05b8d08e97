#pragma once
// Single-file checkpoints (flux1-dev.safetensors, ae.safetensors, clip_l.safetensors,
// t5xxl_fp16.safetensors, an SD 1.5 .safetensors holding UNet + VAE + CLIP): which layouts a
// file holds, and their conversion into the diffusers/transformers keys and config.json that
// Halfscope's families load. Pure functions of the tensors; nothing is written.
//
// Detection follows diffusers' single_file_utils.py (CHECKPOINT_KEY_NAMES,
// infer_diffusers_model_type) and ComfyUI's model_detection.py: each layout has marker keys and
// may sit under one of a few prefixes ("model.diffusion_model.", "first_stage_model.",
// "cond_stage_model.transformer.", "text_encoders.t5xxl.transformer." ...).
#include <functional>
#include <string>
#include <vector>

#include "models/registry.h"
#include "models/single_file_support.h"

namespace hs {

struct SingleFileContents;

struct SingleFileLayout {
    std::string name;                   // "Black Forest Labs Flux transformer"
    std::vector<std::string> prefixes;  // where its keys may start in a file; "" = at the root
    // Its keys (prefix removed) start with one of these; the rest of the file is not its own.
    std::vector<std::string> roots;
    // Whether the file holds this layout under `prefix` (marker keys and shapes).
    std::function<bool(const WeightMap& all, const std::string& prefix)> detect;
    // Converts its keys; `all` is the whole file, for context (an SDXL VAE inside an SDXL
    // checkpoint). Empty for a layout that is recognised but not converted yet.
    std::function<ConvertedComponent(LayoutKeys& keys, const WeightMap& all)> convert;
    std::string notConverted = {};  // why, when `convert` is empty
    // `inspect`'s one line for a whole file this layout leads ("SDXL base, SGM layout: UNet
    // 2.57 B, two text encoders, VAE; fp16 weights"), given all it converted to; null or "":
    // the components' classes and sizes.
    std::function<std::string(const SingleFileContents& f, const WeightMap& all)> headline = {};
};

// A layout's detect() by marker keys under its prefix: the file holds every key of `all` and, when
// `any` is not empty, at least one of `any`.
std::function<bool(const WeightMap& all, const std::string& prefix)> markerKeys(
    std::vector<std::string> all, std::vector<std::string> any = {});

// The layouts known, in detection order (specific before general).
const std::vector<SingleFileLayout>& singleFileLayouts();

struct SingleFileContents {
    std::vector<ConvertedComponent> components;
    // Parts recognised but not converted, one line each: "SD 1.x/2.x UNet
    // (model.diffusion_model.*, 686 tensors): not converted: no UNet family yet".
    std::vector<std::string> notConverted;
    // Keys no layout claims (LDM's model_ema.*, alphas_cumprod, ...): not loaded.
    std::vector<std::string> ignored;
};

// Names of the layouts `all` holds, with their prefix: "LDM VAE (first_stage_model.*)".
// Empty for a file none matches (a diffusers component's own weights file, say).
std::vector<std::string> detectSingleFile(const WeightMap& all);

// Detects and converts every layout `all` holds. Throws WeightError (or ConfigError) naming
// `path` and the key for a missing, misshapen or unknown tensor, and, for a file that holds
// nothing convertible, what it does hold or (matching nothing) the layouts known and its first
// keys.
SingleFileContents convertSingleFile(const WeightMap& all, const std::string& path);

// Opens `path` (a .safetensors file, mapped: the weights stay views into it) and converts it.
SingleFileContents readSingleFile(const std::string& path);

// A converted component as loadComponent() takes it.
inline ComponentSource sourceOf(const ConvertedComponent& c, const std::string& path) {
    return ComponentSource{path + " [" + c.slot + "]", c.config, c.weights};
}

}  // namespace hs
