#include "models/unet/unet_embeddings.h"

#include <cmath>

namespace hs {

torch::Tensor unetTimestepProj(const torch::Tensor& t, int dim, bool flipSinToCos, double shift) {
    // The same torch ops in the same dtypes as diffusers (float32 frequencies and angles).
    const int64_t half = dim / 2;
    auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(t.device());
    auto exponent = torch::arange(0, half, opts) * (-std::log(10000.0));  // [half]
    exponent = exponent / (double(half) - shift);
    auto args =
        t.to(torch::kFloat32).unsqueeze(1) * torch::exp(exponent).unsqueeze(0);  // [N, half]
    auto emb = flipSinToCos ? torch::cat({torch::cos(args), torch::sin(args)}, 1)
                            : torch::cat({torch::sin(args), torch::cos(args)}, 1);  // [N, 2 half]
    if (dim % 2 == 1) emb = torch::constant_pad_nd(emb, {0, 1});
    return emb;  // [N, dim]
}

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
