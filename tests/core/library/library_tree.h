#pragma once
// The trees the library tests scan, built from the family tests' tiny models (real safetensors
// files): a Hugging Face cache (blobs + a symlinked snapshot + refs/main, and an older snapshot
// sharing blobs), a ComfyUI tree with an extra_model_paths.yaml pointing at another folder, an
// AUTOMATIC1111 tree, and broken files (truncated, corrupt header, dangling symlink).
#include <string>

#include "../flux1_fixture.h"

namespace hs::test {

struct LibraryTree {
    std::string root;
    std::string hf, comfy, extra, a1111;
    Flux1Files flux;
    std::string sdFile;          // the A1111 checkpoint
    std::string snapshot;        // the current HF snapshot folder
    uint64_t pipelineBytes = 0;  // the Flux folder's safetensors, each once
};

LibraryTree writeLibraryTree(const std::string& root);

// Copies `file` as <dir>/<name> and returns the new path.
std::string copyInto(const std::string& file, const std::string& dir, const std::string& name);

}  // namespace hs::test
