#include "denoising/flux_strategy.h"

#include <optional>

#include "models/flux/flux_family.h"
#include "models/flux/flux_latents.h"
#include "models/roles.h"
#include "sampling/flow_match.h"
#include "text/clip_tokenizer.h"

namespace hs {

namespace {

template <typename T>
T& roleOf(const std::map<std::string, std::shared_ptr<Component>>& c, const std::string& slot,
          const char* what) {
    auto* p = dynamic_cast<T*>(c.at(slot).get());
    if (!p) throw PipelineError("the '" + slot + "' component is not " + std::string(what));
    return *p;
}

class FluxRun : public DenoisingRun {
public:
    FluxRun(const RunConfig& cfg, const torch::Device& device, TextEncoderComponent& textEncoder,
            FluxTransformerComponent& transformer, VaeComponent& vae,
            const ClipTokenizer& tokenizer, FlowMatchConfig scheduler)
        : m_cfg(cfg),
          m_device(device),
          m_textEncoder(textEncoder),
          m_transformer(transformer),
          m_tokenizer(tokenizer),
          m_guided(cfg.guidance > 1.0),
          m_batch(m_guided ? 2 : 1),
          m_h(cfg.height / vae.downFactor()),
          m_w(cfg.width / vae.downFactor()) {
        // Noise from the run's own generator: the same seed gives the same image anywhere.
        auto gen = at::detail::createCPUGenerator(cfg.seed);
        auto noise = torch::randn({1, vae.latentChannels(), m_h, m_w}, gen, torch::kFloat32);
        m_x = packLatents(noise).to(device);  // [1, h/2 * w/2, 4C]
        if (cfg.shift) scheduler.shift = *cfg.shift;
        m_scheduler = FlowMatchEulerScheduler(scheduler);
        std::optional<double> mu;
        if (scheduler.useDynamicShifting) mu = calculateShift(m_x.size(1), scheduler);
        m_scheduler.setSigmas(fluxPipelineSigmas(cfg.steps), mu);
    }

    torch::Tensor encodePrompt(ProbeContext& probes) override {
        // [cond, uncond] in one batch when guidance is on.
        const int L = m_tokenizer.modelMaxLength();
        std::vector<int64_t> ids;
        for (const auto* text : {&m_cfg.prompt, &m_cfg.negativePrompt}) {
            auto v = m_tokenizer.encodePadded(*text, L);
            ids.insert(ids.end(), v.begin(), v.end());
            if (!m_guided) break;
        }
        auto idT = torch::tensor(ids, torch::kInt64).view({m_batch, L}).to(m_device);
        TextEncoding text = m_textEncoder.encode(idT, probes);
        m_in.encoderHiddenStates = text.lastHiddenState;
        m_in.pooledProjections = text.pooled;
        m_in.imgIds = prepareLatentImageIds(m_h / 2, m_w / 2, m_device);
        m_in.txtIds = prepareTextIds(L, m_device);
        if (m_transformer.model->config().guidanceEmbeds)
            m_in.guidance =
                torch::full({m_batch}, m_cfg.guidance, torch::TensorOptions().device(m_device));
        return text.lastHiddenState;
    }

    int numSteps() const override { return m_scheduler.numSteps(); }

    DenoiseStep step(int i, ProbeContext& probes) override {
        const double t = m_scheduler.modelTime(i);
        m_in.hiddenStates = m_batch == 2 ? torch::cat({m_x, m_x}) : m_x;
        m_in.timestep = torch::full({m_batch}, t, torch::TensorOptions().device(m_device));
        auto v = m_transformer.model->forward(m_in, probes).to(torch::kFloat32);
        if (m_batch == 2) {
            auto parts = v.chunk(2);
            v = parts[1] + m_cfg.guidance * (parts[0] - parts[1]);  // uncond + g (cond - uncond)
        }
        auto next = m_scheduler.step(v, i, m_x);
        DenoiseStep s;
        s.sigma = m_scheduler.sigma(i);
        s.timestep = m_scheduler.timestep(i);
        s.modelOutput = unpackLatents(v, m_h, m_w);
        s.denoised = unpackLatents(m_scheduler.denoised(v, i, m_x), m_h, m_w);
        s.next = unpackLatents(next, m_h, m_w);
        m_x = next;
        return s;
    }

    torch::Tensor latents() const override { return unpackLatents(m_x, m_h, m_w); }

private:
    RunConfig m_cfg;
    torch::Device m_device;
    TextEncoderComponent& m_textEncoder;
    FluxTransformerComponent& m_transformer;
    const ClipTokenizer& m_tokenizer;
    bool m_guided;
    int64_t m_batch, m_h, m_w;
    torch::Tensor m_x;  // packed latents [1, h/2 * w/2, 4C]
    FlowMatchEulerScheduler m_scheduler;
    FluxInputs m_in;
};

class FluxStrategy : public DenoisingStrategy {
public:
    std::vector<ComponentSlot> componentSlots() const override {
        return {{"text_encoder", Role::TextEncoder, true, true},
                {"tokenizer", Role::Other, true, false},
                {"transformer", Role::Denoiser, true, true},
                {"vae", Role::Vae, true, true},
                {"scheduler", Role::Other, true, false}};
    }

    void attach(const std::map<std::string, std::shared_ptr<Component>>& c,
                const PipelineFolder& folder) override {
        if (folder.find("text_encoder_2"))
            throw PipelineError(folder.dir +
                                ": a second text encoder (T5, as in FLUX.1) is not supported "
                                "yet; this build runs single-encoder Flux-style pipelines");
        m_textEncoder = &roleOf<TextEncoderComponent>(c, "text_encoder", "a text encoder");
        m_transformer = &roleOf<FluxTransformerComponent>(c, "transformer", "a Flux transformer");
        m_vae = &roleOf<VaeComponent>(c, "vae", "a VAE");
        const auto& fc = m_transformer->model->config();
        const int64_t width = m_textEncoder->width();
        if (fc.jointAttentionDim != width || fc.pooledProjectionDim != width)
            throw PipelineError(folder.dir + ": the transformer expects text features of width " +
                                std::to_string(fc.jointAttentionDim) + " / pooled " +
                                std::to_string(fc.pooledProjectionDim) +
                                ", the text encoder gives " + std::to_string(width));
        if (fc.inChannels != 4 * m_vae->latentChannels())
            throw PipelineError(folder.dir + ": transformer in_channels " +
                                std::to_string(fc.inChannels) + " != 4 x VAE latent_channels " +
                                std::to_string(m_vae->latentChannels()));
        m_tokenizer = ClipTokenizer::fromFolder(folder.find("tokenizer")->dir);
        m_scheduler = FlowMatchConfig::fromJson(
            readJsonFile(folder.find("scheduler")->dir + "/scheduler_config.json"));
    }

    int sizeMultiple() const override { return m_vae->downFactor() * 2; }

    std::unique_ptr<DenoisingRun> start(const RunConfig& cfg,
                                        const torch::Device& device) override {
        return std::make_unique<FluxRun>(cfg, device, *m_textEncoder, *m_transformer, *m_vae,
                                         *m_tokenizer, m_scheduler);
    }

private:
    TextEncoderComponent* m_textEncoder = nullptr;
    FluxTransformerComponent* m_transformer = nullptr;
    VaeComponent* m_vae = nullptr;
    std::optional<ClipTokenizer> m_tokenizer;
    FlowMatchConfig m_scheduler;
};

}  // namespace

std::unique_ptr<DenoisingStrategy> makeFluxStrategy() {
    return std::make_unique<FluxStrategy>();
}

}  // namespace hs
