#pragma once
// Runs are values: a RunConfig goes in, a RunRecord comes out (and grows step by step).
// No LibTorch: the studio's widgets, the reports and the run history read these directly.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "records/precision_plan.h"
#include "records/message.h"
#include "records/probe_types.h"
#include "records/stats_types.h"

namespace hs {

// Files that complete a model given as a single checkpoint (a ComfyUI set: flux1-dev.safetensors
// + ae.safetensors + clip_l.safetensors + t5xxl_fp16.safetensors), or replace a component of a
// pipeline folder. Empty strings: none given.
struct ModelFiles {
    // .safetensors files (or component folders); SD3's third encoder is its T5
    std::string vae, textEncoder, textEncoder2, textEncoder3;
    std::string tokenizer, tokenizer2, tokenizer3;  // tokenizer folders (vocab.json, spiece.model)
    bool empty() const;
    bool operator==(const ModelFiles& o) const;
    bool operator!=(const ModelFiles& o) const { return !(*this == o); }
};

// The one table of the files of a set: by the slot (model_index.json key) each fills, in the
// order records, reports and the run history list them. The CLI's options, the studio's
// settings, the library's and the studio's file-set checks and the single-file loader read it.
struct ModelFileSlot {
    const char* slot;         // "text_encoder_2"
    const char* option;       // "--text-encoder-2"
    const char* settingsKey;  // "model/textEncoder2", where the studio keeps the last set
    const char* what;         // "second text encoder", for messages (the studio translates it)
    bool tokenizer;           // a tokenizer folder, not weights
    std::string ModelFiles::*path;
};
inline const std::vector<ModelFileSlot>& modelFileSlots() {
    static const std::vector<ModelFileSlot> table{
        {"vae", "--vae", "model/vae", "VAE", false, &ModelFiles::vae},
        {"text_encoder", "--text-encoder", "model/textEncoder", "first text encoder", false,
         &ModelFiles::textEncoder},
        {"text_encoder_2", "--text-encoder-2", "model/textEncoder2", "second text encoder", false,
         &ModelFiles::textEncoder2},
        {"text_encoder_3", "--text-encoder-3", "model/textEncoder3", "third text encoder", false,
         &ModelFiles::textEncoder3},
        {"tokenizer", "--tokenizer", "model/tokenizer", "first tokenizer", true,
         &ModelFiles::tokenizer},
        {"tokenizer_2", "--tokenizer-2", "model/tokenizer2", "second tokenizer", true,
         &ModelFiles::tokenizer2},
        {"tokenizer_3", "--tokenizer-3", "model/tokenizer3", "third tokenizer", true,
         &ModelFiles::tokenizer3}};
    return table;
}
// The row of `slot`, or null.
inline const ModelFileSlot* modelFileSlot(const std::string& slot) {
    for (const auto& s : modelFileSlots())
        if (slot == s.slot) return &s;
    return nullptr;
}
inline bool ModelFiles::empty() const {
    for (const auto& s : modelFileSlots())
        if (!(this->*s.path).empty()) return false;
    return true;
}
inline bool ModelFiles::operator==(const ModelFiles& o) const {
    for (const auto& s : modelFileSlots())
        if (this->*s.path != o.*s.path) return false;
    return true;
}

// The first prompt and seed of the CLI and the studio: a default run names the same first
// failing layer from the command line and in the studio.
inline constexpr const char* kDefaultPrompt = "a large red circle in the centre, blue background";
inline constexpr uint64_t kDefaultSeed = 1;

struct RunConfig {
    std::string modelDir;   // diffusers pipeline folder, or a single-file checkpoint
    ModelFiles modelFiles;  // the rest of a file set
    std::string prompt;
    std::string negativePrompt;
    uint64_t seed = 0;
    int steps = 20;
    double guidance = 4.0;  // classifier-free guidance scale; <= 1 disables the second pass
    int width = 64;
    int height = 64;
    std::optional<double> shift;  // scheduler shift override
    // Overrides of the dynamic shift's line, mu through (256 image tokens, baseShift) and (4096,
    // maxShift): diffusers' base_shift / max_shift, ComfyUI's ModelSamplingFlux node.
    std::optional<double> maxShift, baseShift;
    // The sampler, one of the model's scheduler choices ("euler", "dpmpp_2m_karras", ...); empty:
    // the model's own scheduler.
    std::string scheduler;
    // "epsilon", "v_prediction" or "sample" in place of the scheduler config's; empty: the
    // config's.
    std::string predictionType;
    // ComfyUI's sampler and scheduler, by its names ("euler", "dpmpp_2m" ...; "normal", "karras"
    // ...), computed as ComfyUI computes them: its k-diffusion samplers on its sigma schedule.
    // Set by reproduce for Stable Diffusion images, in place of `scheduler` (not both); a name
    // not implemented runs the nearest one, said in the run's notes. Empty: `scheduler` decides.
    std::string comfySampler;
    std::string comfyScheduler;  // "" with a sampler: "normal"
    PrecisionPlan plan;          // user rules; components without a rule keep their stored dtype
    std::string device = "cpu";  // "cpu" or "cuda:N"
    ProbeLevel probeLevel = ProbeLevel::Layer;
    int decodeEvery = 0;       // full VAE decode of the denoised estimate every k steps (0: never)
    bool keepLatents = false;  // copy each step's latents into StepRecord::latentValues and
                               // denoisedValues (compare, decode on demand)
};

struct StepRecord {
    int step = 0;
    // Model steps in the run's schedule, for progress (PNDM's PLMS makes one more than asked;
    // not saved: a record's steps are counted).
    int scheduleSteps = 0;
    double sigma = 0;
    double timestep = 0;
    TensorStats latent;    // x after the step
    TensorStats velocity;  // the guided model output
    TensorStats denoised;  // x0 estimate
    double seconds = 0;
    std::vector<float> latentValues;    // x after the step, [C, h, w] row-major, if keepLatents
    std::vector<float> denoisedValues;  // x0 estimate, [C, h, w] row-major, if keepLatents
    int latentChannels = 0, latentHeight = 0, latentWidth = 0;  // C, h, w of the two above
};

// One 8-bit RGB image with the positions of non-finite pixels kept apart, so a NaN preview is
// never mistaken for a dark picture.
struct PreviewImage {
    int width = 0, height = 0;
    std::vector<uint8_t> rgb;        // [H][W][3]
    std::vector<uint8_t> nonFinite;  // [H][W]: 0 finite, 1 NaN, 2 Inf
    int step = -1;                   // -1: final image
    bool fullDecode = false;         // VAE decode (true) or latent-to-RGB projection (false)
    // A projection's latent-to-RGB map, where it came from: "published: ComfyUI's SDXL
    // latent_rgb_factors", "fitted at load from 8 VAE decodes", "the VAE config's
    // latent_rgb_factors"; "none: <why>" for a grey tile without a map. Empty for full decodes
    // and for records saved before it was kept.
    std::string projection;
};

// What a component does in its pipeline; diagnosis, reports and widgets read the role rather
// than guess it from the component's name.
enum class Role { TextEncoder, TextEncoder2, Denoiser, Vae, Adapter, Other };
std::string roleName(Role r);  // "text_encoder", "text_encoder_2", "denoiser", "vae", ...
std::optional<Role> parseRole(const std::string& text);
// The role that records saved before roles were stored imply by the component's name: the names
// those versions gave text encoders and VAEs, the denoiser otherwise.
Role legacyRoleOf(const std::string& componentName);

struct ComponentInfo {
    std::string name;  // its key in model_index.json: "text_encoder", "transformer", "unet", ...
    Role role = Role::Other;
    std::string className;
    std::string storedDtype;  // most common dtype in the checkpoint
    int64_t parameters = 0;
    Format format = Format::FP32;  // what it runs in for this run
    Execution execution = Execution::Native;
    // Held mapped in its stored dtype, each block converted only while it runs (a model larger
    // than memory; pipeline/memory_check.h).
    bool streamed = false;
};

// A run's estimate of its own time and memory, made after its second step, the first being
// warm-up (pipeline/run_estimate.h); -1 where unknown.
struct RunEstimate {
    double seconds = -1;  // the whole run
    double bytes = -1;    // weights + activations
    double weightBytes = -1;
    double activationBytes = -1;  // unknown off Linux and on a GPU
};

struct RunRecord {
    RunConfig config;
    std::string effectivePlan;  // stored-dtype defaults + user rules, text form
    std::vector<ComponentInfo> components;
    std::vector<StepRecord> steps;
    std::vector<ProbeRecord> probes;  // every recorded point of the run, in call order
    std::optional<FirstNonFinite> firstNonFinite;
    TensorStats textEmbedding;
    TensorStats image;                       // the decoded image before clamping, [-1, 1] nominal
    std::optional<PreviewImage> finalImage;  // NaN pixels magenta, Inf cyan
    std::optional<PreviewImage> savedImage;  // as a pipeline saves it: NaN -> 0, i.e. black
    // What the run did otherwise than the model's files say, or what a reference pipeline would
    // have done differently (diffusers decodes an fp16 VAE with force_upcast in fp32).
    std::vector<std::string> notes;
    std::string verdict;  // "ok", "nan/inf", "black", "flat"
    std::string verdictExplanation;
    MessageText verdictMessage;  // the explanation as messages (empty: only the English is known)
    std::vector<PreviewImage> previews;
    double seconds = 0;
    std::optional<RunEstimate> estimate;  // made by runs with progress wanted (the studio, CLI)
    bool cancelled = false;
    std::string error;
};

// The first component of `components` with role `r`, or null.
const ComponentInfo* componentWithRole(const std::vector<ComponentInfo>& components, Role r);
// The role of the component named `name` (the first part of a probe path), or Other.
Role roleOf(const std::vector<ComponentInfo>& components, const std::string& name);

// Receives a run's progress on the thread that runs it.
struct RunObserver {
    virtual ~RunObserver() = default;
    virtual void onStage(const std::string& stage) {}
    virtual void onStep(const StepRecord& step, const std::vector<ProbeRecord>& probes) {}
    virtual void onPreview(const PreviewImage& preview) {}
    virtual void onFirstNonFinite(const FirstNonFinite& f) {}
};

}  // namespace hs
