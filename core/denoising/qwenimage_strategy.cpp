#include "denoising/qwenimage_strategy.h"

#include <optional>

#include "denoising/flow_match_run.h"
#include "denoising/qwenimage_text.h"
#include "denoising/token_bounds.h"
#include "families/qwenimage/qwenimage_family.h"
#include "sampling/comfy_sigmas.h"
#include "sampling/flow_match.h"
#include "text/qwen_tokenizer.h"

namespace hs {

namespace {

// randn [1, 1, C, h, w] (the same numbers as [1, C, h, w]), then _pack_latents:
// [1, (h/2)(w/2), 4C].
class QwenImageRun : public FlowMatchRun {
public:
    QwenImageRun(const RunConfig& cfg, const torch::Device& device, const QwenImageText& text,
                 QwenImageTransformerComponent& transformer, VaeComponent& vae,
                 FlowMatchConfig scheduler)
        // do_true_cfg = true_cfg_scale > 1 and has_neg_prompt
        : FlowMatchRun(cfg, device, cfg.guidance > 1.0 && !cfg.negativePrompt.empty(), vae,
                       Packing::TwoByTwo),
          m_text(text),
          m_transformer(transformer) {
        // mu from the packed token count, with the scheduler config's bounds. ComfyUI's
        // Qwen-Image: ModelSamplingAuraFlow's discrete flow, multiplier 1, shift 1.15 (or the
        // image's ModelSamplingAuraFlow shift), with plain CFG.
        schedule(scheduler, Sigmas::FluxPipeline, m_x.size(1),
                 {ComfyModelSampling::discreteFlow(cfg.shift.value_or(1.15), 1.0)});
        makeNotes();
    }

    torch::Tensor encodePrompt(ProbeContext& probes) override {
        m_cond = qwenImagePromptEmbeds(m_text, m_cfg.prompt, m_device, probes);
        if (m_guided)
            m_uncond = qwenImagePromptEmbeds(m_text, m_cfg.negativePrompt, m_device, probes);
        return m_cond.embeds;
    }

    torch::Tensor velocity(const torch::Tensor& x, double t, ProbeContext& probes) override {
        auto v = predict(m_cond, x, t, probes);  // [1, L_img, 4C]
        if (!m_guided) return v;
        auto neg = predict(m_uncond, x, t, probes);
        auto comb = neg + m_cfg.guidance * (v - neg);
        if (comfySampling()) return comb;  // ComfyUI's CFG has no rescale
        // Rescale each token's guided prediction to the conditional one's norm.
        auto condNorm = torch::norm(v, 2, {-1}, true);     // [1, L_img, 1]
        auto combNorm = torch::norm(comb, 2, {-1}, true);  // [1, L_img, 1]
        return comb * (condNorm / combNorm);               // [1, L_img, 4C]
    }

private:
    // One transformer call: packed latents, the text and its mask, t / 1000, img_shapes
    // [(1, h/2, w/2)]; guidance None (Qwen-Image has no guidance embedding).
    torch::Tensor predict(const QwenImagePromptEmbeds& text, const torch::Tensor& x, double t,
                          ProbeContext& probes) {
        QwenImageInputs in;
        in.hiddenStates = x;                                     // [1, L_img, 4C]
        in.encoderHiddenStates = text.embeds;                    // [1, L_txt, D]
        if (text.mask.defined()) in.textMask = text.mask.ne(0);  // [1, L_txt] bool
        in.timestep = torch::full({1}, t, torch::TensorOptions().device(m_device));  // t / 1000
        in.shape = QwenImageShape{1, m_h / 2, m_w / 2};
        return m_transformer.model->forward(in, probes).to(torch::kFloat32);  // [1, L_img, 4C]
    }

    // What diffusers warns about, said in the record.
    void makeNotes() {
        const int L = m_text.maxSequenceLength;
        auto cut = [&](const std::string& which, const std::string& text) {
            const int64_t n = qwenImagePromptTokens(m_text, text);
            if (n > L)
                m_notes.push_back(
                    "the " + which + " has " + std::to_string(n) + " tokens after the template's " +
                    std::to_string(kQwenImageTemplateDrop) + ", more than max_sequence_length " +
                    std::to_string(L) + ": cut to the first " + std::to_string(L) +
                    ", as diffusers does");
        };
        cut("prompt", m_cfg.prompt);
        if (m_guided) cut("negative prompt", m_cfg.negativePrompt);
        if (comfySampling()) return;  // ComfyUI's CFG runs at any cfg but 1, prompt or none
        if (m_cfg.guidance > 1.0 && m_cfg.negativePrompt.empty())
            m_notes.push_back(
                "true_cfg_scale " + std::to_string(m_cfg.guidance) +
                " without a negative prompt: no classifier-free guidance, as QwenImagePipeline "
                "runs it (give a negative prompt, even \" \", to turn it on)");
        else if (m_cfg.guidance <= 1.0 && !m_cfg.negativePrompt.empty())
            m_notes.push_back(
                "the negative prompt is not used: classifier-free guidance needs "
                "true_cfg_scale > 1");
    }

    QwenImageText m_text;
    QwenImageTransformerComponent& m_transformer;
    QwenImagePromptEmbeds m_cond, m_uncond;
};

class QwenImageStrategy : public DenoisingStrategy {
public:
    std::vector<ComponentSlot> componentSlots() const override {
        return slotsOf({encoderSlots(1, Role::TextEncoder, true), denoiserSlots("transformer")});
    }

    void attach(const std::map<std::string, std::shared_ptr<Component>>& c,
                const PipelineFolder& folder) override {
        m_text.encoder = textEncoderIn(c, "text_encoder");
        m_transformer = QwenImageTransformerComponent::in(c, "transformer");
        m_vae = videoVaeIn(c, "vae",
                           "the Qwen-Image VAE (AutoencoderKLQwenImage, or the Wan 2.1 one it "
                           "equals, AutoencoderKLWan)");
        const auto& tc = m_transformer->model->config();
        const int64_t textWidth = m_text.encoder->width();
        if (tc.jointAttentionDim != textWidth)
            throw PipelineError(folder.dir + ": the transformer takes text features of width " +
                                std::to_string(tc.jointAttentionDim) + " (joint_attention_dim), " +
                                "text_encoder gives " + std::to_string(textWidth) +
                                " (hidden_size): they are not a pair");
        if (tc.patchSize != 2)
            throw PipelineError(folder.dir + ": transformer patch_size " +
                                std::to_string(tc.patchSize) +
                                ": QwenImagePipeline packs the latents in 2 x 2 patches");
        const int64_t z = m_vae->latentChannels();
        if (tc.inChannels != 4 * z)
            throw PipelineError(folder.dir + ": transformer in_channels " +
                                std::to_string(tc.inChannels) + " != 4 x VAE z_dim " +
                                std::to_string(z) + " (the latents are packed in 2 x 2 patches)");
        if (tc.outDim() != tc.inChannels)
            throw PipelineError(folder.dir + ": transformer out_channels " +
                                std::to_string(tc.outChannels) + " x 4 != in_channels " +
                                std::to_string(tc.inChannels) +
                                ": its prediction does not have the latents' shape");
        attachTokenizer(folder);
        m_scheduler = FlowMatchConfig::fromJson(schedulerConfigOf(*folder.find("scheduler")));
    }

    // vae_scale_factor * 2: the latents are packed in 2 x 2 patches.
    int sizeMultiple() const override { return m_vae->downFactor() * 2; }
    bool runsComfySamplers() const override { return true; }

    // shift_terminal stretches the schedule so that its last sigma is the terminal one: a
    // one-step schedule has nothing to stretch (diffusers divides 0 by 0 there and samples NaN).
    void validate(const RunConfig& cfg) const override {
        if (m_scheduler.shiftTerminal && *m_scheduler.shiftTerminal != 0.0 && cfg.steps < 2)
            throw PipelineError("the scheduler stretches its sigmas to end at shift_terminal " +
                                std::to_string(*m_scheduler.shiftTerminal) +
                                ", which needs at least 2 steps (diffusers gives NaN sigmas for "
                                "one); run 2 or more");
    }

    std::unique_ptr<DenoisingRun> start(const RunConfig& cfg,
                                        const torch::Device& device) override {
        return std::make_unique<QwenImageRun>(cfg, device, m_text, *m_transformer, *m_vae,
                                              m_scheduler);
    }

    nlohmann::json singleFileSchedulerConfig(
        const std::map<std::string, nlohmann::json>&) const override {
        return qwenImageSchedulerConfig();
    }

    // QwenImagePipeline.__call__: 50 steps, true_cfg_scale 4.0, a negative prompt.
    RunDefaults defaults() const override { return {50, 4.0, true}; }

private:
    void attachTokenizer(const PipelineFolder& folder) {
        const PipelineComponent* tok = &requiredPart(
            folder, "tokenizer",
            "no Qwen tokenizer (vocab.json + merges.txt, or tokenizer.json) for the Qwen2.5-VL "
            "text encoder; give its folder with --tokenizer DIR");
        m_tokenizer = QwenTokenizer::fromFolder(tok->dir);
        checkTokenizerSize(folder.dir, "Qwen tokenizer", tok->dir, m_tokenizer->vocabSize(),
                           m_text.encoder->tokenTable().rows, "text_encoder");
        checkQwenTokenizerFits(*m_tokenizer, tok->dir, m_text.encoder, "text_encoder");
        for (const char* special : {"<|im_start|>", "<|im_end|>"})
            if (!m_tokenizer->idOf(special))
                throw PipelineError(folder.dir + ": the Qwen tokenizer (" + tok->dir + ") has no " +
                                    special +
                                    " token, which Qwen-Image's prompt template is made of");
        m_text.tokenizer = &*m_tokenizer;
    }

    QwenImageText m_text;
    QwenImageTransformerComponent* m_transformer = nullptr;
    VaeComponent* m_vae = nullptr;
    std::optional<QwenTokenizer> m_tokenizer;
    FlowMatchConfig m_scheduler;
};

}  // namespace

// Qwen/Qwen-Image's scheduler/scheduler_config.json on the Hugging Face Hub, as training tools
// copy it (ostris/ai-toolkit's Qwen-Image model, SimpleTuner's): dynamic shifting between
// base_shift 0.5 at 256 tokens and max_shift 0.9 at 8192, exponential time shift, stretched so the
// last sigma is 0.02. (diffusers' docs quote Qwen-Image-Lightning's variant, base_shift = max_shift
// = ln 3 and no shift_terminal, in docs/source/en/api/pipelines/qwenimage.md; that one belongs with
// its distilled LoRA.)
nlohmann::json qwenImageSchedulerConfig() {
    return {{"_class_name", "FlowMatchEulerDiscreteScheduler"},
            {"base_image_seq_len", 256},
            {"base_shift", 0.5},
            {"invert_sigmas", false},
            {"max_image_seq_len", 8192},
            {"max_shift", 0.9},
            {"num_train_timesteps", 1000},
            {"shift", 1.0},
            {"shift_terminal", 0.02},
            {"stochastic_sampling", false},
            {"time_shift_type", "exponential"},
            {"use_beta_sigmas", false},
            {"use_dynamic_shifting", true},
            {"use_exponential_sigmas", false},
            {"use_karras_sigmas", false}};
}

std::unique_ptr<DenoisingStrategy> makeQwenImageStrategy() {
    return std::make_unique<QwenImageStrategy>();
}

}  // namespace hs
