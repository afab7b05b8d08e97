#pragma once
// The two block types of diffusers' FluxTransformer2DModel.
//
// diffusers clips the residual stream to +-65504 when its dtype is float16
// (FluxTransformerBlock: the text stream; FluxSingleTransformerBlock: the joint stream). An fp16
// overflow there turns into 65504 instead of Inf, so a pipeline can go wrong without a single
// Inf anywhere. We mimic the clip for blocks whose format is fp16 (native or emulated), because
// outputs must match what diffusers computes, but the block's Module-level probe point records
// the stream *before* the clip: the overflow that the clip hides is what the studio must show.
#include <torch/torch.h>

#include <string>
#include <utility>

#include "families/flux/flux_attention.h"
#include "families/flux/flux_layers.h"
#include "numerics/probe.h"

namespace hs {

// diffusers FluxTransformerBlock (MMDiT double-stream block). Probe points under `path`:
// Module: `path` (image stream out), `path.context` (text stream out, before the fp16 clip);
// Layer: norm1, norm1_context, attn, attn.to_add_out, ff, ff_context; Op: everything else.
class FluxTransformerBlockImpl : public torch::nn::Module {
public:
    FluxTransformerBlockImpl(int64_t dim, int heads, int headDim, const std::string& path);
    // hidden [B, L_img, D], context [B, L_txt, D], temb [B, D] -> {context, hidden}
    std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& hidden,
                                                    const torch::Tensor& context,
                                                    const torch::Tensor& temb,
                                                    const RopeTables& rope, ProbeContext& probes);

    AdaLayerNormZero norm1{nullptr}, norm1_context{nullptr};
    FluxAttention attn{nullptr};
    FeedForward ff{nullptr}, ff_context{nullptr};

private:
    std::string m_path;
    JointStreamPoints m_img, m_txt;
};
TORCH_MODULE(FluxTransformerBlock);

// diffusers FluxSingleTransformerBlock over the joint [txt | img] stream. Probe points: Module
// `path` (stream out, before the fp16 clip); Layer norm, attn, proj_out; Op the rest. The MLP
// activation (4D wide, 40% of a Layer-level step's statistics work) is Op level: an overflow
// there reaches proj_out, so Layer level still names the block.
class FluxSingleTransformerBlockImpl : public torch::nn::Module {
public:
    FluxSingleTransformerBlockImpl(int64_t dim, int heads, int headDim, const std::string& path);
    // x [B, L, D], temb [B, D] -> [B, L, D]
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& temb, const RopeTables& rope,
                          ProbeContext& probes);

    AdaLayerNormZero norm{nullptr};
    nn::Linear proj_mlp{nullptr}, proj_out{nullptr};
    FluxAttention attn{nullptr};

private:
    ProbePoint m_out, m_projMlp, m_actMlp, m_projOut, m_gated;
};
TORCH_MODULE(FluxSingleTransformerBlock);

}  // namespace hs
