#include "reproduce/sampler_names.h"

#include <algorithm>
#include <cctype>
#include <iterator>

namespace hs {

namespace {

// A1111's samplers (sd_samplers_kdiffusion.py, sd_samplers_timesteps.py, sd_samplers_lcm.py):
// label, ComfyUI's name, and the schedule "Automatic" stands for ("" the model's own
// discretization, which is ComfyUI's "normal").
struct A1111Sampler {
    const char* label;
    const char* comfy;
    const char* automatic;
};
const A1111Sampler kSamplers[] = {
    {"DPM++ 2M", "dpmpp_2m", "karras"},
    {"DPM++ SDE", "dpmpp_sde", "karras"},
    {"DPM++ 2M SDE", "dpmpp_2m_sde", "exponential"},
    {"DPM++ 2M SDE Heun", "dpmpp_2m_sde", "exponential"},
    {"DPM++ 2S a", "dpmpp_2s_ancestral", "karras"},
    {"DPM++ 3M SDE", "dpmpp_3m_sde", "exponential"},
    {"Euler a", "euler_ancestral", ""},
    {"Euler", "euler", ""},
    {"LMS", "lms", ""},
    {"Heun", "heun", ""},
    {"DPM2", "dpm_2", "karras"},
    {"DPM2 a", "dpm_2_ancestral", "karras"},
    {"DPM fast", "dpm_fast", ""},
    {"DPM adaptive", "dpm_adaptive", ""},
    {"DDIM", "ddim", ""},
    {"UniPC", "uni_pc", ""},
    {"LCM", "lcm", ""},
    {"DDPM", "ddpm", ""},
    {"IPNDM", "ipndm", ""},
    {"IPNDM_V", "ipndm_v", ""},
    {"DEIS", "deis", ""},
    {"Euler CFG++", "euler_cfg_pp", ""},
    {"Euler a CFG++", "euler_ancestral_cfg_pp", ""},
};

// A1111's schedules (sd_schedulers.py): label, name, ComfyUI's name.
struct A1111Schedule {
    const char* label;
    const char* name;
    const char* comfy;
};
const A1111Schedule kSchedules[] = {
    {"Uniform", "uniform", "normal"},
    {"Karras", "karras", "karras"},
    {"Exponential", "exponential", "exponential"},
    {"Polyexponential", "polyexponential", "polyexponential"},
    {"SGM Uniform", "sgm_uniform", "sgm_uniform"},
    {"SGMUniform", "sgm_uniform", "sgm_uniform"},
    {"KL Optimal", "kl_optimal", "kl_optimal"},
    {"Align Your Steps", "align_your_steps", "align_your_steps"},
    {"Simple", "simple", "simple"},
    {"Normal", "normal", "normal"},
    {"DDIM", "ddim", "ddim_uniform"},
    {"Beta", "beta", "beta"},
};

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool sameName(const std::string& a, const char* b) {
    return lower(a) == lower(b);
}

const A1111Schedule* findSchedule(const std::string& s) {
    for (const A1111Schedule& k : kSchedules)
        if (sameName(s, k.label) || sameName(s, k.name)) return &k;
    return nullptr;
}

const A1111Sampler* findSampler(const std::string& s) {
    for (const A1111Sampler& k : kSamplers)
        if (sameName(s, k.label)) return &k;
    return nullptr;
}

// "euler_cfg_pp" from "Euler CFG++", for a sampler ComfyUI may not have.
std::string snakeName(const std::string& s) {
    std::string out;
    for (char c : lower(s)) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += c;
        else if (c == '+')
            out += 'p';
        else if (!out.empty() && out.back() != '_')
            out += '_';
    }
    while (!out.empty() && out.back() == '_') out.pop_back();
    return out;
}

}  // namespace

ComfySamplerName comfySamplerName(const std::string& samplerField, const std::string& schedule) {
    std::string name = samplerField;
    const A1111Schedule* sched = nullptr;
    const bool automatic = schedule.empty() || sameName(schedule, "Automatic");
    if (!automatic) sched = findSchedule(schedule);
    // "DPM++ 2M Karras": the schedule's label at the end of the name wins, as in A1111 (but a
    // sampler whose own name ends so, "DPM++ 2M SDE Heun" or "DDIM", keeps its name).
    if (!findSampler(name))
        for (const A1111Schedule& k : kSchedules)
            for (const char* suffix : {k.label, k.name}) {
                const std::string tail = std::string(" ") + suffix;
                if (name.size() > tail.size() &&
                    sameName(name.substr(name.size() - tail.size()), tail.c_str())) {
                    name.resize(name.size() - tail.size());
                    sched = &k;
                    break;
                }
            }
    ComfySamplerName out;
    const A1111Sampler* s = findSampler(name);
    out.samplerKnown = s != nullptr;
    out.sampler = s ? s->comfy : snakeName(name);
    if (sched) {
        out.scheduler = sched->comfy;
    } else if (!automatic) {
        out.scheduler = snakeName(schedule);
        out.schedulerKnown = false;
    } else {
        // "Automatic", written (A1111 1.9+) or not (older versions, where a sampler without a
        // schedule in its name used the model's own discretization): the sampler's default
        // only when the field says so.
        const bool written = !schedule.empty();
        out.scheduler = written && s && *s->automatic ? s->automatic : "normal";
    }
    return out;
}

}  // namespace hs
