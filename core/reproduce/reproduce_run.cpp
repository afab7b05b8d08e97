#include "reproduce/reproduce_run.h"

#include <algorithm>
#include <limits>

namespace hs {

namespace {

std::string number(double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

template <class T>
int clampedInt(T v) {
    return int(std::clamp<int64_t>(int64_t(v), std::numeric_limits<int>::min(),
                                   std::numeric_limits<int>::max()));
}

}  // namespace

std::vector<std::string> applyImageSettings(const ReproduceSettings& s, const GivenOptions& given,
                                            RunConfig& cfg) {
    std::vector<std::string> notes;
    auto take = [&](const char* option) { return !given.count(option); };
    if (take("prompt")) cfg.prompt = s.prompt;
    if (take("negative")) cfg.negativePrompt = s.negativePrompt;
    if (take("seed") && s.seed.is_number_unsigned()) cfg.seed = s.seed.get<uint64_t>();
    if (take("seed") && s.seed.is_number_integer() && !s.seed.is_number_unsigned())
        cfg.seed = uint64_t(s.seed.get<int64_t>());  // a negative seed: its two's complement
    if (take("steps") && s.steps) cfg.steps = clampedInt(*s.steps);
    if (take("width") && s.width) cfg.width = clampedInt(*s.width);
    if (take("height") && s.height) cfg.height = clampedInt(*s.height);
    if (take("guidance")) {
        if (s.guidance) {
            cfg.guidance = *s.guidance;
            if (s.cfg && *s.cfg != 1.0)
                notes.push_back("the image's CFG " + number(*s.cfg) +
                                " is not applied: the run's guidance is its distilled guidance " +
                                number(*s.guidance));
        } else if (s.cfg) {
            cfg.guidance = *s.cfg;
        }
    }
    if (take("shift") && s.shift) cfg.shift = *s.shift;
    if (s.maxShift || s.baseShift)
        notes.push_back(
            "ModelSamplingFlux's max_shift / base_shift are not applied: the scheduler config's "
            "are used");
    if (s.denoise && *s.denoise != 1.0)
        notes.push_back("denoise " + number(*s.denoise) +
                        " is not applied: the run starts from noise (denoise 1)");
    if (s.stages > 1)
        notes.push_back("the first of the image's " + std::to_string(s.stages) +
                        " sampling stages is reproduced");
    return notes;
}

std::vector<std::string> applyImageSampler(
    const ReproduceSettings& s, const GivenOptions& given,
    const std::vector<std::pair<std::string, std::string>>& choices, RunConfig& cfg) {
    std::vector<std::string> notes;
    if (given.count("scheduler") || s.sampler.empty()) return notes;
    if (!choices.empty()) {
        // A model with a choice of samplers (Stable Diffusion) runs ComfyUI's own: the run notes
        // a sampler or scheduler it does not implement and the one it ran instead.
        cfg.comfySampler = s.sampler;
        cfg.comfyScheduler = s.scheduler;
        return notes;
    }
    // A flow model runs its own FlowMatch Euler. FLUX.1's, Qwen-Image's and Anima's steps
    // t = 1, 1 - 1/N, ..., 1/N, shifted, are what ComfyUI's simple schedule picks from the same
    // shifted table; its other schedules space the steps otherwise.
    const std::string asked = s.sampler + (s.scheduler.empty() ? "" : " + " + s.scheduler);
    std::string what;
    if (s.sampler == "euler" && s.scheduler == "simple")
        what =
            " ran as the model's FlowMatch Euler scheduler, whose steps (t = 1 .. 1/N, shifted "
            "as its scheduler config says) are ComfyUI's simple schedule for FLUX.1, "
            "Qwen-Image and Anima";
    else if (s.sampler == "euler")
        what = " ran as the model's FlowMatch Euler scheduler on its own steps, not ComfyUI's " +
               (s.scheduler.empty() ? std::string("schedule") : s.scheduler + " schedule");
    else
        what = " is not implemented for this model: its FlowMatch Euler scheduler ran";
    notes.push_back("the image's sampler " + asked + what);
    return notes;
}

}  // namespace hs
