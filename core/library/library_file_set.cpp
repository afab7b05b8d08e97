#include "library/library_file_set.h"

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
    std::map<std::string, std::string> filled;  // slot -> entry name
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
        for (const auto& s : strategies.make(set.pipeline, model->name)->componentSlots()) {
            if (!s.model || s.name == denoiserSlot || filled.count(s.name)) continue;
            const SlotText* t = slotText(s.name);
            const std::string what = t ? t->what : s.name;
            const std::string line = "no " + what + ": " + hint(set.pipeline, s.name);
            (s.required ? set.missing : set.optional)
                .push_back(line + (s.required ? "" : " (optional)"));
        }
    } catch (const std::exception& e) {
        set.error = std::string("cannot tell which parts the model needs: ") + e.what();
    }
    return set;
}

}  // namespace hs
