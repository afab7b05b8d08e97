#pragma once
// Finding the models a user already has, without copying or loading them:
//   hf-cache  <cache>/models--org--name/snapshots/<rev>/... (symlinks into blobs/), the
//             snapshot refs/main names (every snapshot when there is no refs/main);
//   comfyui   <root>/models/{checkpoints,diffusion_models,unet,vae,clip,text_encoders}, plus the
//             folders of <root>/extra_model_paths.yaml (library/model_paths_yaml.h);
//   a1111     <root>/models/{Stable-diffusion,VAE,text_encoder} (AUTOMATIC1111, Forge);
//   user      folders and files added: diffusers pipeline folders, component folders, single
//             .safetensors files, sharded sets (*.safetensors.index.json).
// Every entry is described from safetensors headers (library/header_probe.h). The walk is
// bounded (depth, folder entries seen, entries listed): past a cap it stops and says so in the
// report's notes. A broken file or folder is an entry with its error, never skipped.
#include <atomic>
#include <string>
#include <vector>

#include "library/library_entry.h"

namespace hs {

struct LibraryOptions {
    std::vector<std::string> hfCaches;  // hub folders; empty: the default ones that exist
    bool defaultHfCache = true;         // look at $HF_HUB_CACHE, $HF_HOME/hub, ~/.cache/...
    std::vector<std::string> comfyui, a1111, user;
    std::string cachePath;       // "" : no cache (every header is read)
    int maxDepth = 8;            // folder levels below a source's folder
    size_t maxVisited = 200000;  // folder entries looked at, all sources together
    size_t maxEntries = 5000;    // entries listed
    // Set by another thread (the studio's Stop): the walk ends at the next folder entry, the
    // report keeps what was found and says it is incomplete. Not owned; may be null.
    const std::atomic<bool>* cancel = nullptr;
};

// The Hugging Face hub caches that exist: $HF_HUB_CACHE, else $HF_HOME/hub, else
// ~/.cache/huggingface/hub.
std::vector<std::string> defaultHfCaches();

// Scans every source. Never throws for what it finds on disk; a cache that cannot be written is
// a note.
LibraryReport scanLibrary(const LibraryOptions& options);

}  // namespace hs
