#pragma once
// ComfyUI's extra_model_paths.yaml, read as ComfyUI reads it (utils/extra_config.py) with
// libyaml's event parser: top-level sections, each a map of `base_path`, `is_default` and
// per-kind folders. Example:
//   comfyui:
//       base_path: /data/comfy/
//       is_default: true
//       checkpoints: models/checkpoints/
//       diffusion_models: |
//           models/diffusion_models
//           models/unet
//       loras: [models/loras, "/mnt/loras #2"]
// - Any YAML spelling of that works: quoted scalars (escapes, `#` inside quotes), flow style,
//   tabs after `:`, comments, a leading `---`. A second document is an error.
// - A section whose value is null (`name:` alone) is skipped, as ComfyUI does; a repeated
//   section or key replaces the earlier one (a Python dict).
// - A kind's value is text whose lines are folders (a `|` block, a plain or quoted scalar; each
//   line stripped, empty lines skipped), or a list of such texts (ComfyUI itself would fail on
//   a list). `is_default` is accepted, whatever it holds, and ignored.
// - base_path and each folder: `~` expanded (os.path.expanduser), then `$VAR` / `${VAR}`
//   (os.path.expandvars: an unset variable, or `$` before any other character, stays as
//   written); a relative base_path is relative to the yaml file's folder, a relative folder to
//   base_path (to the yaml file's folder without one). Paths are lexically normalized.
// - Aliases (`*name`) of scalars are resolved; an alias of a mapping or list, a merge key (`<<`)
//   or a tag outside YAML's str/null/bool/int/float/map/seq is an error naming its line; so is
//   a kind or base_path without a value, and anything but folders below a kind.
// - Bounds: 1 MB of text, 100,000 YAML events, nesting 8 deep, section and kind names of 256
//   bytes, folders of 4096 bytes (after expansion too), 1000 folders in all, aliases repeating
//   at most 1 MB of text. Past any of them the file is refused, not cut.
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
// "<file>:<line>: <what>" (line 1-based), or "<file>: <what>" for text over 1 MB.
std::vector<ModelPathSection> parseModelPathsYaml(const std::string& text, const std::string& file);

// Reads the file (at most 1 MB) and parses it. Throws std::runtime_error / FileError.
std::vector<ModelPathSection> readModelPathsYaml(const std::string& path);

}  // namespace hs
