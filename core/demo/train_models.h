#pragma once
// The demo model's three modules in training form (fp32 master weights, random init) and the
// pieces of the training recipe that use them.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "demo/demo_tokenizer.h"
#include "demo/world.h"
#include "families/clip/clip_text_model.h"
#include "families/flux/flux_transformer.h"
#include "families/vae/autoencoder_kl.h"
#include "text/clip_tokenizer.h"

namespace hs::demo {

// bf16 autocast for the forward passes where the CPU has bf16 instructions (oneDNN bf16 matmuls
// ran ~4-5x faster than fp32 there); without them oneDNN's bf16 is ~13x slower than fp32, so the
// passes stay in fp32. Master weights and optimizer state are fp32 either way.
struct AutocastBf16 {
    AutocastBf16();
    ~AutocastBf16();
    AutocastBf16(const AutocastBf16&) = delete;
    AutocastBf16& operator=(const AutocastBf16&) = delete;

private:
    bool m_enabled;
};

struct TrainModels {
    ClipTokenizer tokenizer;
    ClipTextModel textEncoder{nullptr};
    FluxTransformer transformer{nullptr};
    AutoencoderKL vae{nullptr};
    ProbeContext probes{PrecisionPlan(), torch::Device(torch::kCPU), ProbeLevel::Off};
};

// Random initialisation, with the modulation and output layers of the transformer zeroed
// (adaLN-Zero, as DiT trains them), so every block starts as the identity.
TrainModels makeTrainModels(const BpeVocabulary& vocab, const std::string& tokenizerDir);

struct LatentStatistics {
    double scaling = 1, shift = 0;   // latents = (mean - shift) * scaling have unit variance
    std::vector<double> rgbFactors;  // least-squares map [4][3] + bias [3]: latents -> RGB
    double heldOutPsnr = 0;          // decode(encode(x)) on held-out scenes, dB
    // Share of the held-out one-object scenes whose reconstruction reads back (scene_reader.h)
    // as the shape drawn: the ceiling of the whole model's shape rate, since generated latents
    // pass through the same decoder. PSNR hides a rounded corner; this does not.
    double heldOutShapes = 0;
};
// Measured on `scenes` held-out scenes (the trainer's default 256).
LatentStatistics latentStatistics(TrainModels& m, uint64_t seed, int scenes = 256);

// Scenes pre-encoded to scaled latents (the transformer phase's data). Their captions are drawn
// afresh from the training grammar at every step, so each scene is seen in many phrasings.
struct EncodedSet {
    torch::Tensor latents;  // [N, 4, 16, 16] float32, scaled
    std::vector<Scene> scenes;
    torch::Tensor emptyIds;     // [L] int64 tokens of "" (caption dropout)
    torch::Tensor objectCover;  // [N, 1, 16, 16] float32: the share of each latent pixel's area
                                // the scene's objects cover
};
// `vae` draws the latent space: the trained model's own, or a base checkpoint's at its size.
EncodedSet encodeScenes(TrainModels& m, AutoencoderKL& vae, int imageSize, uint64_t seed, int count,
                        double scaling, double shift);

// One batch of the rectified-flow objective: x_t = (1 - t) x0 + t e, target v = e - x0,
// t ~ sigmoid(N(0, 1)); captions dropped to "" with probability `dropout`. The squared error of
// each latent pixel is weighted 1 + (objectWeight - 1) * its object cover: the objects are a few
// percent of a scene, so at weight 1 the background's easy error dominates the loss.
torch::Tensor flowMatchingLoss(TrainModels& m, const EncodedSet& data, int batch, double dropout,
                               double objectWeight = 1);

}  // namespace hs::demo
