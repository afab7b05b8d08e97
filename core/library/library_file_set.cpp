#include "library/library_file_set.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "denoising/strategy.h"
#include "models/registry.h"

namespace hs {

namespace {

struct SlotText {
    const char* slot;
    std::string ModelFiles::*path;
    const char* what;  // "VAE"
};

const SlotText kSlots[] = {
    {"vae", &ModelFiles::vae, "VAE"},
    {"text_encoder", &ModelFiles::textEncoder, "first text encoder"},
    {"text_encoder_2", &ModelFiles::textEncoder2, "second text encoder"},
};

const SlotText* slotText(const std::string& slot) {
    for (const auto& s : kSlots)
        if (slot == s.slot) return &s;
    return nullptr;
}

// What to pick for a slot, by the model's pipeline: the file names these parts usually have.
std::string hint(const std::string& pipeline, const std::string& slot) {
    const bool flux = pipeline.find("Flux") != std::string::npos;
    if (slot == "vae") return flux ? "pick an ae.safetensors" : "pick a VAE file";
    if (slot == "text_encoder") return flux ? "pick a clip_l.safetensors" : "pick its text encoder";
    if (slot == "text_encoder_2")
        return flux ? "pick a t5xxl (t5xxl_fp16.safetensors)" : "pick its second text encoder";
    return "pick the file holding the " + slot;
}

bool holdsDenoiser(const LibraryEntry& e, std::string* cls, std::string* slot) {
    for (const auto& [s, c] : e.slots) {
        const auto f = FamilyRegistry::global().find(c);
        if (f && f->role == Role::Denoiser) {
            if (cls) *cls = c;
            if (slot) *slot = s;
            return true;
        }
    }
    return false;
}

nlohmann::json configOf(const LibraryEntry& e) {
    try {
        return e.mainConfig.empty() ? nlohmann::json::object()
                                    : nlohmann::json::parse(e.mainConfig);
    } catch (const std::exception&) {
        return nlohmann::json::object();
    }
}

int64_t intOf(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : -1;
}

// Why `part` (filling `slot`) is not a part of `model`, from the converted configs the headers
// gave: "" when it fits or the configs do not tell. The same checks the pipeline makes once
// everything is loaded (denoising/flux_strategy.cpp attach), made before Open, so a VAE of
// another family is refused before gigabytes are read.
std::string misfit(const std::string& pipeline, const LibraryEntry& model, const nlohmann::json& mc,
                   const std::string& slot, const LibraryEntry& part) {
    const nlohmann::json pc = configOf(part);
    const bool flux = model.className == "FluxTransformer2DModel";
    if (slot == "vae") {
        const int64_t latent = intOf(pc, "latent_channels"), in = intOf(mc, "in_channels");
        if (latent <= 0 || in <= 0) return {};
        // FLUX packs 2x2 latent pixels into one token: in_channels = 4 x latent_channels.
        // A UNet takes the latents as they are (inpainting UNets add a mask and masked latents).
        const int64_t takes = flux ? in / 4 : in;
        if (flux ? in == 4 * latent : (in == latent || in == 2 * latent + 1)) return {};
        return part.name + " is a VAE of another family: its latents have " +
               std::to_string(latent) + " channels, " + model.name + " takes " +
               std::to_string(takes) + " (in_channels " + std::to_string(in) + ")" +
               (flux && latent == 4 ? "; it looks like an SD 1.x/SDXL VAE, FLUX.1 needs its "
                                      "16-channel ae.safetensors"
                                    : "; pick the VAE made for " + pipeline);
    }
    if (!flux) return {};
    // FLUX.1: CLIP gives the pooled vector, T5 the token sequence (flux_strategy.cpp attach).
    const char* widthKey = slot == "text_encoder" ? "pooled_projection_dim" : "joint_attention_dim";
    if (slot != "text_encoder" && slot != "text_encoder_2") return {};
    const int64_t want = intOf(mc, widthKey);
    int64_t width = intOf(pc, "hidden_size");
    if (width <= 0) width = intOf(pc, "d_model");
    if (want <= 0 || width <= 0 || want == width) return {};
    return part.name + " gives text features of width " + std::to_string(width) + ", " +
           model.name + " takes " + std::to_string(want) + " (" + widthKey + "): pick the " +
           (slot == "text_encoder" ? "CLIP-L (clip_l.safetensors)"
                                   : "T5-XXL (t5xxl_*.safetensors)") +
           " made for it";
}

// The T5 tokenizer the load will look for beside a T5 file (pipeline/model_sources.cpp: a
// tokenizer_2 folder beside it, the file's own folder, a tokenizer_2 folder beside the model).
// ComfyUI's t5xxl files carry none and Halfscope bundles none, so the load would read every
// weight and then stop: said before Open instead.
bool t5TokenizerBeside(const std::string& t5File, const std::string& modelFile) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path d = fs::path(t5File).parent_path(), m = fs::path(modelFile).parent_path();
    for (const fs::path& c : {d / "tokenizer_2", d, m / "tokenizer_2"})
        if (fs::is_regular_file(c / "spiece.model", ec)) return true;
    return false;
}

}  // namespace

LibraryFileSet assembleFileSet(const std::vector<LibraryEntry>& picked) {
    LibraryFileSet set;
    if (picked.empty()) {
        set.error = "nothing picked";
        return set;
    }
    const LibraryEntry* model = nullptr;
    std::string denoiserClass, denoiserSlot;
    for (const auto& e : picked) {
        if (!e.error.empty()) {
            set.error = e.name + " cannot be read: " + e.error;
            return set;
        }
        std::string cls, slot;
        if (!holdsDenoiser(e, &cls, &slot)) continue;
        if (model) {
            set.error = model->name + " and " + e.name +
                        " both hold a denoiser (the model itself): pick one";
            return set;
        }
        model = &e;
        denoiserClass = cls;
        denoiserSlot = slot;
    }
    if (!model) {
        set.error =
            "no denoiser (a transformer or UNet, such as flux1-dev.safetensors) among the "
            "picks: pick the model file";
        return set;
    }
    set.model = model->path;
    // Slots the picks fill: the model's own (an SD checkpoint holds all), then the others'.
    std::map<std::string, std::string> filled;          // slot -> entry name
    std::map<std::string, const LibraryEntry*> donors;  // slot -> the picked file giving it
    for (const auto& [slot, cls] : model->slots) filled[slot] = model->name;
    for (const auto& e : picked) {
        if (&e == model) continue;
        bool used = false;
        for (const auto& [slot, cls] : e.slots) {
            const SlotText* t = slotText(slot);
            if (!t) continue;
            auto it = filled.find(slot);
            if (it != filled.end() && it->second != model->name) {
                set.error =
                    it->second + " and " + e.name + " both hold the " + t->what + ": pick one";
                return set;
            }
            filled[slot] = e.name;
            donors[slot] = &e;
            set.with.*(t->path) = e.path;
            used = true;
        }
        if (!used) {
            set.error = e.name + " holds no VAE or text encoder a file set takes";
            return set;
        }
    }
    // The parts the model's pipeline needs, from its strategy's slots.
    try {
        const auto& strategies = StrategyRegistry::global();
        const nlohmann::json config = model->mainConfig.empty()
                                          ? nlohmann::json::object()
                                          : nlohmann::json::parse(model->mainConfig);
        set.pipeline = strategies.pipelineClassFor(denoiserClass, config);
        if (set.pipeline.empty()) return set;
        for (const auto& [slot, part] : donors) {
            const std::string why = misfit(set.pipeline, *model, config, slot, *part);
            if (!why.empty()) {
                set.error = why;
                return set;
            }
        }
        for (const auto& s : strategies.make(set.pipeline, model->name)->componentSlots()) {
            if (!s.model || s.name == denoiserSlot || filled.count(s.name)) continue;
            const SlotText* t = slotText(s.name);
            const std::string what = t ? t->what : s.name;
            const std::string line = "no " + what + ": " + hint(set.pipeline, s.name);
            (s.required ? set.missing : set.optional)
                .push_back(line + (s.required ? "" : " (optional)"));
        }
        const auto t5 = donors.find("text_encoder_2");
        if (t5 != donors.end() && t5->second->className.rfind("T5", 0) == 0 &&
            !t5TokenizerBeside(t5->second->path, model->path))
            set.missing.push_back("no T5 tokenizer beside " + t5->second->name +
                                  ": put its spiece.model there, or a tokenizer_2 folder "
                                  "holding it (ComfyUI's T5 files come without one)");
    } catch (const std::exception& e) {
        set.error = std::string("cannot tell which parts the model needs: ") + e.what();
    }
    return set;
}

}  // namespace hs
