#pragma once
// The timestep / guidance / pooled-text embedding of diffusers' FluxTransformer2DModel. Its
// other small layers (the adaptive layer norms, the feed-forward, the embedders) are the DiT
// families' shared ones, in models/common/dit_layers.h, whose precision rules all Flux modules
// follow.
#include <torch/torch.h>

#include <string>

#include "models/common/dit_layers.h"
#include "numerics/probe.h"

namespace hs {

// diffusers CombinedTimestepGuidanceTextProjEmbeddings (with guidance) or
// CombinedTimestepTextProjEmbeddings (without): keys timestep_embedder, guidance_embedder,
// text_embedder. Timestep and guidance arrive as the pipeline passes them (sigma in [0, 1],
// guidance scale) and are multiplied by 1000 here, in the embedder's dtype, as diffusers does
// (`timestep.to(dtype) * 1000`).
class FluxTimeTextEmbedImpl : public torch::nn::Module {
public:
    FluxTimeTextEmbedImpl(int64_t dim, int64_t pooledDim, bool guidance, const std::string& path);
    // timestep [B], guidance [B] or undefined, pooled [B, P] -> temb [B, D]
    torch::Tensor forward(const torch::Tensor& timestep, const torch::Tensor& guidance,
                          const torch::Tensor& pooled, ProbeContext& probes);
    bool hasGuidance() const { return !guidance_embedder.is_empty(); }
    MlpEmbedder timestep_embedder{nullptr}, guidance_embedder{nullptr}, text_embedder{nullptr};

private:
    torch::Tensor embedTime(const torch::Tensor& t, MlpEmbedder& e, const ProbePoint& scaled,
                            const ProbePoint& proj, ProbeContext& probes);
    ProbePoint m_out, m_timestep, m_timeProj, m_guidance, m_guidanceProj, m_sum;
};
TORCH_MODULE(FluxTimeTextEmbed);

}  // namespace hs
