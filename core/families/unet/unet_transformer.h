#pragma once
// The attention part of diffusers UNet2DConditionModel's cross-attention blocks:
// Transformer2DModel with continuous input (models/transformers/transformer_2d.py),
// BasicTransformerBlock with norm_type "layer_norm" (models/attention.py) and the GEGLU
// FeedForward (models/attention.py, models/activations.py). Parameter names follow the
// checkpoints: norm, proj_in, transformer_blocks.k.{norm1, attn1, norm2, attn2, norm3,
// ff.net.0.proj, ff.net.2}, proj_out.
//
// Probe points: the Transformer2DModel ("unet.down_blocks.1.attentions.0") and each
// transformer_blocks.k are Layer points; the ops inside are Op points (norm, proj_in, norm1,
// attn1.*, attn1_residual, norm2, attn2.*, attn2_residual, norm3, ff.net.0.proj, ff.net.0.gelu,
// ff.net.0, ff.net.2, proj_out).
#include <torch/torch.h>

#include <string>
#include <vector>

#include "models/common/layers.h"
#include "families/unet/unet_attention.h"
#include "numerics/probe.h"

namespace hs {

// diffusers GEGLU: proj = Linear(dim, 2 inner); hidden, gate = proj(x).chunk(2); hidden *
// gelu(gate)
class UNetGegluImpl : public torch::nn::Module {
public:
    UNetGegluImpl(int64_t dim, int64_t inner);
    nn::Linear proj{nullptr};
};
TORCH_MODULE(UNetGeglu);

// diffusers FeedForward(dim, activation_fn="geglu", mult=4): net.0 GEGLU, net.1 dropout, net.2
// Linear(4 dim, dim). x [B, L, dim] -> [B, L, dim]
class UNetFeedForwardImpl : public torch::nn::Module {
public:
    UNetFeedForwardImpl(int64_t dim, const std::string& path);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);

private:
    torch::nn::ModuleList m_net;
    UNetGeglu m_geglu{nullptr};
    nn::Linear m_out{nullptr};
    ProbePoint m_nProj, m_nGelu, m_nGated, m_nOut;
};
TORCH_MODULE(UNetFeedForward);

// diffusers BasicTransformerBlock(dim, heads, head_dim, cross_attention_dim, "geglu",
// attention_bias=False, upcast_attention, norm_type="layer_norm", norm_eps=1e-5):
//   x = attn1(norm1(x)) + x;  x = attn2(norm2(x), context) + x;  x = ff(norm3(x)) + x
class UNetTransformerBlockImpl : public torch::nn::Module {
public:
    UNetTransformerBlockImpl(int dim, int heads, int headDim, int crossDim, bool upcast,
                             const std::string& path);
    // x [B, L, dim], context [B, Lk, crossDim] -> [B, L, dim]
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& context,
                          ProbeContext& probes);

private:
    nn::LayerNorm m_norm1{nullptr}, m_norm2{nullptr}, m_norm3{nullptr};
    UNetAttention m_attn1{nullptr}, m_attn2{nullptr};
    UNetFeedForward m_ff{nullptr};
    ProbePoint m_name, m_nNorm1, m_nRes1, m_nNorm2, m_nRes2, m_nNorm3;
};
TORCH_MODULE(UNetTransformerBlock);

// diffusers Transformer2DModel(heads, head_dim, in_channels, num_layers, cross_attention_dim,
// norm_num_groups, use_linear_projection, upcast_attention) on an image:
//   h = proj_in(GroupNorm(x, eps 1e-6)) as tokens [B, H W, inner], blocks, proj_out, + x.
// proj_in / proj_out are 1x1 convs (SD 1.x) or Linear layers (use_linear_projection, SD 2.x and
// SDXL); a 1x1 conv runs as the same matrix product on the token layout, which saves the NCHW
// copies around it.
class UNetTransformer2DImpl : public torch::nn::Module {
public:
    UNetTransformer2DImpl(int channels, int heads, int layers, int crossDim, int groups,
                          bool linearProjection, bool upcast, const std::string& path);
    // x [B, C, H, W], context [B, Lk, crossDim] -> [B, C, H, W]
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& context,
                          ProbeContext& probes);

private:
    // proj_in / proj_out on tokens [B, L, in] -> [B, L, out], from the conv or linear layer.
    torch::Tensor projIn(const torch::Tensor& tokens);
    torch::Tensor projOut(const torch::Tensor& tokens);

    nn::GroupNorm m_norm{nullptr};
    nn::Conv2d m_projInConv{nullptr}, m_projOutConv{nullptr};
    nn::Linear m_projInLinear{nullptr}, m_projOutLinear{nullptr};
    torch::nn::ModuleList m_blocks;
    std::vector<UNetTransformerBlock> m_blockList;
    ProbePoint m_name, m_nNorm, m_nProjIn, m_nProjOut;
};
TORCH_MODULE(UNetTransformer2D);

}  // namespace hs
