#include "denoising/sd_strategy.h"

#include <optional>

#include "denoising/sd_comfy_run.h"
#include "denoising/sd_text.h"
#include "families/unet/unet_family.h"
#include "models/roles.h"
#include "sampling/comfy_sigmas.h"
#include "sampling/scheduler.h"

namespace hs {

namespace {

class SdRun : public DenoisingRun {
public:
    SdRun(const RunConfig& cfg, const torch::Device& device, SdText& text,
          UNet2DConditionModel unet, int latentChannels, int downFactor,
          std::unique_ptr<Scheduler> scheduler, std::vector<std::string> notes)
        : m_cfg(cfg),
          m_device(device),
          m_text(text),
          m_unet(std::move(unet)),
          m_scheduler(std::move(scheduler)),
          m_guided(cfg.guidance > 1.0),
          m_gen(at::detail::createCPUGenerator(cfg.seed)),
          m_notes(std::move(notes)) {
        m_scheduler->setTimesteps(cfg.steps);
        m_sigmas = m_scheduler->sigmas();  // for the records; DDIM and PNDM compute theirs
        // prepare_latents: noise from the run's own generator times init_noise_sigma.
        auto noise =
            torch::randn({1, latentChannels, cfg.height / downFactor, cfg.width / downFactor},
                         m_gen, torch::kFloat32);
        m_x = (noise * m_scheduler->initNoiseSigma()).to(device);  // [1, 4, h, w]
    }

    torch::Tensor encodePrompt(ProbeContext& probes) override {
        m_cond = m_text.encode(m_cfg, m_guided, m_device, probes);
        return m_cond.sequence;
    }

    int numSteps() const override { return m_scheduler->numSteps(); }

    DenoiseStep step(int i, ProbeContext& probes) override {
        const double t = m_scheduler->timestep(i);
        const int64_t batch = m_guided ? 2 : 1;
        UNetInputs in;
        in.sample = m_scheduler->scaleModelInput(batch == 2 ? torch::cat({m_x, m_x}) : m_x, i);
        in.timestep = torch::full({batch}, t, torch::TensorOptions().device(m_device));
        in.encoderHiddenStates = m_cond.context;                     // [B, L, D], [uncond, cond]
        in.textEmbeds = m_cond.textEmbeds;                           // [B, P] (SDXL)
        in.timeIds = m_cond.timeIds;                                 // [B, 6] (SDXL)
        auto out = m_unet->forward(in, probes).to(torch::kFloat32);  // [B, 4, h, w]
        if (batch == 2) {
            auto parts = out.chunk(2);
            out = parts[0] + m_cfg.guidance * (parts[1] - parts[0]);  // uncond + g (cond - uncond)
        }
        SchedulerStep st = m_scheduler->step(out, i, m_x, {}, m_gen);
        DenoiseStep s;
        s.sigma = m_sigmas.defined() && i < m_sigmas.size(0) ? m_sigmas[i].item<double>() : 0.0;
        s.timestep = t;
        s.modelOutput = out;
        s.denoised = st.predOriginal.to(torch::kFloat32);
        s.next = st.prevSample.to(torch::kFloat32);
        m_x = s.next;
        return s;
    }

    torch::Tensor latents() const override { return m_x; }
    std::vector<std::string> notes() const override { return m_notes; }

private:
    RunConfig m_cfg;
    torch::Device m_device;
    SdText& m_text;
    UNet2DConditionModel m_unet;
    std::unique_ptr<Scheduler> m_scheduler;
    bool m_guided;
    at::Generator m_gen;
    std::vector<std::string> m_notes;
    SdConditioning m_cond;
    torch::Tensor m_sigmas;  // [steps + 1] float32, or undefined
    torch::Tensor m_x;       // [1, 4, h, w] float32
};

class SdStrategy : public DenoisingStrategy {
public:
    explicit SdStrategy(bool xl) : m_xl(xl) {}

    std::vector<ComponentSlot> componentSlots() const override {
        // SDXL's refiner has only the second encoder.
        return slotsOf({encoderSlots(1, Role::TextEncoder, !m_xl),
                        encoderSlots(2, Role::TextEncoder2, m_xl), denoiserSlots("unet")});
    }

    void attach(const std::map<std::string, std::shared_ptr<Component>>& c,
                const PipelineFolder& folder) override {
        m_unet = UNet2DConditionComponent::in(c, "unet");
        m_vae = vaeIn(c, "vae");
        const UNetConfig& uc = m_unet->model->config();
        if (m_xl != (uc.additionEmbedType == "text_time"))
            throw PipelineError(folder.dir + ": " +
                                (m_xl ? "an SDXL pipeline needs a UNet with text_time added "
                                        "conditioning (addition_embed_type)"
                                      : "this UNet takes SDXL's text_time conditioning: run it "
                                        "as StableDiffusionXLPipeline"));
        if (uc.inChannels != m_vae->latentChannels())
            throw PipelineError(
                folder.dir + ": the UNet takes " + std::to_string(uc.inChannels) +
                " input channels and the VAE gives " + std::to_string(m_vae->latentChannels()) +
                (uc.inChannels == 9 ? " (an inpainting UNet: it needs an image and a mask; "
                                      "Halfscope runs text-to-image)"
                                    : ""));
        SdTextParts parts;
        parts.encoder = textEncoderIn(c, "text_encoder");
        parts.encoder2 = textEncoderIn(c, "text_encoder_2");
        m_text = SdText::attach(parts, folder, uc, m_xl);
        m_schedulerConfig = schedulerConfigOf(*folder.find("scheduler"));
        // StableDiffusionXLPipeline registers force_zeros_for_empty_prompt, true by default.
        const bool forceZeros = folder.modelIndex.is_object()
                                    ? folder.modelIndex.value("force_zeros_for_empty_prompt", true)
                                    : true;
        m_text->setForceZerosForEmptyPrompt(m_xl && forceZeros);
    }

    int sizeMultiple() const override { return m_vae->downFactor(); }

    // Latent sizes that are not multiples of the UNet's downsampling upsample to the skips'
    // sizes, as diffusers does (forward_upsample_size): any multiple of the VAE's factor runs.
    void validate(const RunConfig& cfg) const override {
        validateComfySampling(cfg);
        try {
            if (cfg.comfySampler.empty())
                scheduler(cfg, nullptr);  // an unknown sampler or prediction type
            else  // a training schedule ComfyUI's model sampling cannot read
                ComfyModelSampling::discrete(configFor(cfg, nullptr), ComfyPrediction::Eps);
        } catch (const ConfigError& e) {
            throw PipelineError(e.what());
        }
    }

    bool runsComfySamplers() const override { return true; }

    std::unique_ptr<DenoisingRun> start(const RunConfig& cfg,
                                        const torch::Device& device) override {
        std::vector<std::string> notes;
        if (!cfg.comfySampler.empty())
            return startSdComfyRun(cfg, device, *m_text, m_unet->model, configFor(cfg, &notes),
                                   initialNoise(cfg, *m_vae), std::move(notes));
        auto s = scheduler(cfg, &notes);
        return std::make_unique<SdRun>(cfg, device, *m_text, m_unet->model, m_vae->latentChannels(),
                                       m_vae->downFactor(), std::move(s), std::move(notes));
    }

    // The scheduler configs of the reference repositories: SD 1.5's PNDM (PLMS steps),
    // SD 2.1's DDIM with v-prediction (768-v; SD 2.x-base is epsilon and the weights cannot
    // tell: --prediction-type epsilon), SDXL's Euler. All share SD's training schedule.
    nlohmann::json singleFileSchedulerConfig(
        const std::map<std::string, nlohmann::json>& configs) const override {
        nlohmann::json j{{"num_train_timesteps", 1000}, {"beta_start", 0.00085},
                         {"beta_end", 0.012},           {"beta_schedule", "scaled_linear"},
                         {"steps_offset", 1},           {"timestep_spacing", "leading"},
                         {"prediction_type", "epsilon"}};
        const auto u = configs.find("unet");
        int context = 768;
        if (u != configs.end() && u->second.contains("cross_attention_dim") &&
            u->second["cross_attention_dim"].is_number_integer())
            context = u->second["cross_attention_dim"].get<int>();
        if (m_xl) {
            j["_class_name"] = "EulerDiscreteScheduler";
            j["interpolation_type"] = "linear";
            j["use_karras_sigmas"] = false;
        } else if (context == 1024) {
            j["_class_name"] = "DDIMScheduler";
            j["clip_sample"] = false;
            j["set_alpha_to_one"] = false;
            j["prediction_type"] = "v_prediction";
        } else {
            j["_class_name"] = "PNDMScheduler";
            j["skip_prk_steps"] = true;
            j["set_alpha_to_one"] = false;
        }
        return j;
    }

    // diffusers' __call__ defaults: 50 steps, guidance 7.5 (SD) or 5.0 (SDXL).
    RunDefaults defaults() const override {
        RunDefaults d{50, m_xl ? 5.0 : 7.5, true};
        for (const SchedulerChoice& c : schedulerChoices()) d.samplers.emplace_back(c.id, c.label);
        return d;
    }

private:
    // The model's scheduler config with the run's prediction type (noted when it differs).
    nlohmann::json configFor(const RunConfig& cfg, std::vector<std::string>* notes) const {
        nlohmann::json base = m_schedulerConfig;
        const std::string own = base.value("prediction_type", std::string("epsilon"));
        if (!cfg.predictionType.empty()) {
            if (cfg.predictionType != own && notes)
                notes->push_back("the model's scheduler config says prediction_type '" + own +
                                 "'; this run treats the UNet's output as '" + cfg.predictionType +
                                 "' as asked (a wrong prediction type gives noise or a grey "
                                 "image, not NaN)");
            base["prediction_type"] = cfg.predictionType;
        }
        return base;
    }

    // The run's scheduler: the model's config with the run's prediction type, switched to the
    // run's sampler. A model whose own scheduler is not implemented (LMSDiscrete, say) runs Euler
    // with its training schedule, and says so in `notes`.
    std::unique_ptr<Scheduler> scheduler(const RunConfig& cfg,
                                         std::vector<std::string>* notes) const {
        const nlohmann::json base = configFor(cfg, notes);
        if (!cfg.scheduler.empty()) return makeScheduler(switchScheduler(base, cfg.scheduler));
        try {
            return makeScheduler(base);
        } catch (const ConfigError& e) {
            if (notes)
                notes->push_back(std::string("the model's scheduler cannot run here (") + e.what() +
                                 "); running EulerDiscreteScheduler on its training schedule "
                                 "(pick another with --scheduler)");
            return makeScheduler(switchScheduler(base, "euler"));
        }
    }

    bool m_xl;
    UNet2DConditionComponent* m_unet = nullptr;
    VaeComponent* m_vae = nullptr;
    std::optional<SdText> m_text;
    nlohmann::json m_schedulerConfig;
};

}  // namespace

bool isSdxlUNetConfig(const nlohmann::json& unetConfig) {
    return unetConfig.is_object() &&
           unetConfig.value("addition_embed_type", nlohmann::json()) == nlohmann::json("text_time");
}

std::unique_ptr<DenoisingStrategy> makeStableDiffusionStrategy() {
    return std::make_unique<SdStrategy>(false);
}

std::unique_ptr<DenoisingStrategy> makeStableDiffusionXLStrategy() {
    return std::make_unique<SdStrategy>(true);
}

std::string sdPartMisfit(const PartCheck& p) {
    if (p.slot != "vae") return {};
    // The UNet takes the latents as they are; an inpainting UNet adds a mask and the masked
    // latents.
    const int64_t latent = configInt(p.partConfig, "latent_channels");
    return vaeLatentMisfit(p, "Stable Diffusion", 1, 2 * latent + 1, "");
}

}  // namespace hs
