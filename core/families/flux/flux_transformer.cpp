#include "families/flux/flux_transformer.h"

#include "models/common/config.h"
#include "runtime/parallelism.h"

namespace hs {

FluxTransformerImpl::FluxTransformerImpl(const FluxConfig& c, const std::string& component)
    : m_config(c),
      m_component(component),
      m_xEmbedder(component + ".x_embedder", ProbeLevel::Layer),
      m_contextEmbedder(component + ".context_embedder", ProbeLevel::Layer),
      m_projOut(component + ".proj_out", ProbeLevel::Module) {
    const int64_t dim = c.innerDim();
    time_text_embed = register_module(
        "time_text_embed", FluxTimeTextEmbed(dim, c.pooledProjectionDim, c.guidanceEmbeds,
                                             component + ".time_text_embed"));
    context_embedder = register_module("context_embedder", nn::Linear(c.jointAttentionDim, dim));
    x_embedder = register_module("x_embedder", nn::Linear(c.inChannels, dim));
    transformer_blocks = registerBlocks(
        *this, "transformer_blocks", c.numLayers, component + ".transformer_blocks.", blocks,
        [&](int, const std::string& p) {
            return FluxTransformerBlock(dim, c.numAttentionHeads, c.attentionHeadDim, p);
        });
    single_transformer_blocks = registerBlocks(
        *this, "single_transformer_blocks", c.numSingleLayers,
        component + ".single_transformer_blocks.", singleBlocks, [&](int, const std::string& p) {
            return FluxSingleTransformerBlock(dim, c.numAttentionHeads, c.attentionHeadDim, p);
        });
    norm_out = register_module("norm_out", AdaLayerNormContinuous(dim, component + ".norm_out"));
    proj_out = register_module("proj_out", nn::Linear(dim, c.outDim()));
}

torch::Tensor FluxTransformerImpl::forward(const FluxInputs& in, ProbeContext& probes) {
    // diffusers FluxTransformer2DModel.forward
    const int64_t tokens =
        in.hiddenStates.size(0) * (in.hiddenStates.size(1) + in.encoderHiddenStates.size(1));
    SmallWork work(tokens * m_config.innerDim() * 4 * m_config.innerDim());  // MLP's first linear
    auto x = probes.enter(m_xEmbedder.name, in.hiddenStates, x_embedder->weight);
    x = probes.point(m_xEmbedder, x_embedder->forward(x));  // [B, L_img, D]
    auto temb = time_text_embed->forward(in.timestep, in.guidance, in.pooledProjections, probes);
    auto c = probes.enter(m_contextEmbedder.name, in.encoderHiddenStates, context_embedder->weight);
    c = probes.point(m_contextEmbedder, context_embedder->forward(c));  // [B, L_txt, D]

    // FluxPosEmbed over the joint sequence: text ids first.
    auto ids = torch::cat({in.txtIds.to(torch::kFloat32), in.imgIds.to(torch::kFloat32)}, 0);
    RopeTables rope = fluxRope(ids, m_config.axesDimsRope, m_config.ropeTheta);  // [L, Dh] x2
    rope.cos = rope.cos.to(x.device());
    rope.sin = rope.sin.to(x.device());

    for (size_t i = 0; i < blocks.size(); ++i) {
        auto held = holdBlock("transformer_blocks." + std::to_string(i) + ".");
        std::tie(c, x) = blocks[i]->forward(x, c, temb, rope, probes);  // [B, L_txt|L_img, D]
    }
    const int64_t lt = c.size(1), li = x.size(1);
    auto s = torch::cat({asTypeOf(c, x), x}, 1);  // [B, L_txt + L_img, D]
    for (size_t i = 0; i < singleBlocks.size(); ++i) {
        auto held = holdBlock("single_transformer_blocks." + std::to_string(i) + ".");
        s = singleBlocks[i]->forward(s, temb, rope, probes);  // [B, L_txt + L_img, D]
    }
    x = s.narrow(1, lt, li);                               // [B, L_img, D]
    x = norm_out->forward(x, temb, probes);                // [B, L_img, D]
    return probes.point(m_projOut, proj_out->forward(x));  // [B, L_img, p*p*C]
}

}  // namespace hs
