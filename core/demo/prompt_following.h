#pragma once
// The demo model's prompt-following check: generate held-out single-object scenes from their
// captions and read the pictures back (scene_reader.h).
#include <cstdint>
#include <functional>

#include "demo/dataset.h"
#include "demo/scene_reader.h"

namespace hs {
class Pipeline;
}

namespace hs::demo {

struct EvaluationOptions {
    int count = 100;  // single-object scenes to generate
    int steps = 20;
    double guidance = 4.0;
    // Scenes come from seeds firstSeed, firstSeed + 1, ... (two-object ones are skipped);
    // training never draws seeds at or past kHeldOutSeedBase.
    uint64_t firstSeed = kHeldOutSeedBase + 1000000000ull;
    std::function<void(int index, const Scene&, const SceneReading&)> onScene;  // progress
};

PromptFollowing evaluatePromptFollowing(Pipeline& pipeline, const EvaluationOptions& options);

}  // namespace hs::demo
