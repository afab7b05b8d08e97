#include "families/sd3/sd3_transformer.h"

#include "runtime/parallelism.h"

namespace hs {

SD3TransformerImpl::SD3TransformerImpl(const SD3Config& c, const std::string& component)
    : m_config(c),
      m_component(component),
      m_contextEmbedder(component + ".context_embedder", ProbeLevel::Layer),
      m_projOut(component + ".proj_out", ProbeLevel::Module) {
    const int64_t dim = c.innerDim();
    pos_embed = register_module(
        "pos_embed", SD3PatchEmbed(c.inChannels, dim, c.patchSize, c.posEmbedMaxSize, c.baseSize(),
                                   component + ".pos_embed"));
    time_text_embed = register_module(
        "time_text_embed",
        SD3TimeTextEmbed(dim, c.pooledProjectionDim, component + ".time_text_embed"));
    context_embedder = register_module("context_embedder",
                                       nn::Linear(c.jointAttentionDim, c.captionProjectionDim));
    transformer_blocks =
        registerBlocks(*this, "transformer_blocks", c.numLayers, component + ".transformer_blocks.",
                       blocks, [&](int i, const std::string& p) {
                           SD3BlockOptions o;
                           o.contextPreOnly = c.contextPreOnly(i);
                           o.dualAttention = c.dualAttention(i);
                           o.qkRmsNorm = c.qkRmsNorm;
                           return SD3JointBlock(dim, c.numAttentionHeads, c.attentionHeadDim, o, p);
                       });
    norm_out = register_module("norm_out", AdaLayerNormContinuous(dim, component + ".norm_out"));
    proj_out = register_module("proj_out", nn::Linear(dim, c.outDim()));
}

torch::Tensor SD3TransformerImpl::forward(const SD3Inputs& in, ProbeContext& probes) {
    // diffusers SD3Transformer2DModel.forward
    const int64_t B = in.hiddenStates.size(0), H = in.hiddenStates.size(2),
                  W = in.hiddenStates.size(3), p = m_config.patchSize, h = H / p, w = W / p,
                  dim = m_config.innerDim(), C = m_config.outChannels;
    SmallWork work(B * (h * w + in.encoderHiddenStates.size(1)) * dim * 4 * dim);  // MLP's first
    auto x = probes.enter(m_component + ".pos_embed", in.hiddenStates, pos_embed->proj->weight);
    x = pos_embed->forward(x, probes);                                                // [B, h*w, D]
    auto temb = time_text_embed->forward(in.timestep, in.pooledProjections, probes);  // [B, D]
    auto c = probes.enter(m_contextEmbedder.name, in.encoderHiddenStates, context_embedder->weight);
    c = probes.point(m_contextEmbedder, context_embedder->forward(c));  // [B, L_txt, D]

    for (size_t i = 0; i < blocks.size(); ++i) {
        auto held = holdBlock("transformer_blocks." + std::to_string(i) + ".");
        std::tie(c, x) = blocks[i]->forward(x, c, temb, probes);  // the last returns no c
    }
    x = norm_out->forward(x, temb, probes);             // [B, h*w, D]
    x = probes.point(m_projOut, proj_out->forward(x));  // [B, h*w, p*p*C]
    // unpatchify: "nhwpqc->nchpwq"
    x = x.reshape({B, h, w, p, p, C}).permute({0, 5, 1, 3, 2, 4});  // [B, C, h, p, w, q]
    return x.reshape({B, C, h * p, w * p});                         // [B, C, H, W]
}

}  // namespace hs
