#pragma once
// A loaded text-to-image pipeline: tokenizer -> CLIP text encoder -> Flux-style transformer ->
// AutoencoderKL, with the flow-matching Euler sampler. Loading converts each component's
// weights once into the formats of the effective precision plan; run() is then repeatable.
#include <torch/torch.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "io/model_folder.h"
#include "models/clip/clip_text_model.h"
#include "models/flux/flux_transformer.h"
#include "models/vae/autoencoder_kl.h"
#include "records/run_types.h"
#include "sampling/flow_match.h"
#include "text/clip_tokenizer.h"

namespace hs {

class PipelineError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Pipeline {
public:
    // Opens `dir` (model_index.json with text_encoder, tokenizer, transformer, vae, scheduler)
    // and loads it for `userPlan` on `device`. Components without a rule keep their stored
    // dtype. Throws FileError, ConfigError, WeightError or PipelineError with a plain message.
    static std::unique_ptr<Pipeline> load(const std::string& dir, const PrecisionPlan& userPlan,
                                          const torch::Device& device);

    const std::string& dir() const { return m_dir; }
    // Stored-dtype defaults followed by the user's rules.
    const PrecisionPlan& effectivePlan() const { return m_plan; }
    const std::vector<ComponentInfo>& components() const { return m_components; }
    int latentChannels() const;
    int sizeMultiple() const;  // width and height must be multiples of this (VAE factor x 2)
    const ClipTokenizer& tokenizer() const { return *m_tokenizer; }

    // Throws PipelineError for settings the model cannot run (sizes, steps, guidance).
    void validate(const RunConfig& cfg) const;

    // Runs the whole pipeline. Cancellation (read before each step and between stages) returns
    // the record so far with `cancelled` set. The observer sees each step as it finishes.
    RunRecord run(const RunConfig& cfg, RunObserver* observer = nullptr,
                  const std::atomic<bool>* cancel = nullptr);

    // Latent-space preview: [1, C, h, w] scaled latents -> RGB [3, h, w] in [-1, 1] with the
    // linear map in vae/config.json's latent_rgb_factors; undefined when the config has none.
    torch::Tensor projectLatents(const torch::Tensor& latents) const;
    // Full decode of scaled latents [1, C, h, w] -> image [1, 3, H, W] float32.
    torch::Tensor decode(const torch::Tensor& latents, ProbeContext& probes);
    // Full decode of a step's x0 estimate (a run with keepLatents), in the VAE's format.
    // Throws PipelineError when the step holds no latents of this model's shape.
    PreviewImage decodePreview(const StepRecord& step);

private:
    Pipeline() = default;
    std::string m_dir;
    torch::Device m_device{torch::kCPU};
    PrecisionPlan m_plan;
    std::vector<ComponentInfo> m_components;
    std::optional<ClipTokenizer> m_tokenizer;
    ClipTextModel m_textEncoder{nullptr};
    FluxTransformer m_transformer{nullptr};
    AutoencoderKL m_vae{nullptr};
    FlowMatchConfig m_scheduler;
    torch::Tensor m_rgbFactors;  // [C + 1, 3] float32, or undefined
};

}  // namespace hs
