#pragma once
// The demo model's prompt-following check through the whole pipeline: generate held-out
// single-object scenes from captions of one template set and read the pictures back. Above the
// pipeline (it runs one), so it is not part of demo/, which the denoising strategies use.
#include <cstdint>
#include <functional>
#include <string>

#include "demo/caption_grammar.h"
#include "demo/dataset.h"
#include "demo/prompt_following.h"
#include "demo/scene_reader.h"
#include "records/run_types.h"

namespace hs {
class Pipeline;
}

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

// A run of `prompt` as the evaluation makes them: the options' steps and guidance, the model's
// own image size (its VAE's sample_size), no probes.
RunConfig evaluationRun(const Pipeline& pipeline, const std::string& prompt, uint64_t seed,
                        const EvaluationOptions& options);

}  // namespace hs::demo
