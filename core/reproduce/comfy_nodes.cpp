#include "reproduce/comfy_nodes.h"

#include <algorithm>
#include <cctype>

namespace hs {

namespace {

struct NamePair {
    const char* node;
    const char* name;
};

// comfy_extras/nodes_custom_sampler.py: the sampler nodes with settings of their own.
const NamePair kSamplerNodes[] = {
    {"SamplerEulerAncestral", "euler_ancestral"},
    {"SamplerEulerAncestralCFGPP", "euler_ancestral_cfg_pp"},
    {"SamplerLMS", "lms"},
    {"SamplerDPMPP_2M_SDE", "dpmpp_2m_sde"},
    {"SamplerDPMPP_3M_SDE", "dpmpp_3m_sde"},
    {"SamplerDPMPP_SDE", "dpmpp_sde"},
    {"SamplerDPMPP_2S_Ancestral", "dpmpp_2s_ancestral"},
    {"SamplerDPMAdaptative", "dpm_adaptive"},
    {"SamplerER_SDE", "er_sde"},
    {"SamplerSASolver", "sa_solver"},
};

// The sigma schedule nodes (BasicScheduler is read for its own `scheduler`).
const NamePair kSchedulerNodes[] = {
    {"KarrasScheduler", "karras"},
    {"ExponentialScheduler", "exponential"},
    {"PolyexponentialScheduler", "polyexponential"},
    {"LaplaceScheduler", "laplace"},
    {"VPScheduler", "vp"},
    {"BetaSamplingScheduler", "beta"},
    {"SDTurboScheduler", "sd_turbo"},
    {"AlignYourStepsScheduler", "align_your_steps"},
    {"GITSScheduler", "gits"},
    {"OptimalStepsScheduler", "optimal_steps"},
};

const char* lookup(const NamePair* begin, const NamePair* end, const std::string& type) {
    const auto it = std::find_if(begin, end, [&](const NamePair& p) { return type == p.node; });
    return it == end ? nullptr : it->name;
}

bool has(const ComfyNode& n, const char* input) {
    return n.inputs.contains(input);
}

bool contains(const std::string& s, const char* part) {
    return s.find(part) != std::string::npos;
}

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

const char* const kKnownNodes[] = {
    // sampling
    "KSampler",
    "KSamplerAdvanced",
    "SamplerCustom",
    "SamplerCustomAdvanced",
    "RandomNoise",
    "DisableNoise",
    "KSamplerSelect",
    "BasicScheduler",
    "KarrasScheduler",
    "ExponentialScheduler",
    "BetaSamplingScheduler",
    "BasicGuider",
    "CFGGuider",
    // model sampling
    "ModelSamplingFlux",
    "ModelSamplingSD3",
    "ModelSamplingAuraFlow",
    // prompts
    "CLIPTextEncode",
    "CLIPTextEncodeSDXL",
    "CLIPTextEncodeSDXLRefiner",
    "CLIPTextEncodeFlux",
    "CLIPTextEncodeSD3",
    "FluxGuidance",
    "ConditioningZeroOut",
    "CLIPSetLastLayer",
    // loaders
    "CheckpointLoaderSimple",
    "UNETLoader",
    "CLIPLoader",
    "DualCLIPLoader",
    "TripleCLIPLoader",
    "QuadrupleCLIPLoader",
    "VAELoader",
    // latents, decoding, output; between stages
    "EmptyLatentImage",
    "EmptySD3LatentImage",
    "EmptyHunyuanLatentVideo",
    "EmptyCosmosLatentVideo",
    "EmptyHunyuanImageLatent",
    "VAEDecode",
    "VAEDecodeTiled",
    "SaveImage",
    "PreviewImage",
    "LatentUpscale",
    "LatentUpscaleBy",
    // values, and what only the UI graph holds
    "PrimitiveInt",
    "PrimitiveFloat",
    "PrimitiveString",
    "PrimitiveStringMultiline",
    "PrimitiveBoolean",
    "PrimitiveNode",
    "Reroute",
    "Note",
    "MarkdownNote",
};

}  // namespace

bool isSamplerNode(const ComfyNode& n) {
    return n.type == "KSampler" || n.type == "KSamplerAdvanced" || n.type == "SamplerCustom" ||
           n.type == "SamplerCustomAdvanced";
}

bool isEmptyLatentNode(const ComfyNode& n) {
    return n.type.rfind("Empty", 0) == 0 && contains(n.type, "Latent") && has(n, "width") &&
           has(n, "height");
}

const char* primitiveValueInput(const ComfyNode& n) {
    // PrimitiveInt/Float/String/Boolean: "value"; seed nodes: "seed"; literal nodes: "int" ...
    for (const char* in : {"value", "seed", "noise_seed", "int", "float", "number", "string"})
        if (has(n, in)) return in;
    return nullptr;
}

const char* samplerOfNode(const std::string& type) {
    return lookup(std::begin(kSamplerNodes), std::end(kSamplerNodes), type);
}

const char* schedulerOfNode(const std::string& type) {
    return lookup(std::begin(kSchedulerNodes), std::end(kSchedulerNodes), type);
}

TextEncoderInputs textEncoderOf(const ComfyNode& n) {
    const std::string& t = n.type;
    if (t == "CLIPTextEncode" || t == "CLIPTextEncodeSDXLRefiner") return {"text"};
    if (t == "CLIPTextEncodeSDXL") return {"text_g", "text_l"};
    if (t == "CLIPTextEncodeFlux") return {"t5xxl", "clip_l", "guidance"};
    if (t == "CLIPTextEncodeSD3") return {"t5xxl", "clip_l"};
    // Read, but not what Halfscope runs: listed as unsupported.
    if (t == "CLIPTextEncodeHunyuanDiT") return {"bert", "mt5xl", nullptr, false};
    if (t == "CLIPTextEncodeLumina2") return {"user_prompt", nullptr, nullptr, false};
    // An encoder of some other kind: its text, when it has one and no conditioning input.
    if (!has(n, "conditioning")) {
        if (has(n, "text")) return {"text", nullptr, nullptr, false};
        if (has(n, "prompt")) return {"prompt", nullptr, nullptr, false};
    }
    return {};
}

std::vector<std::string> loaderFileInputs(const ComfyNode& n) {
    std::vector<std::string> out;
    if (!contains(n.type, "Loader")) return out;
    // ckpt_name, vae_name, lora_name ...; DualCLIPLoader's clip_name1, clip_name2 ...
    for (const auto& [name, v] : n.inputs.items()) {
        const size_t at = name.rfind("_name");
        if (at != std::string::npos && std::all_of(name.begin() + at + 5, name.end(),
                                                   [](char c) { return c >= '0' && c <= '9'; }))
            out.push_back(name);
    }
    return out;
}

bool isKnownNode(const std::string& type) {
    return std::any_of(std::begin(kKnownNodes), std::end(kKnownNodes),
                       [&](const char* k) { return type == k; });
}

FamilyHint familyHint(const ComfyNode& n) {
    if (contains(n.type, "CLIPLoader")) {
        const auto it = n.inputs.find("type");
        // "stable_diffusion" is the type of any single CLIP-L: SD 1.x, but not only.
        if (it != n.inputs.end() && it->is_string() && *it != "stable_diffusion")
            return {it->get<std::string>(), true};
    }
    if (n.type == "ModelSamplingFlux" || n.type == "FluxGuidance" || n.type == "CLIPTextEncodeFlux")
        return {"flux", false};
    if (n.type == "CLIPTextEncodeSDXL") return {"sdxl", false};
    if (n.type == "CheckpointLoaderSimple") {
        const auto it = n.inputs.find("ckpt_name");
        if (it != n.inputs.end() && it->is_string()) {
            const std::string name = lower(it->get<std::string>());
            if (contains(name, "sd_xl") || contains(name, "sdxl")) return {"sdxl", false};
        }
    }
    return {};
}

}  // namespace hs
