#include "denoising/sd3_strategy.h"

#include <optional>

#include "denoising/flow_match_run.h"
#include "denoising/sd3_text.h"
#include "families/sd3/sd3_family.h"
#include "sampling/comfy_sigmas.h"
#include "sampling/flow_match.h"

namespace hs {

namespace {

class Sd3Run : public FlowMatchRun {
public:
    Sd3Run(const RunConfig& cfg, const torch::Device& device, const Sd3Text& text,
           SD3TransformerComponent& transformer, VaeComponent& vae, FlowMatchConfig scheduler)
        : FlowMatchRun(cfg, device, cfg.guidance > 1.0, vae, Packing::None),
          m_text(text),
          m_transformer(transformer) {
        // mu from the image's token count, only when the scheduler shifts dynamically.
        const int64_t p = transformer.config().patchSize;
        // ComfyUI's SD3 and SD3.5: ModelSamplingDiscreteFlow at shift 3 (or the image's
        // ModelSamplingSD3 shift), the model called at t = 1000 sigma.
        schedule(scheduler, Sigmas::SchedulerTimesteps, (m_h / p) * (m_w / p),
                 {ComfyModelSampling::discreteFlow(cfg.shift.value_or(3.0), 1000.0)});
    }

    torch::Tensor encodePrompt(ProbeContext& probes) override {
        // [uncond, cond] in one batch when guided, as the pipeline concatenates them.
        std::vector<std::string> texts{m_cfg.prompt};
        if (m_guided) texts.insert(texts.begin(), m_cfg.negativePrompt);
        m_embeds = m_text.encode(texts, m_device, probes);
        return m_embeds.sequence.slice(0, m_guided ? 1 : 0);  // the prompt's [1, L, D]
    }

    torch::Tensor velocity(const torch::Tensor& x, double t, ProbeContext& probes) override {
        const int64_t batch = m_guided ? 2 : 1;
        const auto input = m_guided ? torch::cat({x, x}) : x;
        // timestep = t.expand(batch): sigma * 1000 as the scheduler holds it.
        const auto ts = torch::full({batch}, t, torch::TensorOptions().device(m_device));
        auto v = m_transformer.predict(input, m_embeds.sequence, m_embeds.pooled, ts, probes);
        if (m_guided) {
            auto parts = v.chunk(2);
            v = parts[0] + m_cfg.guidance * (parts[1] - parts[0]);  // uncond + g (cond - uncond)
        }
        return v;
    }

private:
    const Sd3Text& m_text;
    SD3TransformerComponent& m_transformer;
    Sd3Embeds m_embeds;
};

class Sd3Strategy : public DenoisingStrategy {
public:
    std::vector<ComponentSlot> componentSlots() const override {
        return slotsOf({encoderSlots(1, Role::TextEncoder, true),
                        encoderSlots(2, Role::TextEncoder2, true),
                        encoderSlots(3, Role::TextEncoder2, false), denoiserSlots("transformer")});
    }

    void attach(const ComponentMap& c, const PipelineFolder& folder) override {
        m_transformer = SD3TransformerComponent::in(c, "transformer");
        m_vae = vaeIn(c, "vae");
        const SD3Config& tc = m_transformer->config();
        if (tc.inChannels != m_vae->latentChannels())
            throw PipelineError(folder.dir + ": the transformer takes " +
                                std::to_string(tc.inChannels) +
                                " latent channels (in_channels), the VAE gives " +
                                std::to_string(m_vae->latentChannels()));
        m_text = Sd3Text::attach(c, folder, tc.jointAttentionDim, tc.pooledProjectionDim);
        m_scheduler = FlowMatchConfig::fromJson(schedulerConfigOf(*folder.find("scheduler")));
    }

    bool runsComfySamplers() const override { return true; }
    int sizeMultiple() const override {
        return m_vae->downFactor() * m_transformer->config().patchSize;
    }

    void validate(const RunConfig& cfg) const override {
        // PatchEmbed crops its positional table: the image may not have more patches a side.
        const SD3Config& tc = m_transformer->config();
        const int64_t most = int64_t(tc.posEmbedMaxSize) * tc.patchSize * m_vae->downFactor();
        if (cfg.width > most || cfg.height > most)
            throw PipelineError("SD3's positional table covers " + std::to_string(most) +
                                " pixels a side (pos_embed_max_size " +
                                std::to_string(tc.posEmbedMaxSize) + " patches); " +
                                std::to_string(cfg.width) + " x " + std::to_string(cfg.height) +
                                " is larger");
    }

    std::unique_ptr<DenoisingRun> start(const RunConfig& cfg,
                                        const torch::Device& device) override {
        return std::make_unique<Sd3Run>(cfg, device, *m_text, *m_transformer, *m_vae, m_scheduler);
    }

    // The scheduler of the SD3 and SD3.5 repositories.
    nlohmann::json singleFileSchedulerConfig(
        const std::map<std::string, nlohmann::json>&) const override {
        return {{"_class_name", "FlowMatchEulerDiscreteScheduler"},
                {"num_train_timesteps", 1000},
                {"shift", 3.0}};
    }

    // A VAE file beside the transformer is read with FLUX.1's scaling when it holds nothing else;
    // SD3's repositories scale by 1.5305 and shift by 0.0609.
    void completeSingleFileConfigs(std::map<std::string, nlohmann::json>& configs) const override {
        auto vae = configs.find("vae");
        if (vae == configs.end() || configInt(vae->second, "latent_channels") != 16) return;
        vae->second["scaling_factor"] = 1.5305;
        vae->second["shift_factor"] = 0.0609;
    }

    // StableDiffusion3Pipeline's defaults: 28 steps, guidance 7; the size it was trained at.
    RunDefaults defaults() const override {
        RunDefaults d{28, 7.0, true};
        d.width = d.height = m_transformer->config().sampleSize * m_vae->downFactor();
        return d;
    }

private:
    SD3TransformerComponent* m_transformer = nullptr;
    VaeComponent* m_vae = nullptr;
    std::optional<Sd3Text> m_text;
    FlowMatchConfig m_scheduler;
};

}  // namespace

std::unique_ptr<DenoisingStrategy> makeSd3Strategy() {
    return std::make_unique<Sd3Strategy>();
}

namespace {

std::string modelTypeOf(const nlohmann::json& config) {
    const auto it = config.find("model_type");
    return it != config.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The two CLIPs' projected pooled vectors make pooled_projection_dim, CLIP-L's first (768 of
// SD3's 2048), then OpenCLIP bigG's (1280): each needs a projection and takes less than all of
// it, the first at most half, the second at least half (Sd3Text::attach checks the pair).
std::string sd3ClipMisfit(const PartCheck& p) {
    const bool first = p.slot == "text_encoder";
    const std::string pick =
        std::string(": pick the ") +
        (first ? "CLIP-L (clip_l.safetensors)" : "OpenCLIP bigG (clip_g.safetensors)") +
        " made for it";
    const auto arch = p.partConfig.find("architectures");
    if (arch != p.partConfig.end() && arch->is_array() && !arch->empty() &&
        (*arch)[0] != "CLIPTextModelWithProjection")
        return p.partName + " is no CLIP with a text projection (" + arch->front().dump() +
               "), SD3's " + p.slot + " is one" + pick;
    const int64_t pooled = configInt(p.denoiserConfig, "pooled_projection_dim"),
                  width = configInt(p.partConfig, "projection_dim");
    if (pooled <= 0 || width <= 0) return {};
    const std::string gives = p.partName + " gives a pooled vector of width " +
                              std::to_string(width) + ", " + p.modelName + " takes " +
                              std::to_string(pooled) + " (pooled_projection_dim) ";
    if (width >= pooled) return gives + "from two CLIPs together" + pick;
    if (first && 2 * width > pooled)
        return gives + "and its text_encoder is the narrower CLIP, at most half" + pick;
    if (!first && 2 * width < pooled)
        return gives + "and its text_encoder_2 is the wider CLIP, at least half" + pick;
    return {};
}

}  // namespace

bool sd3SlotTakes(const std::string& slot, const nlohmann::json& partConfig) {
    const std::string type = modelTypeOf(partConfig);
    if (type.empty()) return true;  // the config does not tell
    if (slot == "text_encoder" || slot == "text_encoder_2") return type == "clip_text_model";
    if (slot == "text_encoder_3") return type == "t5";
    return true;
}

std::string sd3PartMisfit(const PartCheck& p) {
    if (p.slot == "vae") return vaeLatentMisfit(p, "SD3", 1, -1, "");
    if (p.slot == "text_encoder" || p.slot == "text_encoder_2") return sd3ClipMisfit(p);
    if (p.slot != "text_encoder_3") return {};
    const int64_t want = configInt(p.denoiserConfig, "joint_attention_dim"),
                  width = configInt(p.partConfig, "d_model");
    if (want <= 0 || width <= 0 || want == width) return {};
    return p.partName + " gives text features of width " + std::to_string(width) + ", " +
           p.modelName + " takes " + std::to_string(want) +
           " (joint_attention_dim): pick the T5-XXL (t5xxl_*.safetensors) made for it";
}

}  // namespace hs
