#include "families/qwenimage/qwenimage_transformer.h"

#include "runtime/parallelism.h"

namespace hs {

QwenImageTransformerImpl::QwenImageTransformerImpl(const QwenImageConfig& c,
                                                   const std::string& component)
    : m_config(c),
      m_component(component),
      m_imgIn(component + ".img_in", ProbeLevel::Layer),
      m_txtNorm(component + ".txt_norm", ProbeLevel::Layer),
      m_txtIn(component + ".txt_in", ProbeLevel::Layer),
      m_projOut(component + ".proj_out", ProbeLevel::Module) {
    const int64_t dim = c.innerDim();
    time_text_embed =
        register_module("time_text_embed", QwenImageTimeEmbed(dim, component + ".time_text_embed"));
    txt_norm = register_module("txt_norm", nn::RMSNorm(c.jointAttentionDim, 1e-6));
    img_in = register_module("img_in", nn::Linear(c.inChannels, dim));
    txt_in = register_module("txt_in", nn::Linear(c.jointAttentionDim, dim));
    transformer_blocks = registerBlocks(
        *this, "transformer_blocks", c.numLayers, component + ".transformer_blocks.", blocks,
        [&](int, const std::string& p) {
            return QwenImageTransformerBlock(dim, c.numAttentionHeads, c.attentionHeadDim, p);
        });
    norm_out = register_module("norm_out", AdaLayerNormContinuous(dim, component + ".norm_out"));
    proj_out = register_module("proj_out", nn::Linear(dim, c.outDim()));
}

torch::Tensor QwenImageTransformerImpl::forward(const QwenImageInputs& in, ProbeContext& probes) {
    // diffusers QwenImageTransformer2DModel.forward
    const int64_t B = in.hiddenStates.size(0), li = in.hiddenStates.size(1),
                  lt = in.encoderHiddenStates.size(1), dim = m_config.innerDim();
    SmallWork work(B * (li + lt) * dim * 4 * dim);  // the MLP's first linear
    auto x = probes.enter(m_imgIn.name, in.hiddenStates, img_in->weight);
    x = probes.point(m_imgIn, img_in->forward(x));  // [B, L_img, D]
    auto c = probes.enter(m_txtNorm.name, in.encoderHiddenStates, txt_norm->weight);
    c = probes.point(m_txtNorm, txt_norm->forward(c));  // [B, L_txt, C]
    c = probes.point(m_txtIn, txt_in->forward(c));      // [B, L_txt, D]
    // `timestep.to(hidden_states.dtype)`: the timestep in img_in's format.
    auto temb = time_text_embed->forward(asTypeOf(in.timestep, x), probes);  // [B, D]
    const RopeTables rope =
        qwenImageRope(m_config.axesDimsRope, in.shape, lt, x.device());  // [L_txt + L_img, Dh]

    for (size_t i = 0; i < blocks.size(); ++i) {
        auto held = holdBlock("transformer_blocks." + std::to_string(i) + ".");
        std::tie(c, x) = blocks[i]->forward(x, c, in.textMask, temb, rope, probes);
    }
    x = norm_out->forward(x, temb, probes);                // [B, L_img, D]
    return probes.point(m_projOut, proj_out->forward(x));  // [B, L_img, p*p*C]
}

}  // namespace hs
