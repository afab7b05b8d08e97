#include "denoising/flux_strategy.h"

#include <optional>
#include <tuple>

#include "demo/prompt_words.h"
#include "denoising/clip_tokenizers.h"
#include "denoising/flow_match_run.h"
#include "denoising/token_bounds.h"
#include "families/flux/flux_family.h"
#include "families/flux/flux_latents.h"
#include "models/roles.h"
#include "sampling/comfy_sigmas.h"
#include "sampling/flow_match.h"
#include "text/clip_tokenizer.h"
#include "text/t5_tokenizer.h"

namespace hs {

namespace {

// FLUX.1's second text encoder and its tokenizer.
struct T5Text {
    TextEncoderComponent* encoder = nullptr;
    std::optional<T5Tokenizer> tokenizer;
    int maxSequenceLength = 512;
};

// Packed latents [1, h/2 * w/2, 4C].
class FluxRun : public FlowMatchRun {
public:
    FluxRun(const RunConfig& cfg, const torch::Device& device, TextEncoderComponent& textEncoder,
            FluxTransformerComponent& transformer, VaeComponent& vae,
            const ClipTokenizer& tokenizer, const T5Text& t5, FlowMatchConfig scheduler)
        : FlowMatchRun(cfg, device, !t5.encoder && cfg.guidance > 1.0, vae, Packing::TwoByTwo),
          m_textEncoder(textEncoder),
          m_transformer(transformer),
          m_tokenizer(tokenizer),
          m_t5(t5) {
        schedule(scheduler, Sigmas::FluxPipeline, m_x.size(1), comfyFamily(scheduler));
        m_batch = m_guided ? 2 : 1;
    }

    // ComfyUI's FLUX.1-dev (dynamic shift) is ModelSamplingFlux with mu on the line of its
    // ModelSamplingFlux node at the image's packed tokens, max_shift and base_shift the run's or
    // the scheduler config's (FLUX.1-dev's are the node's 1.15 and 0.5); schnell (no dynamic shift)
    // is ModelSamplingDiscreteFlow with multiplier 1 at the config's shift (1). Its guidance is
    // the distilled embedding (one pass); the one-encoder shape's is classifier-free guidance.
    ComfyFamily comfyFamily(const FlowMatchConfig& scheduler) {
        if (!scheduler.useDynamicShifting)
            return {ComfyModelSampling::discreteFlow(m_cfg.shift.value_or(scheduler.shift), 1.0),
                    !m_t5.encoder};
        if (m_cfg.shift && !m_cfg.comfySampler.empty())
            m_notes.push_back(
                "the shift is not used by ComfyUI's ModelSamplingFlux, which "
                "shifts by the image size");
        const double mu =
            comfyFluxMuAt(double(m_x.size(1)), m_cfg.maxShift.value_or(scheduler.maxShift),
                          m_cfg.baseShift.value_or(scheduler.baseShift));
        return {ComfyModelSampling::flux(mu), !m_t5.encoder};
    }

    torch::Tensor encodePrompt(ProbeContext& probes) override {
        if (m_t5.encoder) return encodeTwo(probes);
        // [cond, uncond] in one batch when guidance is on.
        const int L = m_tokenizer.modelMaxLength();
        std::vector<int64_t> ids;
        for (const auto* text : {&m_cfg.prompt, &m_cfg.negativePrompt}) {
            auto v = m_tokenizer.encodePadded(*text, L);
            ids.insert(ids.end(), v.begin(), v.end());
            if (!m_guided) break;
        }
        checkTokenIds(ids, m_textEncoder.tokenTable().rows, "text_encoder");
        auto idT = torch::tensor(ids, torch::kInt64).view({m_batch, L}).to(m_device);
        TextEncoding text = m_textEncoder.encode(idT, probes);
        m_in.encoderHiddenStates = text.lastHiddenState;
        m_in.pooledProjections = text.pooled;
        setIds(L);
        return text.lastHiddenState;
    }

    // FluxPipeline.encode_prompt: CLIP's pooler_output [1, 768] and T5's last hidden state
    // [1, max_sequence_length, 4096], each prompt padded to its tokenizer's length.
    torch::Tensor encodeTwo(ProbeContext& probes) {
        auto ids = [&](const std::vector<int>& v, TextEncoderComponent& e, const char* slot) {
            checkTokenIds(v, e.tokenTable().rows, slot);
            return torch::tensor(std::vector<int64_t>(v.begin(), v.end()), torch::kInt64)
                .view({1, int64_t(v.size())})
                .to(m_device);
        };
        const int L = m_t5.maxSequenceLength;
        m_in.pooledProjections =
            m_textEncoder
                .encode(ids(m_tokenizer.encodePadded(m_cfg.prompt, m_tokenizer.modelMaxLength()),
                            m_textEncoder, "text_encoder"),
                        probes)
                .pooled;
        TextEncoding t5 = m_t5.encoder->encode(
            ids(m_t5.tokenizer->encodePadded(m_cfg.prompt, L), *m_t5.encoder, "text_encoder_2"),
            probes);
        m_in.encoderHiddenStates = t5.lastHiddenState;
        setIds(L);
        return t5.lastHiddenState;
    }

    void setIds(int textLength) {
        m_in.imgIds = prepareLatentImageIds(m_h / 2, m_w / 2, m_device);
        m_in.txtIds = prepareTextIds(textLength, m_device);  // zeros [L, 3]
        if (m_transformer.model->config().guidanceEmbeds)
            m_in.guidance =
                torch::full({m_batch}, m_cfg.guidance, torch::TensorOptions().device(m_device));
    }

    torch::Tensor velocity(const torch::Tensor& x, double t, ProbeContext& probes) override {
        m_in.hiddenStates = m_batch == 2 ? torch::cat({x, x}) : x;
        m_in.timestep = torch::full({m_batch}, t, torch::TensorOptions().device(m_device));
        auto v = m_transformer.model->forward(m_in, probes).to(torch::kFloat32);
        if (m_batch == 2) {
            auto parts = v.chunk(2);
            v = parts[1] + m_cfg.guidance * (parts[0] - parts[1]);  // uncond + g (cond - uncond)
        }
        return v;
    }

    void addNote(const std::string& note) { m_notes.push_back(note); }

private:
    TextEncoderComponent& m_textEncoder;
    FluxTransformerComponent& m_transformer;
    const ClipTokenizer& m_tokenizer;
    const T5Text& m_t5;
    int64_t m_batch = 1;  // [cond, uncond] when guided
    FluxInputs m_in;
};

std::string dims(int64_t n) {
    return std::to_string(n);
}

class FluxStrategy : public DenoisingStrategy {
public:
    std::vector<ComponentSlot> componentSlots() const override {
        return slotsOf({encoderSlots(1, Role::TextEncoder, true),
                        encoderSlots(2, Role::TextEncoder2, false), denoiserSlots("transformer")});
    }

    void attach(const std::map<std::string, std::shared_ptr<Component>>& c,
                const PipelineFolder& folder) override {
        m_textEncoder = textEncoderIn(c, "text_encoder");
        m_transformer = FluxTransformerComponent::in(c, "transformer");
        m_vae = vaeIn(c, "vae");
        const auto& fc = m_transformer->model->config();
        m_t5 = T5Text();
        if (c.count("text_encoder_2")) {
            m_t5.encoder = textEncoderIn(c, "text_encoder_2");
            attachT5(folder);
        }
        // One encoder gives both the sequence and the pooled vector; FLUX.1's CLIP gives the
        // pooled vector, its T5 the sequence.
        const int64_t sequenceWidth = m_t5.encoder ? m_t5.encoder->width() : m_textEncoder->width();
        const std::string sequenceSlot = m_t5.encoder ? "text_encoder_2" : "text_encoder";
        if (fc.jointAttentionDim != sequenceWidth)
            throw PipelineError(folder.dir + ": the transformer takes text features of width " +
                                dims(fc.jointAttentionDim) + " (joint_attention_dim), " +
                                sequenceSlot + " gives " + dims(sequenceWidth));
        if (fc.pooledProjectionDim != m_textEncoder->width())
            throw PipelineError(folder.dir + ": the transformer takes a pooled text vector of " +
                                dims(fc.pooledProjectionDim) +
                                " (pooled_projection_dim), text_encoder gives " +
                                dims(m_textEncoder->width()));
        if (fc.inChannels != 4 * m_vae->latentChannels())
            throw PipelineError(folder.dir + ": transformer in_channels " + dims(fc.inChannels) +
                                " != 4 x VAE latent_channels " + dims(m_vae->latentChannels()));
        m_tokenizer = clipTokenizerFor(folder, "tokenizer", m_textEncoder, "text_encoder");
        m_demo = folder.className == demo::kDemoPipelineClass;
        m_scheduler = FlowMatchConfig::fromJson(schedulerConfigOf(*folder.find("scheduler")));
    }

    int sizeMultiple() const override { return m_vae->downFactor() * 2; }
    bool runsComfySamplers() const override { return true; }

    void validate(const RunConfig& cfg) const override {
        if (m_t5.encoder && !cfg.negativePrompt.empty())
            throw PipelineError(
                "FLUX.1 runs without classifier-free guidance (its guidance is distilled into "
                "the model), so a negative prompt would be ignored; leave it empty");
    }

    std::unique_ptr<DenoisingRun> start(const RunConfig& cfg,
                                        const torch::Device& device) override {
        auto run = std::make_unique<FluxRun>(cfg, device, *m_textEncoder, *m_transformer, *m_vae,
                                             *m_tokenizer, m_t5, m_scheduler);
        if (m_demo) {
            const auto words =
                demo::wordsNotUnderstood(*m_tokenizer, cfg.prompt + "\n" + cfg.negativePrompt);
            if (!words.empty()) run->addNote(demo::notUnderstoodNote(words));
        }
        return run;
    }

    // diffusers' FLUX.1 scheduler configs: dev shifts dynamically (mu from the image size),
    // schnell (no guidance embedding) not at all.
    nlohmann::json singleFileSchedulerConfig(
        const std::map<std::string, nlohmann::json>& configs) const override {
        const auto t = configs.find("transformer");
        const bool dev = t != configs.end() && t->second.value("guidance_embeds", false);
        return {{"_class_name", "FlowMatchEulerDiscreteScheduler"},
                {"base_image_seq_len", 256},
                {"base_shift", 0.5},
                {"max_image_seq_len", 4096},
                {"max_shift", 1.15},
                {"num_train_timesteps", 1000},
                {"shift", dev ? 3.0 : 1.0},
                {"use_dynamic_shifting", dev}};
    }

    // FLUX.1-dev: 28 steps, guidance 3.5; schnell: 4 steps, guidance unused (0, as its model
    // card runs it); the single-encoder shape keeps the demo's defaults.
    RunDefaults defaults() const override {
        if (m_demo) {
            // The size it was trained at (its VAE's sample_size) and the words its tokenizer has.
            RunDefaults d;
            std::tie(d.height, d.width) = m_vae->sampleSize();
            d.vocabulary = demo::understoodWords(*m_tokenizer);
            return d;
        }
        if (!m_t5.encoder) return {};
        if (m_transformer->model->config().guidanceEmbeds) return {28, 3.5, false};
        return {4, 0.0, false};
    }

private:
    void attachT5(const PipelineFolder& folder) {
        const PipelineComponent* tok = &requiredPart(
            folder, "tokenizer_2",
            "no T5 tokenizer: FLUX.1's text_encoder_2 needs tokenizer_2/spiece.model (the "
            "tokenizer_2 folder of a FLUX.1 diffusers repository); give its folder with "
            "--tokenizer-2 DIR, or put spiece.model beside the T5 file");
        m_t5.tokenizer = T5Tokenizer::fromFolder(tok->dir);
        checkTokenizerSize(folder.dir, "T5 tokenizer", tok->dir, m_t5.tokenizer->vocabSize(),
                           m_t5.encoder->tokenTable().rows, "text_encoder_2");
        // diffusers' FluxPipeline default is 512; schnell's model card runs 256.
        m_t5.maxSequenceLength = m_transformer->model->config().guidanceEmbeds ? 512 : 256;
    }

    TextEncoderComponent* m_textEncoder = nullptr;
    FluxTransformerComponent* m_transformer = nullptr;
    VaeComponent* m_vae = nullptr;
    std::optional<ClipTokenizer> m_tokenizer;
    T5Text m_t5;
    FlowMatchConfig m_scheduler;
    bool m_demo = false;  // the embedded demo model: its prompts' unknown words are named
};

}  // namespace

std::unique_ptr<DenoisingStrategy> makeFluxStrategy() {
    return std::make_unique<FluxStrategy>();
}

std::string fluxPartMisfit(const PartCheck& p) {
    if (p.slot == "vae") {
        const bool sdVae = configInt(p.partConfig, "latent_channels") == 4;
        return vaeLatentMisfit(p, "FLUX.1", 4, -1,
                               sdVae ? "it looks like an SD 1.x/SDXL VAE, FLUX.1 needs its "
                                       "16-channel ae.safetensors"
                                     : "");
    }
    // CLIP gives the pooled vector, T5 the token sequence (attach()).
    if (p.slot != "text_encoder" && p.slot != "text_encoder_2") return {};
    const char* widthKey =
        p.slot == "text_encoder" ? "pooled_projection_dim" : "joint_attention_dim";
    const int64_t want = configInt(p.denoiserConfig, widthKey);
    int64_t width = configInt(p.partConfig, "hidden_size");
    if (width <= 0) width = configInt(p.partConfig, "d_model");
    if (want <= 0 || width <= 0 || want == width) return {};
    return p.partName + " gives text features of width " + std::to_string(width) + ", " +
           p.modelName + " takes " + std::to_string(want) + " (" + widthKey + "): pick the " +
           (p.slot == "text_encoder" ? "CLIP-L (clip_l.safetensors)"
                                     : "T5-XXL (t5xxl_*.safetensors)") +
           " made for it";
}

std::string fluxVariantName(const nlohmann::json& transformerConfig) {
    return transformerConfig.value("guidance_embeds", false)
               ? "FLUX.1-dev style (guidance embedding)"
               : "FLUX.1-schnell style (no guidance)";
}

}  // namespace hs
