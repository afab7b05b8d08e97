#pragma once
// An image's settings (reproduce_settings.h) onto a run: prompt, seed, steps, guidance, size and
// shift before the model loads, the sampler once its choices are known. What Halfscope runs
// otherwise than the image says is returned as notes, one sentence each, for the record.
#include <set>
#include <string>
#include <vector>

#include "records/run_types.h"
#include "reproduce/reproduce_settings.h"

namespace hs {

// The run options a user may give over the image's (reproduce's command line, the studio's
// panels): "prompt", "negative", "seed", "steps", "guidance", "width", "height", "shift",
// "scheduler".
using GivenOptions = std::set<std::string>;

// The settings the image gives, except those in `given`. The guidance is Flux's distilled one
// when the image has it (its CFG, 1 in such graphs, is then not applied: said in a note), else
// the CFG. Sizes and steps out of Halfscope's bounds are left to the pipeline's checks.
std::vector<std::string> applyImageSettings(const ReproduceSettings& s, const GivenOptions& given,
                                            RunConfig& cfg);

// The image's ComfyUI sampler and scheduler onto the run, unless "scheduler" is in `given`: a
// model whose runs take ComfyUI's samplers (RunDefaults::comfySamplers: Stable Diffusion and the
// flow-matching families) runs them as ComfyUI computes them (cfg.comfySampler,
// cfg.comfyScheduler; the run notes a name it does not implement and the one it ran instead);
// another runs its own scheduler, said in the returned note.
std::vector<std::string> applyImageSampler(const ReproduceSettings& s, const GivenOptions& given,
                                           bool comfySamplers, RunConfig& cfg);

}  // namespace hs
