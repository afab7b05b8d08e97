#include "families/qwenimage/qwenimage_block.h"

namespace hs {

QwenImageTransformerBlockImpl::QwenImageTransformerBlockImpl(int64_t dim, int heads, int headDim,
                                                             const std::string& path)
    : m_path(path) {
    auto points = [&](const std::string& s, const std::string& residual, const std::string& out) {
        auto op = [&](const std::string& n) { return ProbePoint(path + "." + n, ProbeLevel::Op); };
        StreamPoints p;
        p.silu = op(s + "_mod.0");
        p.mod = op(s + "_mod.1");
        p.norm1 = op(s + "_norm1");
        p.attnGated = op(residual + "attn_gated");
        p.attnResidual =
            ProbePoint(path + "." + residual + "attn_residual", ProbeLevel::Layer, kResidualStream);
        p.norm2 = op(s + "_norm2");
        p.mlpGated = op(s + "_mlp_gated");
        p.out = ProbePoint(out, ProbeLevel::Module, kResidualStream);
        p.modulated1 = ModulatePoints(path + "." + s + "_modulated",
                                      {path + "." + s + "_modulated", ProbeLevel::Layer});
        p.modulated2 = ModulatePoints(path + "." + s + "_modulated2",
                                      {path + "." + s + "_modulated2", ProbeLevel::Op});
        return p;
    };
    m_img = points("img", "", path);
    m_txt = points("txt", "context_", path + ".context");

    auto mod = [&](const char* key, nn::Linear& linear) {
        linear = nn::Linear(dim, 6 * dim);
        auto list = register_module(key, torch::nn::ModuleList());
        list->push_back(torch::nn::SiLU());  // .0: no parameters
        list->push_back(linear);
        return list;
    };
    img_mod = mod("img_mod", imgModLinear);
    attn = register_module("attn", QwenImageAttention(dim, heads, headDim, path + ".attn"));
    img_mlp = register_module("img_mlp", FeedForward(dim, path + ".img_mlp"));
    txt_mod = mod("txt_mod", txtModLinear);
    txt_mlp = register_module("txt_mlp", FeedForward(dim, path + ".txt_mlp"));
}

std::vector<torch::Tensor> QwenImageTransformerBlockImpl::modulation(nn::Linear& linear,
                                                                     const torch::Tensor& temb,
                                                                     const StreamPoints& p,
                                                                     ProbeContext& probes) {
    auto e = probes.point(p.silu, torch::silu(asTypeOf(temb, linear->weight)));  // [B, D]
    e = probes.point(p.mod, linear->forward(e));                                 // [B, 6D]
    // mod1 = (shift1, scale1, gate1), mod2 = (shift2, scale2, gate2)
    return e.chunk(6, 1);  // 6 x [B, D]
}

torch::Tensor QwenImageTransformerBlockImpl::tail(torch::Tensor x, const torch::Tensor& attnOut,
                                                  const std::vector<torch::Tensor>& m,
                                                  FeedForward& mlp, const StreamPoints& p,
                                                  ProbeContext& probes) {
    x = gatedResidual(probes, x, m[2], attnOut, p.attnGated, p.attnResidual);  // [B, L, D]
    auto h = probes.point(p.norm2, plainLayerNorm(x));  // img_norm2 / txt_norm2
    h = modulate(probes, p.modulated2, h, m[4], m[3]);  // [B, L, D]
    auto f = mlp->forward(h, probes);                   // [B, L, D]
    // [B, L, D], recorded before the fp16 clip
    return gatedResidual(probes, x, m[5], f, p.mlpGated, p.out);
}

std::pair<torch::Tensor, torch::Tensor> QwenImageTransformerBlockImpl::forward(
    const torch::Tensor& imgIn, const torch::Tensor& txtIn, const torch::Tensor& textMask,
    const torch::Tensor& temb, const RopeTables& rope, ProbeContext& probes) {
    // The residual streams live in this block's format (img_mod.1's dtype).
    const auto& w = imgModLinear->weight;
    auto x = probes.enter(m_path, imgIn, w);  // [B, L_img, D]
    auto c = probes.enter(m_path, txtIn, w);  // [B, L_txt, D]
    auto mi = modulation(imgModLinear, temb, m_img, probes);
    auto mt = modulation(txtModLinear, temb, m_txt, probes);
    auto xm = probes.point(m_img.norm1, plainLayerNorm(x));     // img_norm1
    xm = modulate(probes, m_img.modulated1, xm, mi[1], mi[0]);  // [B, L_img, D]
    auto cm = probes.point(m_txt.norm1, plainLayerNorm(c));     // txt_norm1
    cm = modulate(probes, m_txt.modulated1, cm, mt[1], mt[0]);  // [B, L_txt, D]
    QwenImageAttentionOut a = attn->forward(xm, cm, textMask, rope, probes);
    x = tail(x, a.img, mi, img_mlp, m_img, probes);  // [B, L_img, D]
    c = tail(c, a.txt, mt, txt_mlp, m_txt, probes);  // [B, L_txt, D]
    // diffusers: `if dtype == torch.float16: clip(-65504, 65504)`, text stream first.
    c = probes.policy().fp16ResidualClip(m_path, c);
    x = probes.policy().fp16ResidualClip(m_path, x);
    return {c, x};
}

}  // namespace hs
