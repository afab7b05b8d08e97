#pragma once
// diffusers JointTransformerBlock (SD3's MMDiT block) with its three variants: the usual block,
// the last one (context_pre_only: norm1_context is AdaLayerNormContinuous, no to_add_out,
// norm2_context or ff_context; it returns no text stream), and SD3.5's dual-attention block
// (norm1 is SD35AdaLayerNormZeroX and a second, image-only attention `attn2` adds its own gated
// residual). diffusers does not clip SD3's streams in fp16.
//
// Probe points under `path`: Module `path` (image stream out) and `path`.context (text stream
// out, not in the last block); Layer norm1, norm1_context, attn, attn.to_add_out, attn2, ff,
// ff_context; residual streams (kResidualStream): those two, attn_residual, attn2_residual,
// context_attn_residual; Op everything else.
#include <torch/torch.h>

#include <string>
#include <utility>

#include "families/sd3/sd3_attention.h"
#include "families/sd3/sd3_layers.h"
#include "numerics/probe.h"

namespace hs {

struct SD3BlockOptions {
    bool contextPreOnly = false;  // the last block
    bool dualAttention = false;   // dual_attention_layers holds it
    bool qkRmsNorm = false;       // qk_norm "rms_norm"
};

class SD3JointBlockImpl : public torch::nn::Module {
public:
    SD3JointBlockImpl(int64_t dim, int heads, int headDim, const SD3BlockOptions& options,
                      const std::string& path);
    // hidden [B, L_img, D], context [B, L_txt, D], temb [B, D] -> {context (undefined when
    // context_pre_only), hidden}
    std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& hidden,
                                                    const torch::Tensor& context,
                                                    const torch::Tensor& temb,
                                                    ProbeContext& probes);

    const SD3BlockOptions& options() const { return m_options; }

    AdaLayerNormZero norm1{nullptr}, norm1_context{nullptr};  // norm1_context unless pre-only
    AdaLayerNormContinuous norm1_context_pre_only{nullptr};   // key norm1_context (pre-only)
    SD3Attention attn{nullptr}, attn2{nullptr};
    FeedForward ff{nullptr}, ff_context{nullptr};

private:
    std::string m_path;
    SD3BlockOptions m_options;
    JointStreamPoints m_img, m_txt;
    ProbePoint m_attn2Gated, m_attn2Residual;
};
TORCH_MODULE(SD3JointBlock);

}  // namespace hs
