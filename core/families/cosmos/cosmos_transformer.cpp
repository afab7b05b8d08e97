#include "families/cosmos/cosmos_transformer.h"

#include "runtime/parallelism.h"

namespace hs {

CosmosPatchEmbedImpl::CosmosPatchEmbedImpl(int64_t in, int64_t out) {
    proj = register_module("proj", nn::Linear(in, out, false));
}

CosmosTransformerImpl::CosmosTransformerImpl(const CosmosConfig& c, const std::string& component)
    : m_config(c),
      m_component(component),
      m_patchEmbed(component + ".patch_embed", ProbeLevel::Layer),
      m_projOut(component + ".proj_out", ProbeLevel::Module) {
    const int64_t dim = c.innerDim();
    patch_embed = register_module("patch_embed", CosmosPatchEmbed(c.patchInDim(), dim));
    time_embed = register_module("time_embed", CosmosTimeEmbed(dim, component + ".time_embed"));
    transformer_blocks = registerBlocks(
        *this, "transformer_blocks", c.numLayers, component + ".transformer_blocks.", blocks,
        [&](int, const std::string& p) { return CosmosTransformerBlock(c, p); });
    norm_out =
        register_module("norm_out", CosmosAdaNorm(dim, c.adalnLoraDim, 2, component + ".norm_out"));
    proj_out = register_module("proj_out", nn::Linear(dim, c.outDim(), false));
}

torch::Tensor CosmosTransformerImpl::forward(const CosmosInputs& in, ProbeContext& probes) {
    // diffusers CosmosTransformer3DModel.forward
    const auto& c = m_config;
    const int64_t B = in.hiddenStates.size(0), T = in.hiddenStates.size(2),
                  H = in.hiddenStates.size(3), W = in.hiddenStates.size(4);
    const int64_t pt = c.patchSize[0], ph = c.patchSize[1], pw = c.patchSize[2];
    const int64_t tp = T / pt, hp = H / ph, wp = W / pw, dim = c.innerDim();
    SmallWork work(B * tp * hp * wp * dim * c.ffDim());  // the MLP's first linear

    const auto& w = patch_embed->proj->weight;
    auto x = probes.enter(m_patchEmbed.name, in.hiddenStates, w);  // [B, C, T, H, W]
    if (c.concatPaddingMask) {
        // torchvision resize(NEAREST) of the [1, 1, h, w] mask to the latents' H x W, repeated
        // over batch and frames: one more input channel.
        torch::Tensor m = in.paddingMask.defined()
                              ? in.paddingMask.to(x.device(), torch::kFloat32)
                              : torch::zeros({1, 1, H, W}, x.options().dtype(torch::kFloat32));
        if (m.size(2) != H || m.size(3) != W)
            m = torch::upsample_nearest2d(m, {H, W});  // [1, 1, H, W]
        m = m.to(x.scalar_type()).unsqueeze(2).expand({B, 1, T, H, W});
        x = torch::cat({x, m}, 1);  // [B, C + 1, T, H, W]
    }
    // CosmosPatchEmbed
    x = x.reshape({B, x.size(1), tp, pt, hp, ph, wp, pw})
            .permute({0, 2, 4, 6, 1, 3, 5, 7})
            .reshape({B, tp, hp, wp, -1});                          // [B, T', H', W', C' pt ph pw]
    x = probes.point(m_patchEmbed, patch_embed->proj->forward(x));  // [B, T', H', W', D]
    x = x.reshape({B, tp * hp * wp, dim});                          // [B, S, D]

    const CosmosRope rope = cosmosRope(c, tp, hp, wp, x.device());      // [S, Dh] x2
    CosmosTimeEmbedding te = time_embed->forward(in.timestep, probes);  // [B|1, 3D], [B|1, D]

    for (size_t i = 0; i < blocks.size(); ++i) {
        auto held = holdBlock("transformer_blocks." + std::to_string(i) + ".");
        x = blocks[i]->forward(x, in.encoderHiddenStates, te.emb, te.temb, rope, probes);
    }
    x = norm_out->forward(x, te.emb, te.temb, probes).x;  // [B, S, D]
    x = probes.point(m_projOut, proj_out->forward(x));    // [B, S, ph pw pt C]
    // Unpatchify: the features are ordered (p_h, p_w, p_t, C), as diffusers' proj_out is.
    x = x.reshape({B, tp, hp, wp, ph, pw, pt, c.outChannels})
            .permute({0, 7, 1, 6, 2, 4, 3, 5})  // [B, C, T', pt, H', ph, W', pw]
            .reshape({B, c.outChannels, T, H, W});
    return x;
}

}  // namespace hs
