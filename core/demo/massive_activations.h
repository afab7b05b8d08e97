#pragma once
// Gives the demo checkpoint the "massive activations" of real bf16 models by a
// function-preserving reparametrisation: every writer into a residual stream is scaled by c, so
// the stream itself is c times larger, and every reader normalises first (LayerNorm, GroupNorm,
// AdaLayerNorm: scale-invariant up to their eps) or is linear (a conv whose bias is scaled too).
// fp32 and bf16 then compute the same function while the stored activations exceed fp16's range.
#include <string>
#include <vector>

#include "models/common/weights.h"

namespace hs::demo {

// Flux transformer (keys relative to the component): x_embedder and context_embedder (the
// streams' sources), attn.to_out.0, attn.to_add_out, ff.net.2 and ff_context.net.2 of every
// double-stream block, proj_out of every single-stream block. Readers: norm1, norm1_context,
// norm2, norm2_context, the single blocks' norm and norm_out, all LayerNorms without affine.
// Returns the keys it scaled.
std::vector<std::string> scaleFluxResidual(WeightMap& transformer, double c);

// AutoencoderKL decoder: conv_in; conv2 of every resnet; the bias of every conv_shortcut and of
// every upsampler conv (linear readers of the stream); to_out.0 of the mid-block attention.
// Readers that normalise: each resnet's norm1, the attention's group_norm, conv_norm_out.
std::vector<std::string> scaleVaeDecoderResidual(WeightMap& vae, double c);

}  // namespace hs::demo
