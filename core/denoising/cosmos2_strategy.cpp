#include "denoising/cosmos2_strategy.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "denoising/sd_comfy_run.h"
#include "denoising/token_bounds.h"
#include "families/cosmos/cosmos_family.h"
#include "sampling/comfy_samplers.h"
#include "text/t5_tokenizer.h"

namespace hs {

namespace {

// What Cosmos2TextToImagePipeline registers into its scheduler's config.
constexpr double kSigmaMax = 80.0, kSigmaMin = 0.002, kSigmaData = 1.0;
constexpr int kMaxSequenceLength = 512;

// The pipeline's DEFAULT_NEGATIVE_PROMPT, used when no negative prompt is given.
const char* kDefaultNegativePrompt =
    "The video captures a series of frames showing ugly scenes, static with no motion, motion "
    "blur, over-saturation, shaky footage, low resolution, grainy texture, pixelated images, "
    "poorly lit areas, underexposed and overexposed scenes, poor color balance, washed out "
    "colors, choppy sequences, jerky movements, low frame rate, artifacting, color banding, "
    "unnatural transitions, outdated special effects, fake elements, unconvincing visuals, poorly "
    "edited content, jump cuts, visual noise, and flickering. Overall, the video is of poor "
    "quality.";

// FlowMatchEulerDiscreteScheduler.set_timesteps(sigmas=linspace(0, 1, n)) with
// use_karras_sigmas, shift 1 and sigma_min / sigma_max as the pipeline registers them: Karras'
// ramp (rho 7) in float64, then float32; a final sigma appended and set to the one before it.
std::vector<float> karrasSigmas(int n) {
    const double rho = 7.0, lo = std::pow(kSigmaMin, 1 / rho), hi = std::pow(kSigmaMax, 1 / rho);
    std::vector<float> s;
    for (int i = 0; i < n; ++i) {
        const double ramp = n == 1 ? 0.0 : double(i) / double(n - 1);
        s.push_back(float(std::pow(hi + ramp * (lo - hi), rho)));
    }
    s.push_back(s.back());  // final_sigmas_type "sigma_min": sigmas[-1] = sigmas[-2]
    return s;
}

class Cosmos2Run : public DenoisingRun {
public:
    Cosmos2Run(const RunConfig& cfg, const torch::Device& device, TextEncoderComponent& encoder,
               const T5Tokenizer& tokenizer, CosmosTransformerComponent& transformer,
               VaeComponent& vae)
        : m_cfg(cfg),
          m_device(device),
          m_encoder(encoder),
          m_tokenizer(tokenizer),
          m_transformer(transformer),
          m_guided(cfg.guidance > 1.0),
          m_sigmas(karrasSigmas(cfg.steps)) {
        // [1, C, h, w]; the model sees [1, C, 1, h, w]
        if (cfg.comfySampler.empty()) {
            m_x = (initialNoise(cfg, vae) * kSigmaMax).to(device);
            return;
        }
        // ComfyUI's CosmosT2IPredict2: ModelSamplingCosmosRFlow on sigma_min 0.002, sigma_max
        // 80 (comfy/supported_models.py), its sampler and schedule, its cfg (a second pass
        // unless cfg is 1), the start noise * sigma_0.
        m_ms = std::make_unique<ComfyModelSampling>(
            ComfyModelSampling::cosmosRFlow(kSigmaMin, kSigmaMax));
        m_sampler = std::make_unique<ComfySampler>(comfySamplerFor(
            *m_ms, cfg.comfySampler, cfg.comfyScheduler, cfg.steps, cfg.seed, m_notes));
        m_guided = comfyCfgGuides(cfg.guidance);
        m_x = comfyInitialLatent(*m_ms, m_sampler->sigmas().front(), initialNoise(cfg, vae))
                  .to(device);
    }

    torch::Tensor encodePrompt(ProbeContext& probes) override {
        m_cond = embed(m_cfg.prompt, probes);
        // ComfyUI encodes the graph's negative text, empty or not.
        if (m_guided)
            m_uncond = embed(m_cfg.negativePrompt.empty() && !m_sampler
                                 ? std::string(kDefaultNegativePrompt)
                                 : m_cfg.negativePrompt,
                             probes);
        return m_cond;
    }

    int numSteps() const override {
        return m_sampler ? m_sampler->numSteps() : int(m_sigmas.size()) - 1;
    }
    std::vector<std::string> notes() const override { return m_notes; }

    DenoiseStep step(int i, ProbeContext& probes) override {
        if (m_sampler) return comfyStep(i, probes);
        const float sigma = m_sigmas[size_t(i)], next = m_sigmas[size_t(i) + 1];
        const float t = sigma / (sigma + 1);
        auto denoised = estimate(m_x, t, m_cond, probes);
        if (m_guided)
            denoised = denoised + m_cfg.guidance * (denoised - estimate(m_x, t, m_uncond, probes));
        const auto v = (m_x - denoised) / sigma;  // the scheduler's model output
        DenoiseStep s;
        s.sigma = sigma;
        s.timestep = sigma * 1000.0;  // the scheduler's timesteps: sigmas * num_train_timesteps
        s.modelOutput = v;
        s.denoised = denoised;
        s.next = m_x + (next - sigma) * v;
        m_x = s.next;
        return s;
    }

    // Diffusion space here is sigma_data times the VAE's normalised space (sigma_data is 1).
    torch::Tensor latents() const override { return m_x / kSigmaData; }

private:
    // The x0 estimate of latents x [1, C, h, w] at noise level sigma for one text:
    // COSMOS_RFLOW's c_in = c_skip = 1 - t, c_out = -t at t = sigma / (sigma + 1).
    torch::Tensor estimate(const torch::Tensor& x, float t, const torch::Tensor& text,
                           ProbeContext& probes) {
        CosmosInputs in;
        in.hiddenStates = (x * (1 - t)).unsqueeze(2);  // [1, C, 1, h, w]
        in.timestep = torch::full({1}, double(t), torch::TensorOptions().device(m_device));
        in.encoderHiddenStates = text;
        auto out = m_transformer.model->forward(in, probes).to(torch::kFloat32).squeeze(2);
        return (1 - t) * x - t * out;
    }

    // A step of ComfyUI's sampler; guidance as its cfg_function: uncond + (cond - uncond) cfg.
    DenoiseStep comfyStep(int i, ProbeContext& probes) {
        auto st = m_sampler->step(i, m_x, [&](const torch::Tensor& x, double sigma) {
            const float t = float(m_ms->timestep(sigma));
            auto cond = estimate(x, t, m_cond, probes);
            if (!m_guided) return cond;
            auto uncond = estimate(x, t, m_uncond, probes);
            return uncond + (cond - uncond) * float(m_cfg.guidance);
        });
        DenoiseStep s;
        s.sigma = m_sampler->sigmas()[size_t(i)];
        s.timestep = m_ms->timestep(s.sigma);
        s.denoised = st.denoised.to(torch::kFloat32);
        s.modelOutput = (m_x - s.denoised) / float(s.sigma);  // the direction euler steps along
        s.next = st.next.to(torch::kFloat32);
        m_x = s.next;
        return s;
    }

    // T5 over the prompt padded to 512 tokens with its mask; padded positions zeroed.
    torch::Tensor embed(const std::string& text, ProbeContext& probes) {
        const std::vector<int> v = m_tokenizer.encodePadded(text, kMaxSequenceLength);
        checkTokenIds(v, m_encoder.tokenTable().rows, "text_encoder");
        const auto ids = torch::tensor(std::vector<int64_t>(v.begin(), v.end()), torch::kInt64)
                             .view({1, kMaxSequenceLength})
                             .to(m_device);
        int64_t length = kMaxSequenceLength;  // through </s>, which encodePadded keeps last
        while (length > 1 && v[size_t(length) - 1] == m_tokenizer.padId() &&
               v[size_t(length) - 1] != m_tokenizer.eosId())
            --length;
        auto mask = torch::zeros({1, kMaxSequenceLength},
                                 torch::TensorOptions().dtype(torch::kInt64).device(m_device));
        mask.narrow(1, 0, length).fill_(1);
        auto h = m_encoder.encode(ids, mask, probes).lastHiddenState.to(torch::kFloat32);
        return h * mask.to(torch::kFloat32).unsqueeze(-1);  // [1, 512, D]
    }

    RunConfig m_cfg;
    torch::Device m_device;
    TextEncoderComponent& m_encoder;
    const T5Tokenizer& m_tokenizer;
    CosmosTransformerComponent& m_transformer;
    bool m_guided;
    std::vector<float> m_sigmas;               // [steps + 1]
    torch::Tensor m_x, m_cond, m_uncond;       // latents [1, C, h, w]; text [1, 512, D]
    std::unique_ptr<ComfyModelSampling> m_ms;  // ComfyUI's sampling; null: the pipeline's own
    std::unique_ptr<ComfySampler> m_sampler;
    std::vector<std::string> m_notes;
};

class Cosmos2Strategy : public DenoisingStrategy {
public:
    std::vector<ComponentSlot> componentSlots() const override {
        return slotsOf({encoderSlots(1, Role::TextEncoder, true), denoiserSlots("transformer")});
    }

    void attach(const std::map<std::string, std::shared_ptr<Component>>& c,
                const PipelineFolder& folder) override {
        m_encoder = textEncoderIn(c, "text_encoder");
        m_transformer = CosmosTransformerComponent::in(c, "transformer");
        m_vae = videoVaeIn(c, "vae", "the Wan VAE (AutoencoderKLWan)");
        const auto& tc = m_transformer->model->config();
        if (tc.textEmbedDim != m_encoder->width())
            throw PipelineError(folder.dir + ": the transformer takes text features of width " +
                                std::to_string(tc.textEmbedDim) +
                                " (text_embed_dim), text_encoder gives " +
                                std::to_string(m_encoder->width()) + " (d_model)");
        if (tc.inChannels != m_vae->latentChannels())
            throw PipelineError(folder.dir + ": transformer in_channels " +
                                std::to_string(tc.inChannels) + " != VAE z_dim " +
                                std::to_string(m_vae->latentChannels()));
        const nlohmann::json sched = schedulerConfigOf(*folder.find("scheduler"));
        if (!sched.value("use_karras_sigmas", false))
            throw PipelineError(folder.dir +
                                ": Cosmos2TextToImagePipeline samples Karras sigmas from 80 to "
                                "0.002; its scheduler config must have use_karras_sigmas true");
        m_tokenizer = T5Tokenizer::fromFolder(folder.find("tokenizer")->dir);
        if (m_tokenizer->vocabSize() > size_t(m_encoder->tokenTable().rows))
            throw PipelineError(folder.dir + ": the tokenizer has " +
                                std::to_string(int64_t(m_tokenizer->vocabSize())) +
                                " ids but text_encoder embeds only " +
                                std::to_string(m_encoder->tokenTable().rows) + " (vocab_size)");
    }

    int sizeMultiple() const override {
        const auto& p = m_transformer->model->config().patchSize;
        return m_vae->downFactor() * std::max(p[1], p[2]);
    }

    std::unique_ptr<DenoisingRun> start(const RunConfig& cfg,
                                        const torch::Device& device) override {
        return std::make_unique<Cosmos2Run>(cfg, device, *m_encoder, *m_tokenizer, *m_transformer,
                                            *m_vae);
    }

    // The pipeline's call defaults: 35 steps, guidance 7.0.
    RunDefaults defaults() const override { return {35, 7.0, true}; }
    bool runsComfySamplers() const override { return true; }
    void validate(const RunConfig& cfg) const override { validateComfySampling(cfg); }

private:
    TextEncoderComponent* m_encoder = nullptr;
    CosmosTransformerComponent* m_transformer = nullptr;
    VaeComponent* m_vae = nullptr;
    std::optional<T5Tokenizer> m_tokenizer;
};

}  // namespace

std::unique_ptr<DenoisingStrategy> makeCosmos2TextToImageStrategy() {
    return std::make_unique<Cosmos2Strategy>();
}

}  // namespace hs
