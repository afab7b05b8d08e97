#pragma once
// diffusers QwenImageTransformerBlock (without zero_cond_t): per stream s in {img, txt},
//   shift1, scale1, gate1, shift2, scale2, gate2 = s_mod(temb)     SiLU + Linear(dim, 6 dim)
//   a_img, a_txt = attn(norm1(img) * (1 + scale1) + shift1, ... txt)   joint attention
//   s = s + gate1 * a_s
//   s = s + gate2 * s_mlp(norm2(s) * (1 + scale2) + shift2)          tanh-GELU feed-forward
// then, when the stream is float16, s.clip(-65504, 65504) (diffusers PR #12055).
//
// The clip turns an fp16 overflow of the residual stream into 65504 instead of Inf, so a run can
// go wrong without a single Inf in its output. Blocks in fp16 (native or emulated) clip as
// diffusers does, because outputs must match it, but the block's Module-level points record
// both streams *before* the clip: the overflow the clip hides is what the studio must show.
#include <torch/torch.h>

#include <string>
#include <utility>

#include "models/common/dit_layers.h"
#include "families/qwenimage/qwenimage_attention.h"
#include "numerics/probe.h"

namespace hs {

// Probe points under `path`: Module `path` (image stream out) and `path`.context (text stream
// out), both before the fp16 clip; Layer img_modulated, txt_modulated, attn, attn.to_add_out,
// attn_residual, context_attn_residual, img_mlp, txt_mlp; Op the rest (img_mod.1, txt_mod.1,
// img_norm1, ..., the gated updates).
class QwenImageTransformerBlockImpl : public torch::nn::Module {
public:
    QwenImageTransformerBlockImpl(int64_t dim, int heads, int headDim, const std::string& path);
    // img [B, L_img, D], txt [B, L_txt, D], temb [B, D], textMask [B, L_txt] bool or undefined
    // -> {txt, img} (diffusers' order)
    std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& img,
                                                    const torch::Tensor& txt,
                                                    const torch::Tensor& textMask,
                                                    const torch::Tensor& temb,
                                                    const RopeTables& rope, ProbeContext& probes);

    torch::nn::ModuleList img_mod{nullptr}, txt_mod{nullptr};  // .0 SiLU, .1 Linear(D, 6D)
    nn::Linear imgModLinear{nullptr}, txtModLinear{nullptr};
    QwenImageAttention attn{nullptr};
    FeedForward img_mlp{nullptr}, txt_mlp{nullptr};

private:
    // One stream's probe points, by the reference's variable names.
    struct StreamPoints {
        ProbePoint silu, mod, norm1, attnGated, attnResidual, norm2, mlpGated, out;
        ModulatePoints modulated1, modulated2;
    };
    // silu + Linear -> the six [B, D] chunks
    std::vector<torch::Tensor> modulation(nn::Linear& linear, const torch::Tensor& temb,
                                          const StreamPoints& p, ProbeContext& probes);
    // After attention: gate1, residual, norm2, modulation, MLP, gate2, residual.
    torch::Tensor tail(torch::Tensor x, const torch::Tensor& attnOut,
                       const std::vector<torch::Tensor>& mod, FeedForward& mlp,
                       const StreamPoints& p, ProbeContext& probes);

    std::string m_path;
    StreamPoints m_img, m_txt;
};
TORCH_MODULE(QwenImageTransformerBlock);

}  // namespace hs
