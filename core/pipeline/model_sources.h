#pragma once
// What a pipeline is opened from: a diffusers pipeline folder, or single-file checkpoints (the
// Black Forest Labs flux1-dev.safetensors, a ComfyUI set of model + ae + clip_l + t5xxl files),
// possibly with files that replace a folder's component (--vae FILE). Single files are converted
// into the keys and configs of the families (models/single_file.h) and stand in a pipeline
// folder made up for them: its class from the denoiser's, tokenizers found beside the files or
// bundled, the scheduler config from the strategy.
#include <map>
#include <string>
#include <vector>

#include "io/model_folder.h"
#include "models/opened_component.h"
#include "records/run_types.h"

namespace hs {

struct ModelSources {
    // model_index.json's folder; for single files, one made up: dir = the model file, className
    // from the denoiser, models and tokenizers listed (no scheduler: the strategy gives it).
    PipelineFolder folder;
    bool singleFile = false;
    // Components given as files (converted) or as --vae/--text-encoder folders, by slot; they
    // take the place of the folder's component of that slot.
    std::map<std::string, OpenedComponent> components;
    // One line per file: what was detected in it.
    std::vector<std::string> detected;
};

// Throws FileError, WeightError or ConfigError naming the file; PipelineError when the files do
// not make a pipeline (no denoiser, a file given for the wrong part, two files for one part).
ModelSources openModelSources(const std::string& model, const ModelFiles& with);

// The option that gives a slot's file, for messages: "--vae", "--text-encoder-2", ...
std::string optionForSlot(const std::string& slot);

}  // namespace hs
