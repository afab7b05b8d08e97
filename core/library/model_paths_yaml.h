#pragma once
// ComfyUI's extra_model_paths.yaml, the subset ComfyUI itself reads: top-level sections, each a
// map of `base_path` and per-kind folders; a kind holds one folder, or several on the lines of a
// `|` block. Example:
//   comfyui:
//       base_path: /data/comfy/
//       checkpoints: models/checkpoints/
//       diffusion_models: |
//           models/diffusion_models
//           models/unet
// Relative folders are resolved against base_path, and a relative base_path against the yaml
// file's folder; `~` is the home folder. Anything outside this subset (flow style, anchors,
// nested maps below a kind, tabs) is an error naming the line, not a guess.
#include <map>
#include <string>
#include <vector>

namespace hs {

struct ModelPathSection {
    std::string name;                                       // "comfyui", "a111"
    std::string basePath;                                   // resolved ("" when none)
    std::map<std::string, std::vector<std::string>> kinds;  // "vae" -> resolved folders
};

// Parses `text` (from `file`, for messages and relative paths). Throws std::runtime_error
// "<file>:<line>: <what>".
std::vector<ModelPathSection> parseModelPathsYaml(const std::string& text, const std::string& file);

// Reads the file (at most 1 MB) and parses it. Throws std::runtime_error / FileError.
std::vector<ModelPathSection> readModelPathsYaml(const std::string& path);

}  // namespace hs
