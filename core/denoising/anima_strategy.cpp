#include "denoising/anima_strategy.h"

#include <optional>

#include "denoising/anima_text.h"
#include "denoising/flow_match_run.h"
#include "denoising/token_bounds.h"
#include "families/anima/anima_family.h"
#include "families/cosmos/cosmos_family.h"
#include "sampling/comfy_sigmas.h"
#include "sampling/flow_match.h"
#include "text/qwen_tokenizer.h"
#include "text/t5_tokenizer.h"

namespace hs {

namespace {

// The latents are [1, C, h, w]; the model sees [1, C, 1, h, w].
class AnimaRun : public FlowMatchRun {
public:
    AnimaRun(const RunConfig& cfg, const torch::Device& device, const AnimaText& text,
             CosmosTransformerComponent& transformer, VaeComponent& vae, FlowMatchConfig scheduler)
        : FlowMatchRun(cfg, device, cfg.guidance > 1.0, vae, Packing::None),
          m_text(text),
          m_transformer(transformer) {
        // No mu. ComfyUI's Anima: ModelSamplingDiscreteFlow, multiplier 1, shift 3 (or the
        // image's ModelSamplingAuraFlow shift).
        schedule(scheduler, Sigmas::FluxPipeline, std::nullopt,
                 {ComfyModelSampling::discreteFlow(cfg.shift.value_or(3.0), 1.0)});
    }

    torch::Tensor encodePrompt(ProbeContext& probes) override {
        m_cond = animaPromptEmbeds(m_text, m_cfg.prompt, m_device, probes);
        if (m_guided) m_uncond = animaPromptEmbeds(m_text, m_cfg.negativePrompt, m_device, probes);
        return m_cond;
    }

    torch::Tensor velocity(const torch::Tensor& x, double t, ProbeContext& probes) override {
        CosmosInputs in;
        in.hiddenStates = x.unsqueeze(2);  // [1, C, 1, h, w]
        in.timestep = torch::full({1}, t, torch::TensorOptions().device(m_device));  // t / 1000
        in.encoderHiddenStates = m_cond;
        auto v = m_transformer.model->forward(in, probes).to(torch::kFloat32).squeeze(2);
        if (m_guided) {
            in.encoderHiddenStates = m_uncond;
            auto u = m_transformer.model->forward(in, probes).to(torch::kFloat32).squeeze(2);
            v = u + m_cfg.guidance * (v - u);  // diffusers' ClassifierFreeGuidance
        }
        return v;
    }

private:
    AnimaText m_text;
    CosmosTransformerComponent& m_transformer;
    torch::Tensor m_cond, m_uncond;  // text embeds [1, L, D]
};

class AnimaStrategy : public DenoisingStrategy {
public:
    std::vector<ComponentSlot> componentSlots() const override {
        return slotsOf(
            {encoderSlots(1, Role::TextEncoder, true),
             {{"t5_tokenizer", Role::Other, true, false, {}, "T5EncoderModel", "tokenizer_2"},
              {"text_conditioner", Role::Adapter, true, true,
               "Anima's DiT file holds it as net.llm_adapter.*; this one was saved without "
               "it: open the whole anima-*.safetensors, or the diffusers folder"}},
             denoiserSlots("transformer")});
    }

    void attach(const std::map<std::string, std::shared_ptr<Component>>& c,
                const PipelineFolder& folder) override {
        m_text.encoder = textEncoderIn(c, "text_encoder");
        m_text.conditioner = AnimaTextConditionerComponent::in(c, "text_conditioner");
        m_transformer = CosmosTransformerComponent::in(c, "transformer");
        m_vae = videoVaeIn(c, "vae",
                           "the Qwen-Image / Wan VAE (AutoencoderKLQwenImage or "
                           "AutoencoderKLWan) whose latents Anima denoises");
        const auto& ac = m_text.conditioner->model->config();
        const auto& tc = m_transformer->model->config();
        const int64_t qwenWidth = m_text.encoder->width();
        if (ac.sourceDim != qwenWidth)
            throw PipelineError(folder.dir + ": the text conditioner reads Qwen3 states of width " +
                                std::to_string(ac.sourceDim) +
                                " (source_dim), text_encoder gives " + std::to_string(qwenWidth) +
                                " (hidden_size): they are not a pair");
        if (ac.targetDim != tc.textEmbedDim)
            throw PipelineError(folder.dir + ": the transformer takes text features of width " +
                                std::to_string(tc.textEmbedDim) +
                                " (text_embed_dim), the text conditioner " + "gives " +
                                std::to_string(ac.targetDim) + " (target_dim)");
        if (tc.inChannels != m_vae->latentChannels())
            throw PipelineError(folder.dir + ": transformer in_channels " +
                                std::to_string(tc.inChannels) + " != VAE z_dim " +
                                std::to_string(m_vae->latentChannels()));
        attachTokenizers(folder);
        m_scheduler = FlowMatchConfig::fromJson(schedulerConfigOf(*folder.find("scheduler")));
    }

    // The VAE's factor, times the transformer's patch (the pipeline checks vae_scale_factor * 2).
    bool runsComfySamplers() const override { return true; }
    int sizeMultiple() const override {
        return m_vae->downFactor() * int(m_transformer->model->config().patchSize[1]);
    }

    std::unique_ptr<DenoisingRun> start(const RunConfig& cfg,
                                        const torch::Device& device) override {
        return std::make_unique<AnimaRun>(cfg, device, m_text, *m_transformer, *m_vae, m_scheduler);
    }

    // Anima's diffusers scheduler: FlowMatchEulerDiscreteScheduler(shift=3.0).
    nlohmann::json singleFileSchedulerConfig(
        const std::map<std::string, nlohmann::json>&) const override {
        return {{"_class_name", "FlowMatchEulerDiscreteScheduler"},
                {"num_train_timesteps", 1000},
                {"shift", 3.0},
                {"use_dynamic_shifting", false}};
    }

    // The modular pipeline's defaults: 50 steps, guidance 4.0, a negative prompt.
    RunDefaults defaults() const override { return {50, 4.0, true}; }

private:
    void attachTokenizers(const PipelineFolder& folder) {
        const PipelineComponent* qwen = &requiredPart(
            folder, "tokenizer",
            "no Qwen tokenizer (vocab.json + merges.txt, or tokenizer.json) for the Qwen3 text "
            "encoder; give its folder with --tokenizer DIR");
        const PipelineComponent* t5 = &requiredPart(
            folder, "t5_tokenizer",
            "no T5 tokenizer (spiece.model) for the text conditioner's target ids; give its "
            "folder with --tokenizer-2 DIR, or put spiece.model beside the model file");
        m_qwenTokenizer = QwenTokenizer::fromFolder(qwen->dir);
        m_t5Tokenizer = T5Tokenizer::fromFolder(t5->dir);
        const auto& ac = m_text.conditioner->model->config();
        if (m_t5Tokenizer->vocabSize() > size_t(ac.targetVocabSize))
            throw PipelineError(folder.dir + ": the T5 tokenizer (" + t5->dir + ") has " +
                                std::to_string(int64_t(m_t5Tokenizer->vocabSize())) +
                                " ids but the text conditioner embeds only " +
                                std::to_string(ac.targetVocabSize) + " (target_vocab_size)");
        checkTokenizerSize(folder.dir, "Qwen tokenizer", qwen->dir, m_qwenTokenizer->vocabSize(),
                           m_text.encoder->tokenTable().rows, "text_encoder");
        checkQwenTokenizerFits(*m_qwenTokenizer, qwen->dir, m_text.encoder, "text_encoder");
        m_text.tokenizer = &*m_qwenTokenizer;
        m_text.t5Tokenizer = &*m_t5Tokenizer;
    }

    AnimaText m_text;
    CosmosTransformerComponent* m_transformer = nullptr;
    VaeComponent* m_vae = nullptr;
    std::optional<QwenTokenizer> m_qwenTokenizer;
    std::optional<T5Tokenizer> m_t5Tokenizer;
    FlowMatchConfig m_scheduler;
};

}  // namespace

std::unique_ptr<DenoisingStrategy> makeAnimaStrategy() {
    return std::make_unique<AnimaStrategy>();
}

}  // namespace hs
