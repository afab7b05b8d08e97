#pragma once
// StableDiffusion3Pipeline.encode_prompt (_get_clip_prompt_embeds, _get_t5_prompt_embeds) for
// the SD3 strategy (denoising/sd3_strategy.h).
#include <torch/torch.h>

#include <optional>
#include <string>
#include <vector>

#include "io/model_folder.h"
#include "models/roles.h"
#include "text/clip_tokenizer.h"
#include "text/t5_tokenizer.h"

namespace hs {

struct Sd3Embeds {
    torch::Tensor sequence;  // [B, 77 + L_t5, D_joint] prompt_embeds
    torch::Tensor pooled;    // [B, P_l + P_g] pooled_prompt_embeds
};

class Sd3Text {
public:
    // The two CLIPs (text_encoder, text_encoder_2) and the optional T5 (text_encoder_3) with
    // their tokenizers, checked against the transformer's joint_attention_dim and
    // pooled_projection_dim. Throws PipelineError naming the widths.
    static Sd3Text attach(const ComponentMap& components, const PipelineFolder& folder,
                          int64_t jointAttentionDim, int64_t pooledProjectionDim);

    // `texts` (one batch row each) on `device`, float32.
    Sd3Embeds encode(const std::vector<std::string>& texts, const torch::Device& device,
                     ProbeContext& probes) const;

    int t5Length = 256;  // the pipeline's max_sequence_length

private:
    struct Clip {
        TextEncoderComponent* model;
        ClipTokenizer tokenizer;
        const char* slot;
    };
    std::vector<Clip> m_clips;
    TextEncoderComponent* m_t5 = nullptr;
    std::optional<T5Tokenizer> m_t5Tokenizer;
    int64_t m_joint = 0;
};

}  // namespace hs
