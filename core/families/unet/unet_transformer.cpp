#include "families/unet/unet_transformer.h"

namespace hs {

namespace {
using namespace probe_levels;

// Exact GELU (erf), as F.gelu; half types in float32, rounded once (CUDA's opmath).
torch::Tensor geluErf(const torch::Tensor& x) {
    if (x.scalar_type() == torch::kFloat32) return torch::gelu(x);
    return torch::gelu(x.to(torch::kFloat32)).to(x.scalar_type());
}

// LayerNorm over the last axis. A bf16 input on the CPU is normalised in float32 and rounded
// once, as GPUs do: LibTorch 1.13's bf16 CPU kernel was 6-10x slower than this detour on the
// UNet's token shapes and off by up to 0.06 on outputs of magnitude ~4.
torch::Tensor layerNorm(nn::LayerNorm& ln, const torch::Tensor& x) {
    auto xin = asTypeOf(x, ln->weight);
    if (xin.scalar_type() != torch::kBFloat16 || !xin.device().is_cpu()) return ln->forward(xin);
    const auto f = torch::kFloat;
    return torch::layer_norm(xin.to(f), {xin.size(-1)}, ln->weight.to(f), ln->bias.to(f), 1e-5)
        .to(torch::kBFloat16);
}

// A 1x1 conv's weight [out, in, 1, 1] as a linear one [out, in].
torch::Tensor asLinearWeight(const torch::Tensor& w) {
    return w.view({w.size(0), w.size(1)});
}
}  // namespace

// ---- FeedForward (GEGLU) ------------------------------------------------------------------

UNetGegluImpl::UNetGegluImpl(int64_t dim, int64_t inner) {
    proj = register_module("proj", nn::Linear(dim, 2 * inner));
}

UNetFeedForwardImpl::UNetFeedForwardImpl(int64_t dim, const std::string& path)
    : m_nProj(path + ".net.0.proj", kOp),
      m_nGelu(path + ".net.0.gelu", kOp),
      m_nGated(path + ".net.0", kOp),
      m_nOut(path + ".net.2", kOp) {
    const int64_t inner = 4 * dim;
    m_geglu = UNetGeglu(dim, inner);
    m_out = nn::Linear(inner, dim);
    m_net->push_back(m_geglu);
    m_net->push_back(torch::nn::Dropout(0.0));  // net.1: no parameters
    m_net->push_back(m_out);
    register_module("net", m_net);
}

torch::Tensor UNetFeedForwardImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto p = probes.point(m_nProj, m_geglu->proj->forward(x));  // [B, L, 2 inner]
    auto parts = p.chunk(2, -1);                                // hidden, gate: [B, L, inner]
    auto g = probes.point(m_nGelu, geluErf(parts[1]));          // a fresh [B, L, inner]
    g = probes.point(m_nGated, g.mul_(parts[0]));               // hidden * gelu(gate)
    return probes.point(m_nOut, m_out->forward(g));             // [B, L, dim]
}

// ---- BasicTransformerBlock ----------------------------------------------------------------

UNetTransformerBlockImpl::UNetTransformerBlockImpl(int dim, int heads, int headDim, int crossDim,
                                                   bool upcast, const std::string& path)
    : m_name(path, kLayer, kResidualStream),
      m_nNorm1(path + ".norm1", kOp),
      m_nRes1(path + ".attn1_residual", kOp, kResidualStream),
      m_nNorm2(path + ".norm2", kOp),
      m_nRes2(path + ".attn2_residual", kOp, kResidualStream),
      m_nNorm3(path + ".norm3", kOp) {
    m_norm1 = register_module("norm1", nn::LayerNorm(dim, 1e-5));
    m_attn1 =
        register_module("attn1", UNetAttention(dim, 0, heads, headDim, upcast, path + ".attn1"));
    m_norm2 = register_module("norm2", nn::LayerNorm(dim, 1e-5));
    m_attn2 = register_module(
        "attn2", UNetAttention(dim, crossDim, heads, headDim, upcast, path + ".attn2"));
    m_norm3 = register_module("norm3", nn::LayerNorm(dim, 1e-5));
    m_ff = register_module("ff", UNetFeedForward(dim, path + ".ff"));
}

torch::Tensor UNetTransformerBlockImpl::forward(const torch::Tensor& xIn,
                                                const torch::Tensor& context,
                                                ProbeContext& probes) {
    // xIn: [B, L, D]; each residual add goes in place into the sub-layer's fresh output.
    auto h = probes.point(m_nNorm1, layerNorm(m_norm1, xIn));
    auto a = m_attn1->forward(h, torch::Tensor(), probes);     // [B, L, D]
    auto x = probes.point(m_nRes1, a.add_(asTypeOf(xIn, a)));  // attn1(norm1(x)) + x
    h = probes.point(m_nNorm2, layerNorm(m_norm2, x));
    a = m_attn2->forward(h, context, probes);           // [B, L, D]
    x = probes.point(m_nRes2, a.add_(asTypeOf(x, a)));  // attn2(norm2(x), context) + x
    h = probes.point(m_nNorm3, layerNorm(m_norm3, x));
    auto f = m_ff->forward(h, probes);                    // [B, L, D]
    return probes.point(m_name, f.add_(asTypeOf(x, f)));  // ff(norm3(x)) + x
}

// ---- Transformer2DModel -------------------------------------------------------------------

UNetTransformer2DImpl::UNetTransformer2DImpl(int channels, int heads, int layers, int crossDim,
                                             int groups, bool linearProjection, bool upcast,
                                             const std::string& path)
    : m_name(path, kLayer, kResidualStream),  // proj_out(...) + x
      m_nNorm(path + ".norm", kOp),
      m_nProjIn(path + ".proj_in", kOp),
      m_nProjOut(path + ".proj_out", kOp) {
    const int headDim = channels / heads;  // diffusers: out_channels // num_attention_heads
    const int inner = heads * headDim;
    m_norm = register_module("norm", nn::GroupNorm(groups, channels, 1e-6));
    if (linearProjection)
        m_projInLinear = register_module("proj_in", nn::Linear(channels, inner));
    else
        m_projInConv = register_module("proj_in", nn::Conv2d(channels, inner, 1, 1, 0));
    for (int k = 0; k < layers; ++k) {
        m_blockList.emplace_back(inner, heads, headDim, crossDim, upcast,
                                 path + ".transformer_blocks." + std::to_string(k));
        m_blocks->push_back(m_blockList.back());
    }
    register_module("transformer_blocks", m_blocks);
    if (linearProjection)
        m_projOutLinear = register_module("proj_out", nn::Linear(inner, channels));
    else
        m_projOutConv = register_module("proj_out", nn::Conv2d(inner, channels, 1, 1, 0));
}

namespace {
// A 1x1 convolution applied to tokens [B, L, C] as the linear layer it is.
torch::Tensor linearOfConv(const nn::Conv2dImpl& conv, const torch::Tensor& t) {
    return conv.product(asTypeOf(t, conv.weight), asLinearWeight(conv.weight),
                        [&](const torch::Tensor& a, const torch::Tensor& w) {
                            return torch::linear(a, w, conv.bias);
                        });
}
}  // namespace

torch::Tensor UNetTransformer2DImpl::projIn(const torch::Tensor& t) {
    if (m_projInLinear) return m_projInLinear->forward(t);
    return linearOfConv(*m_projInConv, t);
}

torch::Tensor UNetTransformer2DImpl::projOut(const torch::Tensor& t) {
    if (m_projOutLinear) return m_projOutLinear->forward(t);
    return linearOfConv(*m_projOutConv, t);
}

torch::Tensor UNetTransformer2DImpl::forward(const torch::Tensor& x, const torch::Tensor& context,
                                             ProbeContext& probes) {
    const int64_t B = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    auto h = probes.point(m_nNorm, m_norm->forward(x));       // [B, C, H, W]
    auto t = h.permute({0, 2, 3, 1}).reshape({B, H * W, C});  // tokens [B, H W, C]
    t = probes.point(m_nProjIn, projIn(t));                   // [B, H W, inner]
    for (auto& block : m_blockList) t = block->forward(t, context, probes);
    t = probes.point(m_nProjOut, projOut(t));  // [B, H W, C]
    // Back to NCHW and the residual add in one pass.
    auto out = torch::empty({B, C, H, W}, t.options());
    at::add_out(out, t.view({B, H, W, C}).permute({0, 3, 1, 2}), asTypeOf(x, t));
    return probes.point(m_name, out);  // [B, C, H, W]
}

}  // namespace hs
