#pragma once
// Reading the demo model's pictures back (scene_reader.h) into prompt-following tallies, for
// batches and for the VAE alone. Running the whole pipeline on held-out captions is
// evaluation/demo_prompts.h, above the pipeline.
#include <cstdint>

#include "demo/caption_grammar.h"
#include "demo/dataset.h"
#include "demo/scene_reader.h"

namespace hs {
class AutoencoderKLImpl;
}  // namespace hs

namespace hs::demo {

// Reads back the one-object scenes of `batch` from `pictures` ([B, 3, S, S] in [-1, 1], one per
// scene) into `tally`, every attribute counted as stated.
void addReadings(PromptFollowing& tally, const Batch& batch, const torch::Tensor& pictures);

// The VAE alone, on `count` scenes from seed `firstSeed` on at its sample_size: each encoded (the
// mean) and decoded, the pictures read back. The whole model's rates cannot pass these, since
// its pictures come out of the same decoder: a shape lost here is the VAE's, not the transformer's.
PromptFollowing vaeReadBack(AutoencoderKLImpl& vae, int count, uint64_t firstSeed);

}  // namespace hs::demo
