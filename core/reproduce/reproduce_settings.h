#pragma once
// How an image was made, as its metadata says (ComfyUI's graph or an A1111/Forge infotext), in
// ComfyUI's vocabulary: sampler "dpmpp_2m", scheduler "karras". Plain C++ and JSON, no LibTorch:
// `halfscope-cli reproduce --dry-run` prints it, a run is built from it.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hs {

enum class ReproduceSource { ComfyUI, A1111 };

struct ReproduceSettings {
    ReproduceSource source = ReproduceSource::ComfyUI;
    // The PNG text chunk it was read from: "prompt" (ComfyUI's API graph), "workflow" (its UI
    // graph), "parameters" (an infotext).
    std::string chunk;
    std::string prompt;
    std::string negativePrompt;
    nlohmann::json seed;  // an integer (ComfyUI's go up to 2^64 - 1), or null when none is used
    std::optional<int64_t> steps;
    std::optional<double> cfg;
    std::optional<double> guidance;  // Flux's distilled guidance
    std::optional<int64_t> width;
    std::optional<int64_t> height;
    std::string sampler;    // ComfyUI's name; "" unknown
    std::string scheduler;  // ComfyUI's name; "" unknown
    std::optional<double> denoise;
    std::optional<double> shift;     // ModelSamplingSD3 / AuraFlow
    std::optional<double> maxShift;  // ModelSamplingFlux
    std::optional<double> baseShift;
    std::vector<std::string> files;  // every model file the image names, sorted, once each
    // The files of the stage reproduced, what a run loads: for ComfyUI the loaders upstream of
    // the first sampler and the VAE loaders that decode; for A1111 / Forge the Model, the VAE
    // and Forge's modules (not a refiner or a hires checkpoint). A subset of `files`.
    std::vector<std::string> runFiles;
    // A1111's "Model hash" (the first 10 hex digits of a SHA-256) and the file it is of, Model.
    std::string modelHash, hashedFile;
    // Each of `files` -> the path it was found at, "" when not found; empty when nobody looked
    // (reproduce --dry-run reads the image alone until the library is asked).
    std::map<std::string, std::string> resolved;
    int stages = 1;                        // sampling passes (base + refiner: 2; the first is run)
    std::string family;                    // "" when the files and graph do not tell
    std::vector<std::string> unsupported;  // what Halfscope cannot run, by name, sorted

    void addFile(const std::string& name);
    void addRunFile(const std::string& name);  // to runFiles and files
    void addUnsupported(const std::string& what);
};

const char* sourceName(ReproduceSource s);  // "comfyui", "a1111"

// The object `reproduce --dry-run --json` prints: source, settings (denoise only when not 1,
// the shifts only when the graph sets them), files, run_files, model_hash (A1111, when given),
// resolved (each file -> path or null; when looked up), stages, family (or null), unsupported.
nlohmann::ordered_json toJson(const ReproduceSettings& s);

// The same for people, one setting a line.
std::string formatSettings(const ReproduceSettings& s);

}  // namespace hs
