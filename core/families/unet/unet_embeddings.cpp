#include "families/unet/unet_embeddings.h"

namespace hs {

UNetTimestepEmbeddingImpl::UNetTimestepEmbeddingImpl(int64_t in, int64_t out,
                                                     const std::string& path, ProbeLevel level)
    : m_out(path, level),
      m_l1(path + ".linear_1", ProbeLevel::Op),
      m_act(path + ".act", ProbeLevel::Op) {
    linear_1 = register_module("linear_1", nn::Linear(in, out));
    linear_2 = register_module("linear_2", nn::Linear(out, out));
}

torch::Tensor UNetTimestepEmbeddingImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto h = probes.point(m_l1, linear_1->forward(x));  // [B, out]
    h = probes.point(m_act, torch::silu_(h));
    return probes.point(m_out, linear_2->forward(h));  // [B, out]
}

}  // namespace hs
