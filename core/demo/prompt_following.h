#pragma once
// The demo model's prompt-following check: generate held-out single-object scenes from captions
// of one template set and read the pictures back (scene_reader.h).
#include <cstdint>
#include <functional>
#include <string>

#include "demo/caption_grammar.h"
#include "demo/dataset.h"
#include "demo/scene_reader.h"
#include "records/run_types.h"

namespace hs {
class Pipeline;
class AutoencoderKLImpl;
}  // namespace hs

namespace hs::demo {

struct EvaluationOptions {
    int count = 100;  // single-object scenes to generate
    int steps = 20;
    double guidance = 4.0;
    // Held-out templates test phrasings the trainer never drew; the training grammar, new
    // scenes in familiar phrasings.
    TemplateSet templates = TemplateSet::HeldOut;
    PhrasingOdds odds;
    // Scenes come from seeds firstSeed, firstSeed + 1, ... (two-object ones are skipped);
    // training never draws seeds at or past kHeldOutSeedBase.
    uint64_t firstSeed = kHeldOutSeedBase + 1000000000ull;
    // Progress: the scene, the prompt it was asked with and what was read back.
    std::function<void(int index, const Scene&, const std::string& prompt, const SceneReading&)>
        onScene;
};

PromptFollowing evaluatePromptFollowing(Pipeline& pipeline, const EvaluationOptions& options);

// Reads back the one-object scenes of `batch` from `pictures` ([B, 3, S, S] in [-1, 1], one per
// scene) into `tally`, every attribute counted as stated.
void addReadings(PromptFollowing& tally, const Batch& batch, const torch::Tensor& pictures);

// The VAE alone, on `count` scenes from seed `firstSeed` on at its sample_size: each encoded (the
// mean) and decoded, the pictures read back. The whole model's rates cannot pass these, since
// its pictures come out of the same decoder: a shape lost here is the VAE's, not the transformer's.
PromptFollowing vaeReadBack(AutoencoderKLImpl& vae, int count, uint64_t firstSeed);

// A run of `prompt` as the evaluation makes them: the options' steps and guidance, the model's
// own image size (its VAE's sample_size), no probes.
RunConfig evaluationRun(const Pipeline& pipeline, const std::string& prompt, uint64_t seed,
                        const EvaluationOptions& options);

}  // namespace hs::demo
