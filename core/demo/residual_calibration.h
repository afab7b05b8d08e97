#pragma once
// How large the demo model's residual streams are before the massive-activation scaling, so the
// scale c can be chosen to push them past fp16's range by a known margin (massive_activations.h).
#include <string>

#include "demo/demo_export.h"
#include "families/clip/clip_text_model.h"
#include "families/flux/flux_transformer.h"
#include "families/vae/autoencoder_kl.h"
#include "text/clip_tokenizer.h"

namespace hs::demo {

struct ResidualPeaks {
    double transformer = 0;  // max |x| of the double/single blocks' outputs (both streams)
    double vaeDecoder = 0;   // max |x| of the decoder's conv_in, mid block and up blocks
};

// Max |x| of a Flux transformer's residual streams at sigma 1 (the first sampling step) on the
// captions of 16 held-out scenes and the empty caption, in fp32.
double transformerResidualPeak(ClipTextModel& text, FluxTransformer& flux,
                               const ClipTokenizer& tokenizer);

// Max |x| of an AutoencoderKL decoder's residual stream (conv_in, mid block, up blocks) on the
// latents of 16 held-out scenes drawn at `imageSize`, in fp32.
double vaeDecoderResidualPeak(AutoencoderKL& vae, int imageSize);

// fp32 forwards of the trained (unscaled) weights: the transformer at sigma 1 (the first
// sampling step) on 16 held-out captions and the empty caption; the VAE decoder on the latents
// of 16 held-out scenes. `tokenizerDir` holds the demo tokenizer's files.
ResidualPeaks measureResidualPeaks(const DemoExport& e, const std::string& tokenizerDir);

// The smallest power of two c with peak * c >= target (2^17: twice fp16's largest value, so the
// largest activation overflows with margin on the first step). Exact in bf16: only exponents
// change.
double residualScaleFor(double peak, double target = 131072.0);

}  // namespace hs::demo
