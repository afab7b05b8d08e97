#pragma once
// A1111/Forge sampler and schedule names in ComfyUI's vocabulary: "DPM++ 2M Karras" ->
// dpmpp_2m + karras, "Euler a" -> euler_ancestral + normal. As A1111's
// sd_samplers.get_sampler_and_scheduler reads them: a schedule's label at the end of the sampler
// name, or the "Schedule type" field (A1111 1.9+, Forge); "Automatic" is the sampler's own
// default schedule.
#include <string>

namespace hs {

struct ComfySamplerName {
    std::string sampler;    // ComfyUI's; the A1111 name lowercased when ComfyUI has none
    std::string scheduler;  // ComfyUI's
    bool samplerKnown = true;
    bool schedulerKnown = true;
};

// `sampler`: the infotext's "Sampler"; `schedule`: its "Schedule type", "" when absent.
ComfySamplerName comfySamplerName(const std::string& sampler, const std::string& schedule);

}  // namespace hs
