#pragma once
// A loaded text-to-image pipeline of any shape: the denoising strategy that model_index.json's
// "_class_name" names, and its components, each loaded through its family with its weights
// converted once into the formats of the effective precision plan. run() is repeatable; a new
// plan reloads only the components whose weights it changes.
#include <torch/torch.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/pipeline_error.h"
#include "denoising/strategy.h"
#include "io/model_folder.h"
#include "models/latent_rgb.h"
#include "models/opened_component.h"
#include "models/roles.h"
#include "pipeline/memory_check.h"
#include "records/run_types.h"

namespace hs {

class RunEstimator;

class Pipeline {
public:
    // Opens `dir` and loads it for `userPlan` on `device`. Components without a rule keep their
    // stored dtype. Throws FileError, ConfigError, WeightError or PipelineError with a plain
    // message.
    static std::unique_ptr<Pipeline> load(const std::string& dir, const PrecisionPlan& userPlan,
                                          const torch::Device& device);
    // `model` a pipeline folder or a single-file checkpoint, `with` the files that complete it
    // (a ComfyUI set) or replace a folder's component (pipeline/model_sources.h).
    static std::unique_ptr<Pipeline> load(const std::string& model, const ModelFiles& with,
                                          const PrecisionPlan& userPlan,
                                          const torch::Device& device);

    const std::string& dir() const { return m_dir; }  // the model folder or file
    const ModelFiles& files() const { return m_files; }
    // What was detected in single files, one line each (empty for a folder).
    const std::vector<std::string>& detected() const { return m_detected; }
    // The pipeline class it runs as ("FluxPipeline"): model_index.json's, or the one a single
    // file's denoiser implies.
    const std::string& pipelineClass() const { return m_folder.className; }
    // The steps, guidance and size the model is meant to run with.
    RunDefaults defaults() const;
    // How the weights are held, one line: "all loaded whole: ...", or which components stream
    // block by block (their weights mapped in the stored dtype, each block converted to the
    // plan's formats only while it runs; text encoders freed after encoding).
    std::string memoryPlan() const { return englishText(m_memoryPlan); }
    const MessageText& memoryPlanMessage() const { return m_memoryPlan; }  // the same, a message
    // Stored-dtype defaults followed by the user's rules.
    const PrecisionPlan& effectivePlan() const { return m_plan; }
    const std::vector<ComponentInfo>& components() const { return m_infos; }
    int latentChannels() const;
    int sizeMultiple() const;  // width and height must be multiples of this

    // Switches to `userPlan`, reloading only the components whose weights it stores otherwise
    // (another format, or another execution of it). Returns their names. Throws as load() does;
    // the pipeline is unchanged when the new plan does not fit in memory.
    std::vector<std::string> setPlan(const PrecisionPlan& userPlan);

    // Throws PipelineError for settings the model cannot run (sizes, steps, guidance).
    void validate(const RunConfig& cfg) const;

    // Runs the whole pipeline. Cancellation (read at every probe point and weight conversion,
    // base/cancel.h, so within one block of the text encoder, a step or the VAE decode)
    // returns the record so far with `cancelled` set. The observer sees each step as it
    // finishes. load() and setPlan() stop within one tensor under a CancelScope whose flag is
    // set, throwing Cancelled.
    RunRecord run(const RunConfig& cfg, RunObserver* observer = nullptr,
                  const std::atomic<bool>* cancel = nullptr);

    // The latent-to-RGB map of the step previews: the VAE's own (its config's factors or the
    // published ones of its latent format, VaeComponent::latentRgbMap), else one fitted from its
    // decodes (fitLatentRgbMap) on first use, kept until the plan changes. Undefined factors, and
    // `origin` saying why, when the fit failed.
    const LatentRgbMap& latentRgbMap();
    // The step preview of diffusion-space latents [1, C, h, w]: their projection through
    // latentRgbMap() at latent resolution, the map's origin in `projection`; without a map a
    // flat grey tile whose `projection` says why.
    PreviewImage projectedPreview(const torch::Tensor& latents, int step);
    // Full decode of diffusion-space latents [1, C, h, w] -> image [1, 3, H, W] float32.
    torch::Tensor decode(const torch::Tensor& latents, ProbeContext& probes);
    // Full decode of a step's x0 estimate (a run with keepLatents), in the VAE's format.
    // Throws PipelineError when the step holds no latents of this model's shape.
    PreviewImage decodePreview(const StepRecord& step);

private:
    Pipeline() = default;
    struct Part {
        ComponentSlot slot;
        OpenedComponent opened;
        std::shared_ptr<const Family> family;
        std::shared_ptr<Component> component;  // null while a streaming run has freed it
        LoadMode mode = LoadMode::Full;
    };
    void loadPart(Part& part, const PrecisionPolicy& policy);
    void attach();
    void describe();
    // The load mode of each part for `plan` (in m_parts' order); throws when nothing fits.
    LoadModeChoice chooseModes(const PrecisionPlan& plan) const;
    bool streams() const;
    MessageText memoryPlanOf(const LoadModeChoice& choice) const;  // after the parts' modes
    // Text encoders are freed after encoding when the pipeline streams, and read again here.
    void reloadFreedParts();
    void freeTextEncoders();
    PrecisionPlan planFor(const PrecisionPlan& userPlan) const;
    // The run's note on a VAE that asks to be upcast but runs in fp16; none otherwise.
    std::optional<std::string> vaeUpcastNote() const;
    // After step estimateStepIndex(steps) (`x0` its x0 estimate [1, C, h, w]; `decodeSeconds`
    // the time of its preview decode, < 0 when none ran): reports the run's estimate
    // (pipeline/run_estimate.h).
    void estimateAfterStep(RunEstimator& estimator, const torch::Tensor& x0, double decodeSeconds,
                           int steps, int decodeEvery);

    std::string m_dir;
    ModelFiles m_files;
    std::vector<std::string> m_detected;
    MessageText m_memoryPlan;
    torch::Device m_device{torch::kCPU};
    PipelineFolder m_folder;
    PrecisionPlan m_plan;
    std::optional<PrecisionPolicy> m_policy;  // m_plan on m_device, bf16 as at load time
    std::unique_ptr<DenoisingStrategy> m_strategy;
    std::vector<Part> m_parts;
    VaeComponent* m_vae = nullptr;
    std::optional<LatentRgbMap> m_rgbMap;  // latentRgbMap() once resolved
    std::vector<ComponentInfo> m_infos;
};

}  // namespace hs
