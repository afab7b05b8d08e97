#pragma once
// A denoising strategy owns what differs between pipeline shapes (Flux, Stable Diffusion,
// Anima, Qwen-Image): which components the pipeline has and in which roles, the conditioning,
// the latent layout and packing, the guidance style, the scheduler and the prediction type.
// Pipeline (pipeline/) keeps what they share: loading, the step loop, probes, previews,
// cancellation, the VAE decode and the run record. A new shape is one strategy plus one line
// in denoising/strategies.cpp (see docs/ADDING_A_MODEL.md).
#include <torch/torch.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/pipeline_error.h"
#include "io/model_folder.h"
#include "models/registry.h"
#include "models/roles.h"
#include "records/run_types.h"

namespace hs {

// A component the shape uses: its key in model_index.json, the role it plays there, and
// whether it is a model (loaded through its family) or a file set the strategy reads itself
// (tokenizer, scheduler). A required slot missing from model_index.json is an error before
// anything loads.
struct ComponentSlot {
    std::string name;
    Role role = Role::Other;
    bool required = true;
    bool model = true;
    // Said when the slot is missing from single files, after which option gives it.
    std::string whereFound = {};
    // A tokenizer slot whose ids no text encoder slot of the pipeline reads (Anima's
    // t5_tokenizer, read by its text conditioner): the class of the family whose tokenizer it is
    // and the file-set slot that gives it (modelFileSlots(): "tokenizer_2"). Single files are
    // then completed with it as with an encoder's own.
    std::string tokenizerFamily = {};
    std::string givenWith = {};
};

// 1 for "text_encoder", 2 for "text_encoder_2", ...; 0 for a slot that is no text encoder's.
int textEncoderNumber(const std::string& slot);

// The folder's component `name`; throws PipelineError "<folder>: <missing>" when it has none.
const PipelineComponent& requiredPart(const PipelineFolder& folder, const std::string& name,
                                      const std::string& missing);

// The slots of the n-th text encoder and its tokenizer: "text_encoder" and "tokenizer" (n = 1),
// "text_encoder_2" and "tokenizer_2" (n = 2) ...
std::vector<ComponentSlot> encoderSlots(int n, Role role, bool required);
// The slots every shape ends with: its denoiser's ("transformer", "unet"), the VAE's and the
// scheduler's, all required.
std::vector<ComponentSlot> denoiserSlots(const std::string& denoiser);
// The slots of `parts`, in order.
std::vector<ComponentSlot> slotsOf(std::initializer_list<std::vector<ComponentSlot>> parts);

// What one step produced, in the image latent layout [1, C, h, w], float32.
struct DenoiseStep {
    double sigma = 0;
    double timestep = 0;        // the model's time input as the scheduler numbers it
    torch::Tensor next;         // the latents after the step
    torch::Tensor modelOutput;  // the guided model output (velocity, noise, ...)
    torch::Tensor denoised;     // the x0 estimate the previews show
};

// One run of a strategy: made by DenoisingStrategy::start(), driven by Pipeline::run().
class DenoisingRun {
public:
    virtual ~DenoisingRun() = default;
    // Encodes the prompt (and the negative one when the guidance needs it); returns the
    // embedding the run records as its text embedding.
    virtual torch::Tensor encodePrompt(ProbeContext& probes) = 0;
    virtual int numSteps() const = 0;
    // Step i (0-based, in order): one guided model call and one scheduler step.
    virtual DenoiseStep step(int i, ProbeContext& probes) = 0;
    // The latents reached so far, [1, C, h, w] in diffusion space (before the VAE's unscale).
    virtual torch::Tensor latents() const = 0;
    // What the run did otherwise than the model's files say (a sampler substituted, a
    // prediction type overridden), one sentence each, for the record.
    virtual std::vector<std::string> notes() const { return {}; }
};

// What a model is meant to run with: the studio proposes these when it opens the model, and
// the CLI uses them for options not given.
struct RunDefaults {
    int steps = 20;
    double guidance = 4.0;
    bool negativePrompt = true;  // whether the model takes a negative prompt
    int width = 0, height = 0;   // the image size it was trained at; 0: the caller's default
    // Samplers a run may pick (RunConfig::scheduler), as (id, label); empty: the model's own
    // scheduler only.
    std::vector<std::pair<std::string, std::string>> samplers = {};
    // The only words the model understands, lower case (the demo model's grammar); empty: any
    // text. The studio names the prompt's other words as they are typed.
    std::vector<std::string> vocabulary = {};
    // Whether runs take ComfyUI's samplers and schedules (RunConfig::comfySampler): filled by
    // the Pipeline from DenoisingStrategy::runsComfySamplers.
    bool comfySamplers = false;
};

class DenoisingStrategy {
public:
    virtual ~DenoisingStrategy() = default;
    virtual std::vector<ComponentSlot> componentSlots() const = 0;
    // The loaded components by slot name (required ones present), and the folder for tokenizers
    // and the scheduler config. Checks that the parts fit together; called again after a
    // component is reloaded. Throws PipelineError (FileError, ConfigError for the files).
    virtual void attach(const std::map<std::string, std::shared_ptr<Component>>& components,
                        const PipelineFolder& folder) = 0;
    // Image width and height must be multiples of this.
    virtual int sizeMultiple() const = 0;
    // Throws PipelineError for settings this shape cannot run (beyond the Pipeline's checks).
    virtual void validate(const RunConfig& config) const {}
    // Whether runs take RunConfig::comfySampler / comfyScheduler (ComfyUI's samplers and sigma
    // schedules); the Pipeline refuses them for a shape that does not.
    virtual bool runsComfySamplers() const { return false; }
    virtual std::unique_ptr<DenoisingRun> start(const RunConfig& config,
                                                const torch::Device& device) = 0;
    // The scheduler config for a model opened from single files, which carry none, given the
    // converted components' configs by slot (FLUX.1-dev and schnell differ).
    // Throws PipelineError for a shape that does not open single files.
    virtual nlohmann::json singleFileSchedulerConfig(
        const std::map<std::string, nlohmann::json>& configs) const {
        throw PipelineError("this pipeline type does not open single-file checkpoints");
    }
    // The converted configs of a model opened from single files, by slot, completed with what
    // the files do not store and this shape's repository says (SD3's VAE scaling, which a
    // 16-channel VAE file shares with FLUX.1's ae.safetensors).
    virtual void completeSingleFileConfigs(std::map<std::string, nlohmann::json>& configs) const {}
    // Steps and guidance the model is meant to run with, once attached.
    virtual RunDefaults defaults() const { return {}; }
};

// The VAE in `slot` when its latents are a video VAE's (VaeComponent::videoLatents), for the
// shapes that denoise those: null when the slot is empty, PipelineError "the 'slot' component is
// not <what>" otherwise.
VaeComponent* videoVaeIn(const ComponentMap& components, const std::string& slot,
                         const std::string& what);

// The starting latents of a run: randn [1, C, height / f, width / f] float32 on the CPU from
// the run's own generator (seeded with cfg.seed), so that the same seed gives the same image
// anywhere. C and f are the VAE's latent channels and down factor.
torch::Tensor initialNoise(const RunConfig& cfg, const VaeComponent& vae);

// A part picked for `slot` of a model's file set, before anything loads (the library): its
// converted config against the denoiser's.
struct PartCheck {
    std::string slot;                 // "vae"
    std::string partName, modelName;  // file names, for the message
    nlohmann::json denoiserConfig, partConfig;
};

// An integer of a converted config, -1 when absent or not an integer.
int64_t configInt(const nlohmann::json& config, const char* key);
// The VAE check both latent-image shapes make: a VAE whose latent_channels, times `packing`
// (FLUX packs 2x2 latent pixels into one token: 4), is not what the denoiser takes (its
// in_channels; `alsoTakes`: another count it accepts, as an inpainting UNet's 2 x latent + 1).
std::string vaeLatentMisfit(const PartCheck& part, const std::string& pipeline, int64_t packing,
                            int64_t alsoTakes, const std::string& advice);

struct StrategyInfo {
    std::string name;                          // "Flux", for messages
    std::vector<std::string> pipelineClasses;  // model_index.json "_class_name" values
    std::function<std::unique_ptr<DenoisingStrategy>()> make;
    // Denoiser classes whose single-file checkpoints this strategy runs, as pipelineClasses[0].
    std::vector<std::string> denoiserClasses = {};
    // Whether a single-file denoiser of one of those classes is this shape's, from its converted
    // config (SD and SDXL share the UNet class); null: every one is.
    std::function<bool(const nlohmann::json& denoiserConfig)> runsDenoiser = {};
    // Why a part does not fit the denoiser (the checks attach() makes, from the configs alone):
    // "<part> is a VAE of another family: ..."; "" when it fits or the configs do not tell.
    std::function<std::string(const PartCheck& part)> partMisfit = {};
    // The words telling models of this shape apart, from the denoiser's converted config
    // ("FLUX.1-dev style (guidance embedding)"); null or "": the file's own headline.
    std::function<std::string(const nlohmann::json& denoiserConfig)> variantName = {};
    // The file users usually hold for a slot ("ae.safetensors"), for the library's hints.
    std::map<std::string, std::string> usualFiles = {};
    // Whether a part of this converted config is of the kind a text-encoder slot holds (SD3: a
    // CLIP in text_encoder and text_encoder_2, a T5 in text_encoder_3). With it the library puts
    // a file holding one encoder in the first slot of its kind that its checks pass, from the
    // one its layout names on, as the loader takes it with --text-encoder-N (SD3's
    // clip_g.safetensors converts as a first encoder and is its second); null: the slot its
    // layout names.
    std::function<bool(const std::string& slot, const nlohmann::json& partConfig)> slotTakes = {};
};

class StrategyRegistry {
public:
    static StrategyRegistry& global();  // the built-in shapes, registered on first use
    // Throws std::invalid_argument when one of its pipeline classes is already taken.
    void add(StrategyInfo info);
    // The strategy for a pipeline class; throws PipelineError listing the supported ones.
    std::unique_ptr<DenoisingStrategy> make(const std::string& pipelineClass,
                                            const std::string& where) const;
    // The pipeline class that runs a single-file `denoiserClass` of config `denoiserConfig`; ""
    // when none does.
    std::string pipelineClassFor(const std::string& denoiserClass,
                                 const nlohmann::json& denoiserConfig) const;
    // The shape running `pipelineClass`, or null.
    std::shared_ptr<const StrategyInfo> info(const std::string& pipelineClass) const;

private:
    mutable std::mutex m_mutex;
    std::vector<StrategyInfo> m_strategies;
};

// Registers the shapes that ship with Halfscope (denoising/strategies.cpp).
void registerBuiltinStrategies(StrategyRegistry& registry);

}  // namespace hs
