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
    // ModelSamplingFlux's line; a ComfyUI FLUX.1 graph without the node samples at its model's
    // default, mu 1.15 whatever the size: the line made flat there.
    if (s.maxShift || s.baseShift) {
        cfg.maxShift = s.maxShift.value_or(1.15);
        cfg.baseShift = s.baseShift.value_or(0.5);
    } else if (s.source == ReproduceSource::ComfyUI && s.family == "flux") {
        cfg.maxShift = cfg.baseShift = 1.15;
    }
    if (s.denoise && *s.denoise != 1.0)
        notes.push_back("denoise " + number(*s.denoise) +
                        " is not applied: the run starts from noise (denoise 1)");
    if (s.stages > 1)
        notes.push_back("the first of the image's " + std::to_string(s.stages) +
                        " sampling stages is reproduced");
    return notes;
}

std::vector<std::string> applyImageSampler(const ReproduceSettings& s, const GivenOptions& given,
                                           bool comfySamplers, RunConfig& cfg) {
    if (given.count("scheduler") || s.sampler.empty()) return {};
    if (comfySamplers) {
        cfg.comfySampler = s.sampler;
        cfg.comfyScheduler = s.scheduler;
        return {};
    }
    const std::string asked = s.sampler + (s.scheduler.empty() ? "" : " + " + s.scheduler);
    return {"the image's sampler " + asked + " does not run on this model: its own scheduler ran"};
}

}  // namespace hs
