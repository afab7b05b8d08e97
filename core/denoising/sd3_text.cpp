#include "denoising/sd3_text.h"

#include "base/pipeline_error.h"
#include "denoising/clip_tokenizers.h"
#include "denoising/strategy.h"
#include "denoising/token_bounds.h"

namespace hs {

namespace {

// [B, L] int64 ids of `texts`, each padded or cut to `length` by `encode`, checked against the
// encoder's table.
template <typename Encode>
torch::Tensor idsOf(const std::vector<std::string>& texts, int length, const Encode& encode,
                    TextEncoderComponent& encoder, const char* slot, const torch::Device& device) {
    std::vector<int64_t> ids;
    for (const std::string& text : texts) {
        const auto v = encode(text);
        ids.insert(ids.end(), v.begin(), v.end());
    }
    checkTokenIds(ids, encoder.tokenTable().rows, slot);
    return torch::tensor(ids, torch::kInt64).view({int64_t(texts.size()), length}).to(device);
}

std::string n(int64_t v) {
    return std::to_string(v);
}

}  // namespace

Sd3Text Sd3Text::attach(const ComponentMap& components, const PipelineFolder& folder,
                        int64_t jointAttentionDim, int64_t pooledProjectionDim) {
    Sd3Text t;
    t.m_joint = jointAttentionDim;
    int64_t clipWidth = 0, pooledWidth = 0;
    for (const auto& [slot, tokenizerSlot] :
         {std::pair<const char*, const char*>{"text_encoder", "tokenizer"},
          {"text_encoder_2", "tokenizer_2"}}) {
        TextEncoderComponent* e = textEncoderIn(components, slot);
        if (!e)
            throw PipelineError(folder.dir + ": SD3 needs " + slot + " (a CLIP with projection)");
        if (e->projectionWidth() <= 0)
            throw PipelineError(folder.dir + ": " + slot +
                                " must be a CLIPTextModelWithProjection (SD3 takes its projected "
                                "pooled vector, text_embeds)");
        t.m_clips.push_back({e, clipTokenizerFor(folder, tokenizerSlot, e, slot), slot});
        clipWidth += e->width();
        pooledWidth += e->projectionWidth();
    }
    // CLIP-L's pooled vector comes first, OpenCLIP bigG's (1280 to its 768) second: swapped
    // files fill the widths as well, and would give another image.
    if (t.m_clips[0].model->projectionWidth() > t.m_clips[1].model->projectionWidth())
        throw PipelineError(folder.dir + ": text_encoder gives a pooled vector of " +
                            n(t.m_clips[0].model->projectionWidth()) + ", text_encoder_2 of " +
                            n(t.m_clips[1].model->projectionWidth()) +
                            ": SD3 takes the narrower CLIP (CLIP-L, clip_l.safetensors) first and "
                            "the wider (OpenCLIP bigG, clip_g.safetensors) second");
    t.m_t5 = textEncoderIn(components, "text_encoder_3");
    if (t.m_t5) {
        const PipelineComponent* tok =
            &requiredPart(folder, "tokenizer_3",
                          "no T5 tokenizer for text_encoder_3: give its folder with --tokenizer-3 "
                          "DIR (spiece.model), or put spiece.model beside the T5 file");
        t.m_t5Tokenizer = T5Tokenizer::fromFolder(tok->dir);
        checkTokenizerSize(folder.dir, "T5 tokenizer", tok->dir, t.m_t5Tokenizer->vocabSize(),
                           t.m_t5->tokenTable().rows, "text_encoder_3");
        if (t.m_t5->width() != jointAttentionDim)
            throw PipelineError(folder.dir + ": the transformer takes text features of width " +
                                n(jointAttentionDim) +
                                " (joint_attention_dim), text_encoder_3 "
                                "gives " +
                                n(t.m_t5->width()));
    }
    if (clipWidth > jointAttentionDim)
        throw PipelineError(folder.dir + ": the CLIP encoders give " + n(clipWidth) +
                            " features together, more than the transformer's " +
                            n(jointAttentionDim) + " (joint_attention_dim)");
    if (pooledWidth != pooledProjectionDim)
        throw PipelineError(folder.dir + ": the transformer takes a pooled text vector of " +
                            n(pooledProjectionDim) +
                            " (pooled_projection_dim), the CLIP "
                            "encoders' projections give " +
                            n(pooledWidth));
    return t;
}

Sd3Embeds Sd3Text::encode(const std::vector<std::string>& texts, const torch::Device& device,
                          ProbeContext& probes) const {
    std::vector<torch::Tensor> sequences, pooled;
    for (const Clip& c : m_clips) {
        const int L = c.tokenizer.modelMaxLength();
        auto ids = idsOf(
            texts, L, [&](const std::string& s) { return c.tokenizer.encodePadded(s, L); },
            *c.model, c.slot, device);
        TextEncoding out = c.model->encode(ids, probes);
        // hidden_states[-(clip_skip + 2)], clip_skip None: the penultimate layer, no final norm.
        sequences.push_back(out.hiddenStates.at(out.hiddenStates.size() - 2).to(torch::kFloat32));
        pooled.push_back(out.projected.to(torch::kFloat32));  // [B, P] text_embeds
    }
    auto clip = torch::cat(sequences, -1);  // [B, 77, D_l + D_g]
    torch::Tensor t5;
    if (m_t5) {
        auto ids = idsOf(
            texts, t5Length,
            [&](const std::string& s) { return m_t5Tokenizer->encodePadded(s, t5Length); }, *m_t5,
            "text_encoder_3", device);
        t5 = m_t5->encode(ids, probes).lastHiddenState.to(torch::kFloat32);  // [B, 256, D_joint]
    } else {
        // No T5: zeros of the CLIP tokenizer's length, as the pipeline makes them.
        t5 = torch::zeros({clip.size(0), clip.size(1), m_joint},
                          torch::TensorOptions().device(device).dtype(torch::kFloat32));
    }
    clip = torch::constant_pad_nd(clip, {0, t5.size(-1) - clip.size(-1)});  // [B, 77, D_joint]
    return {torch::cat({clip, t5}, -2), torch::cat(pooled, -1)};
}

}  // namespace hs
