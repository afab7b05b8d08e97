#include "demo/prompt_following.h"

#include <stdexcept>

#include "pipeline/pipeline.h"

namespace hs::demo {

PromptFollowing evaluatePromptFollowing(Pipeline& pipeline, const EvaluationOptions& o) {
    PromptFollowing tally;
    const RunDefaults size = pipeline.defaults();  // the size the model was trained at
    uint64_t seed = o.firstSeed;
    for (int i = 0; i < o.count; ++seed) {
        const Scene scene = randomScene(seed);
        if (scene.objects.size() != 1) continue;
        const Caption caption = describeScene(scene, seed, o.templates, o.odds);
        RunConfig cfg;
        cfg.prompt = caption.text;
        cfg.seed = uint64_t(i);
        cfg.steps = o.steps;
        cfg.guidance = o.guidance;
        cfg.width = size.width ? size.width : kImageSize;
        cfg.height = size.height ? size.height : kImageSize;
        cfg.probeLevel = ProbeLevel::Off;
        const RunRecord rec = pipeline.run(cfg);
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
