#include "denoising/sd_text.h"

#include "base/pipeline_error.h"
#include "denoising/clip_tokenizers.h"
#include "denoising/token_bounds.h"

namespace hs {

namespace {

// SDXL's refiner conditions on an aesthetic score instead of the target size
// (requires_aesthetics_score): five time ids; diffusers' defaults 6.0 and, unconditional, 2.5.
constexpr double kAestheticScore = 6.0, kNegativeAestheticScore = 2.5;

}  // namespace

SdText SdText::attach(const SdTextParts& parts, const PipelineFolder& folder,
                      const UNetConfig& unet, bool xl) {
    SdText t;
    t.m_xl = xl;
    if (parts.encoder)
        t.m_encoders.push_back(
            {parts.encoder, clipTokenizerFor(folder, "tokenizer", parts.encoder, "text_encoder")});
    if (xl && parts.encoder2)
        t.m_encoders.push_back(
            {parts.encoder2,
             clipTokenizerFor(folder, "tokenizer_2", parts.encoder2, "text_encoder_2")});
    if (t.m_encoders.empty())
        throw PipelineError(
            folder.dir + ": no text encoder" +
            (xl ? " (SDXL needs text_encoder_2: give it with --text-encoder-2)" : ""));
    int64_t width = 0;
    std::string widths;
    for (const auto& e : t.m_encoders) {
        width += e.model->width();
        widths += (widths.empty() ? "" : " + ") + std::to_string(e.model->width());
    }
    if (width != unet.contextDim())
        throw PipelineError(folder.dir + ": the UNet attends to text features of width " +
                            std::to_string(unet.contextDim()) +
                            " (cross_attention_dim), the text encoders give " + widths);
    if (!xl) return t;
    if (!parts.encoder2)
        throw PipelineError(folder.dir +
                            ": SDXL's pooled text vector comes from text_encoder_2 (OpenCLIP "
                            "ViT-bigG), which is missing: give it with --text-encoder-2 FILE");
    const int64_t projection = parts.encoder2->projectionWidth();
    if (projection <= 0)
        throw PipelineError(folder.dir +
                            ": text_encoder_2 must be a CLIPTextModelWithProjection (SDXL takes "
                            "its projected pooled vector, text_embeds)");
    const int64_t ids =
        unet.additionTimeEmbedDim > 0
            ? (unet.projectionClassEmbeddingsInputDim - projection) / unet.additionTimeEmbedDim
            : 0;
    if ((ids != 6 && ids != 5) ||
        ids * unet.additionTimeEmbedDim + projection != unet.projectionClassEmbeddingsInputDim)
        throw PipelineError(folder.dir + ": the UNet expects an added embedding of " +
                            std::to_string(unet.projectionClassEmbeddingsInputDim) +
                            " (projection_class_embeddings_input_dim), but text_encoder_2's "
                            "projection (" +
                            std::to_string(projection) + ") and 6 time ids of " +
                            std::to_string(unet.additionTimeEmbedDim) +
                            " (addition_time_embed_dim) do not make it");
    t.m_timeIds = int(ids);
    return t;
}

std::pair<torch::Tensor, torch::Tensor> SdText::encodeTexts(const std::vector<std::string>& texts,
                                                            const torch::Device& device,
                                                            ProbeContext& probes) const {
    std::vector<torch::Tensor> sequences;
    torch::Tensor pooled;
    for (const Encoder& e : m_encoders) {
        const int L = e.tokenizer.modelMaxLength();
        std::vector<int64_t> ids;
        for (const std::string& text : texts) {
            auto v = e.tokenizer.encodePadded(text, L);
            ids.insert(ids.end(), v.begin(), v.end());
        }
        checkTokenIds(ids, e.model->tokenTable().rows, "text_encoder");
        auto idT = torch::tensor(ids, torch::kInt64).view({int64_t(texts.size()), L}).to(device);
        TextEncoding out = e.model->encode(idT, probes);
        if (!m_xl) {
            sequences.push_back(out.lastHiddenState);  // [B, 77, D] after final_layer_norm
        } else {
            // hidden_states[-2]: the penultimate layer's output, no final norm.
            sequences.push_back(out.hiddenStates.at(out.hiddenStates.size() - 2));
            pooled = out.projected;  // [B, P] text_embeds of the last encoder
        }
    }
    auto seq = torch::cat(sequences, -1).to(torch::kFloat32);  // [B, 77, sum D]
    return {seq, pooled.defined() ? pooled.to(torch::kFloat32) : pooled};
}

SdConditioning SdText::encode(const RunConfig& cfg, bool guided, const torch::Device& device,
                              ProbeContext& probes) const {
    const bool zeros = guided && m_forceZeros && cfg.negativePrompt.empty();
    std::vector<std::string> texts;
    if (guided && !zeros) texts.push_back(cfg.negativePrompt);
    texts.push_back(cfg.prompt);
    auto [seq, pooled] = encodeTexts(texts, device, probes);
    SdConditioning c;
    c.sequence = seq.slice(0, seq.size(0) - 1);  // [1, L, D]: the prompt
    c.context = zeros ? torch::cat({torch::zeros_like(seq), seq}) : seq;
    if (!m_xl) return c;
    c.textEmbeds = zeros ? torch::cat({torch::zeros_like(pooled), pooled}) : pooled;
    // _get_add_time_ids: original size + crop top-left + target size (or aesthetic score).
    const float h = float(cfg.height), w = float(cfg.width);
    auto ids = [&](bool negative) {
        std::vector<float> v{h, w, 0.f, 0.f};
        if (m_timeIds == 5)
            v.push_back(float(negative ? kNegativeAestheticScore : kAestheticScore));
        else
            v.insert(v.end(), {h, w});
        return torch::tensor(v).view({1, int64_t(v.size())});
    };
    c.timeIds = (guided ? torch::cat({ids(true), ids(false)}) : ids(false)).to(device);
    return c;
}

}  // namespace hs
