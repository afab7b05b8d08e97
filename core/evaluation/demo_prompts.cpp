#include "evaluation/demo_prompts.h"

#include <stdexcept>

#include "pipeline/pipeline.h"

namespace hs::demo {

RunConfig evaluationRun(const Pipeline& pipeline, const std::string& prompt, uint64_t seed,
                        const EvaluationOptions& o) {
    const RunDefaults own = pipeline.defaults();
    RunConfig cfg;
    cfg.prompt = prompt;
    cfg.seed = seed;
    cfg.steps = o.steps;
    cfg.guidance = o.guidance;
    cfg.width = own.width ? own.width : kImageSize;
    cfg.height = own.height ? own.height : kImageSize;
    cfg.probeLevel = ProbeLevel::Off;
    return cfg;
}

PromptFollowing evaluatePromptFollowing(Pipeline& pipeline, const EvaluationOptions& o) {
    PromptFollowing tally;
    uint64_t seed = o.firstSeed;
    for (int i = 0; i < o.count; ++seed) {
        const Scene scene = randomScene(seed);
        if (scene.objects.size() != 1) continue;
        const Caption caption = describeScene(scene, seed, o.templates, o.odds);
        const RunRecord rec = pipeline.run(evaluationRun(pipeline, caption.text, uint64_t(i), o));
        if (!rec.savedImage) throw std::runtime_error("the run produced no image: " + rec.error);
        const SceneReading got = readScene(rec.savedImage->rgb, rec.savedImage->width);
        tally.add(scene.objects[0], scene.background, got, caption.backgroundStated,
                  caption.positionStated[0], caption.sizeStated[0]);
        if (o.onScene) o.onScene(i, scene, caption.text, got);
        ++i;
    }
    return tally;
}

}  // namespace hs::demo
