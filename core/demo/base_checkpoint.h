#pragma once
// A trained demo pipeline folder (as exportDemoPipeline writes it) as the starting point of a
// refit: the trainer keeps its transformer and its latent space, and gives it a text encoder over
// another vocabulary and a VAE of another depth (trainer.h).
#include <string>
#include <vector>

#include "demo/train_models.h"
#include "models/common/weights.h"

namespace hs::demo {

struct BaseCheckpoint {
    WeightMap textEncoder;     // fp32, over the base tokenizer's vocabulary
    WeightMap transformer;     // fp32, residual scaling undone
    double residualScale = 1;  // the power of two the transformer's writers were divided by
    ClipTokenizer tokenizer;
    WeightMap vaeWeights;  // fp32, the decoder's residual scaling undone
    double vaeResidualScale = 1;
    AutoencoderKL vae{nullptr};  // these weights; its encoder defines the latent space
    int imageSize = 0;           // the base VAE's sample_size
    double scaling = 1, shift = 0;
    std::vector<double> rgbFactors;
    // The "## Training" section of the base's README.md (its recipe; "" without one), its own
    // subsections one level deeper, so a chain of refits nests.
    std::string training;
};

// Throws std::runtime_error naming the file for a folder that is not a demo pipeline, or whose
// transformer does not fit the demo's transformer config.
BaseCheckpoint loadBaseCheckpoint(const std::string& dir);

// The VAE of a demo pipeline folder in fp32, its residual scaling kept (fp32 holds it).
AutoencoderKL loadFolderVae(const std::string& dir);

// Copies the base text encoder into `target`, an encoder of the same shape over `tokenizer`'s
// vocabulary: every weight as it is but the token embedding, whose rows follow the token
// strings. A token new to the vocabulary starts from its synonym's row where the base knows the
// synonym ("big" from "large"), otherwise from the base rows' mean. Returns how many rows came
// from the base by string.
int transplantTextEncoder(const BaseCheckpoint& base, const ClipTokenizer& tokenizer,
                          ClipTextModel& target);

// Grows the base VAE into `target`, an AutoencoderKL of the same channels with levels added in
// front (base [32, 64, 96], target [32, 32, 64, 96]): the encoder's new first level and the
// decoder's new last level (and the upsampler before it) start as the identity (resnets with
// conv2 zeroed, samplers with an identity kernel), everything else as the base has it. The
// grown VAE then works at twice the base's size on the same latents from the start. Returns
// how many tensors came from the base.
int growVae(const BaseCheckpoint& base, AutoencoderKL& target);

}  // namespace hs::demo
