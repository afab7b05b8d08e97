#include "diagnosis/run_timeline.h"

#include <climits>

#include "diagnosis/blocks.h"
#include "records/run_types.h"

namespace hs {

std::string denoiserComponent(const RunRecord& run) {
    const ComponentInfo* c = componentWithRole(run.components, Role::Denoiser);
    return c ? c->name : std::string();
}

std::string vaeComponent(const RunRecord& run) {
    const ComponentInfo* c = componentWithRole(run.components, Role::Vae);
    return c ? c->name : std::string();
}

std::vector<TimelineEntry> runTimeline(const RunRecord& run) {
    std::vector<TimelineEntry> out;
    const std::string denoiser = denoiserComponent(run);
    const std::string vae = vaeComponent(run);
    bool textDone = false;
    size_t nextStep = 0;
    auto emitText = [&] {
        if (textDone) return;
        textDone = true;
        if (run.textEmbedding.count == 0) return;  // not recorded
        TimelineEntry e;
        e.kind = TimelineEntry::Kind::TextEmbedding;
        e.point = "text_embedding";
        const ComponentInfo* c = componentWithRole(run.components, Role::TextEncoder);
        e.component = c ? c->name : std::string();
        e.stats = &run.textEmbedding;
        out.push_back(e);
    };
    // Latents of every step recorded before `step` (steps are stored in sampling order).
    auto emitStepsBefore = [&](int step) {
        while (nextStep < run.steps.size() && run.steps[nextStep].step < step) {
            TimelineEntry e;
            e.kind = TimelineEntry::Kind::Latents;
            e.stepIndex = nextStep;
            e.step = run.steps[nextStep].step;
            e.point = "latents";
            e.component = denoiser;
            e.stats = &run.steps[nextStep].latent;
            out.push_back(e);
            ++nextStep;
        }
    };
    bool seenStep = false;
    bool afterLoop = false;
    for (size_t i = 0; i < run.probes.size(); ++i) {
        const ProbeRecord& p = run.probes[i];
        const std::string comp = componentOf(p.name);
        if (p.step >= 0) {
            emitText();
            emitStepsBefore(p.step);
            seenStep = true;
        } else if (seenStep || comp == vae) {
            // Step -1 after the loop (or a VAE point of a run without steps): the decode.
            emitText();
            emitStepsBefore(INT_MAX);
            afterLoop = true;
        }
        TimelineEntry e;
        e.kind = TimelineEntry::Kind::Probe;
        e.afterLoop = afterLoop && p.step < 0;
        e.probeIndex = i;
        e.step = p.step;
        e.point = p.name;
        e.component = comp;
        e.stats = &p.stats;
        out.push_back(e);
    }
    emitText();
    emitStepsBefore(INT_MAX);
    if (run.image.count > 0) {
        TimelineEntry e;
        e.kind = TimelineEntry::Kind::Image;
        e.afterLoop = true;
        e.point = "image";
        e.component = vae;
        e.stats = &run.image;
        out.push_back(e);
    }
    return out;
}

}  // namespace hs
