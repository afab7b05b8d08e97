#include "families/clip/clip_run.h"

#include "families/clip/clip_family.h"

namespace hs {

NamedTensors runClipText(ClipTextModel& model, const NamedTensors& inputs, ProbeContext& probes) {
    ClipTextComponent component(model);  // shares the module
    return component.run(inputs, probes);
}

}  // namespace hs
