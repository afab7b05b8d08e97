#pragma once
// Small parts of diffusers' QwenImageTransformer2DModel: the timestep embedding
// (QwenTimestepProjEmbeddings), the rotary tables of QwenEmbedRope with scale_rope, and the
// masked attention of the joint [text | image] sequence.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "models/common/attention.h"
#include "models/common/dit_layers.h"
#include "numerics/probe.h"

namespace hs {

// The image's size in packed tokens: frames x (latent height / 2) x (latent width / 2).
struct QwenImageShape {
    int64_t frames = 1, height = 1, width = 1;
    int64_t tokens() const { return frames * height * width; }
};

// QwenEmbedRope(theta 10000, axes_dims, scale_rope=True) for one image followed by nothing,
// laid out for the joint sequence [text | image]: cos and sin [L_txt + L_img, head_dim] float32,
// each angle repeated for its (2k, 2k+1) pair (apply_rotary_emb_qwen multiplies those pairs as
// complex numbers, which applyRope computes in real arithmetic). Image token (f, r, c): frame f,
// row r - (height - height / 2), column c - (width - width / 2) (centred); text token j: position
// max(height / 2, width / 2) + j on all three axes. Angles are index x inverse frequency in
// float32, as rope_params computes them.
RopeTables qwenImageRope(const std::vector<int>& axesDims, const QwenImageShape& shape,
                         int64_t textLength, const torch::Device& device);

// softmax(q k^T / sqrt(D)) v over q [B, H, Lq, D], k and v [B, H, Lk, D] -> [B, H, Lq, D], keys
// with keyMask [B, Lk] false left out (undefined: all attended), as
// F.scaled_dot_product_attention with a boolean mask. Scores and softmax in float32,
// probabilities cast to v's dtype, queries in chunks that keep the scores under ~256 MB (as
// fusedAttention, which it calls when there is no mask).
torch::Tensor maskedAttention(const torch::Tensor& q, const torch::Tensor& k,
                              const torch::Tensor& v, const torch::Tensor& keyMask);

// QwenTimestepProjEmbeddings without use_additional_t_cond: time_proj = Timesteps(256,
// flip_sin_to_cos=True, downscale_freq_shift=0, scale=1000) (no weights; unlike Flux, the
// timestep arrives as the pipeline's t / 1000 and the scale multiplies the arguments after
// t * freqs, in float32), then
// timestep_embedder (TimestepEmbedding: linear_1, SiLU, linear_2). Layer point `path`.
class QwenImageTimeEmbedImpl : public torch::nn::Module {
public:
    QwenImageTimeEmbedImpl(int64_t dim, const std::string& path);
    // timestep [B] (t / 1000, cast to the model's dtype as diffusers does) -> temb [B, D]
    torch::Tensor forward(const torch::Tensor& timestep, ProbeContext& probes);
    MlpEmbedder timestep_embedder{nullptr};

private:
    ProbePoint m_out, m_timestep, m_timeProj;
};
TORCH_MODULE(QwenImageTimeEmbed);

}  // namespace hs
