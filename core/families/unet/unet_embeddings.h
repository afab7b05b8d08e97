#pragma once
// The time conditioning of diffusers UNet2DConditionModel (models/embeddings.py): Timesteps
// (get_timestep_embedding: timestepSinusoid of models/common/dit_layers.h) and
// TimestepEmbedding (linear_1, SiLU, linear_2), used as time_embedding and, for SDXL's
// addition_embed_type "text_time", as add_embedding.
#include <torch/torch.h>

#include <string>

#include "models/common/dit_layers.h"
#include "models/common/layers.h"
#include "numerics/probe.h"

namespace hs {

// diffusers TimestepEmbedding(in, out, act_fn="silu"): linear_1 -> SiLU -> linear_2. Probe points
// "<path>.linear_1", "<path>.act" (Op) and the output "<path>" at `level`.
class UNetTimestepEmbeddingImpl : public torch::nn::Module {
public:
    UNetTimestepEmbeddingImpl(int64_t in, int64_t out, const std::string& path, ProbeLevel level);
    torch::Tensor forward(const torch::Tensor& x, ProbeContext& probes);  // [B, in] -> [B, out]

    nn::Linear linear_1{nullptr}, linear_2{nullptr};

private:
    ProbePoint m_out, m_l1, m_act;
};
TORCH_MODULE(UNetTimestepEmbedding);

}  // namespace hs
