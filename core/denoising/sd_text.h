#pragma once
// The text conditioning of StableDiffusionPipeline and StableDiffusionXLPipeline
// (encode_prompt, _get_add_time_ids), for the SD strategy (denoising/sd_strategy.h).
#include <torch/torch.h>

#include <vector>

#include "io/model_folder.h"
#include "models/roles.h"
#include "families/unet/unet_config.h"
#include "records/run_types.h"
#include "text/clip_tokenizer.h"

namespace hs {

struct SdTextParts {
    TextEncoderComponent* encoder = nullptr;   // text_encoder (absent in SDXL's refiner)
    TextEncoderComponent* encoder2 = nullptr;  // text_encoder_2 (SDXL)
};

struct SdConditioning {
    torch::Tensor sequence;    // [1, L, D] the prompt's context, for the run record
    torch::Tensor context;     // [B, L, D] encoder_hidden_states, [uncond, cond] when guided
    torch::Tensor textEmbeds;  // [B, P] SDXL's pooled projection (added text_embeds)
    torch::Tensor timeIds;     // [B, 6] SDXL's add_time_ids
};

class SdText {
public:
    // Reads the tokenizers and checks that the encoders give what `unet` takes: the context
    // width (cross_attention_dim), and for SDXL the pooled projection that, with six time ids of
    // addition_time_embed_dim each, fills projection_class_embeddings_input_dim. Throws
    // PipelineError.
    static SdText attach(const SdTextParts& parts, const PipelineFolder& folder,
                         const UNetConfig& unet, bool xl);

    // SDXL's force_zeros_for_empty_prompt: an empty negative prompt is a zero context and
    // pooled vector instead of the encoding of "".
    void setForceZerosForEmptyPrompt(bool on) { m_forceZeros = on; }

    // The prompt (and with `guided`, the negative prompt) of `cfg`, each padded to its
    // tokenizer's 77 tokens; SDXL time ids from an image of height x width, crop (0, 0).
    SdConditioning encode(const RunConfig& cfg, bool guided, const torch::Device& device,
                          ProbeContext& probes) const;

private:
    struct Encoder {
        TextEncoderComponent* model;
        ClipTokenizer tokenizer;
    };
    // [B, L, D] and, from the last encoder, SDXL's [B, P] pooled projection.
    std::pair<torch::Tensor, torch::Tensor> encodeTexts(const std::vector<std::string>& texts,
                                                        const torch::Device& device,
                                                        ProbeContext& probes) const;

    std::vector<Encoder> m_encoders;
    bool m_xl = false;
    bool m_forceZeros = false;
    int m_timeIds = 6;  // 5 for the refiner's aesthetic-score conditioning
};

}  // namespace hs
