#pragma once
// How people describe a demo scene: a small grammar of caption templates with optional
// attributes, synonyms, adjective order, distractor words, capitals and punctuation. The trainer
// draws from the training templates only; the held-out templates are kept for evaluate-demo, so
// a model that memorised one phrasing cannot pass it. std only.
#include <cstdint>
#include <string>
#include <vector>

#include "demo/world.h"

namespace hs::demo {

enum class TemplateSet { Training, HeldOut };

// Templates hold "{objs}" (the objects with their optional sizes and positions) and, where the
// background is stated, "{bg}" (its colour word).
const std::vector<std::string>& captionTemplates(TemplateSet set);

// What a caption says about its scene; an attribute it does not state is left to chance.
struct Caption {
    std::string text;
    bool backgroundStated = false;
    std::vector<bool> sizeStated;      // per object
    std::vector<bool> positionStated;  // per object
};

struct PhrasingOdds {
    double size = 0.6;        // each object's size stated
    double position = 0.7;    // each object's position stated
    double background = 0.8;  // the background stated
};

// A caption of `scene` from `set`, phrased at random by `seed`.
Caption describeScene(const Scene& scene, uint64_t seed, TemplateSet set,
                      const PhrasingOdds& odds = {});

// Every word the grammar can write (training and held-out templates), punctuation included.
std::vector<std::string> grammarWords();

}  // namespace hs::demo
