#pragma once
// A split model assembled from library entries the user picks (ComfyUI's flux1-dev.safetensors
// + ae.safetensors + clip_l.safetensors + t5xxl_fp16.safetensors), from what each entry's
// headers say it holds, not from its name: the entry with a denoiser is the model, the others
// fill the VAE and text-encoder slots. The parts the model's pipeline needs and no pick gives
// are named, with what to pick: "no VAE: pick an ae.safetensors".
#include <string>
#include <vector>

#include "library/library_entry.h"
#include "records/run_types.h"

namespace hs {

struct LibraryFileSet {
    std::string model;     // the entry holding the denoiser
    ModelFiles with;       // the picked files that complete it (as --vae ... take them)
    std::string pipeline;  // the pipeline class that runs it ("FluxPipeline"), "" unknown
    std::vector<std::string> missing;   // required parts not picked, one sentence each
    std::vector<std::string> optional;  // optional parts not picked ("no T5 ...: optional")
    std::string error;  // why the picks do not make a model (two VAEs, no denoiser ...)
    bool complete() const { return error.empty() && missing.empty(); }
};

LibraryFileSet assembleFileSet(const std::vector<LibraryEntry>& picked);

}  // namespace hs
