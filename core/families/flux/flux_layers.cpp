#include "families/flux/flux_layers.h"

#include "models/common/weights.h"

namespace hs {

// ---- CombinedTimestep(Guidance)TextProjEmbeddings ----

FluxTimeTextEmbedImpl::FluxTimeTextEmbedImpl(int64_t dim, int64_t pooledDim, bool guidance,
                                             const std::string& path)
    : m_out(path, ProbeLevel::Layer),
      m_timestep(path + ".timestep", ProbeLevel::Op),
      m_timeProj(path + ".time_proj", ProbeLevel::Op),
      m_guidance(path + ".guidance", ProbeLevel::Op),
      m_guidanceProj(path + ".guidance_proj", ProbeLevel::Op),
      m_sum(path + ".time_guidance", ProbeLevel::Op) {
    timestep_embedder = register_module("timestep_embedder",
                                        MlpEmbedder(256, dim, path + ".timestep_embedder", "act"));
    if (guidance) {
        guidance_embedder = register_module(
            "guidance_embedder", MlpEmbedder(256, dim, path + ".guidance_embedder", "act"));
    }
    text_embedder = register_module("text_embedder",
                                    MlpEmbedder(pooledDim, dim, path + ".text_embedder", "act_1"));
}

torch::Tensor FluxTimeTextEmbedImpl::embedTime(const torch::Tensor& t, MlpEmbedder& e,
                                               const ProbePoint& scaled, const ProbePoint& proj,
                                               ProbeContext& probes) {
    const auto& w = e->linear_1->weight;
    // `timestep.to(dtype) * 1000` in the model dtype: in bf16, 0.123 -> 123.0, as diffusers.
    auto t1 = probes.point(scaled, probes.enter(m_out.name, t, w) * 1000);  // [B]
    auto s = timestepSinusoid(t1, 256);  // [B, 256] float32 (diffusers Timesteps)
    s = probes.point(proj, asTypeOf(s, w));
    return e->forward(s, probes);  // [B, D]
}

torch::Tensor FluxTimeTextEmbedImpl::forward(const torch::Tensor& timestep,
                                             const torch::Tensor& guidance,
                                             const torch::Tensor& pooled, ProbeContext& probes) {
    auto temb = embedTime(timestep, timestep_embedder, m_timestep, m_timeProj, probes);  // [B, D]
    if (hasGuidance()) {
        TORCH_CHECK(guidance.defined(), "this Flux model needs a guidance value");
        auto g = embedTime(guidance, guidance_embedder, m_guidance, m_guidanceProj, probes);
        temb = probes.point(m_sum, temb + asTypeOf(g, temb));  // [B, D]
    }
    auto p = probes.enter(m_out.name, pooled, text_embedder->linear_1->weight);  // [B, P]
    p = text_embedder->forward(p, probes);                                       // [B, D]
    return probes.point(m_out, temb + asTypeOf(p, temb));                        // [B, D]
}

}  // namespace hs
