#include "library/library_file_set.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "denoising/strategy.h"
#include "models/registry.h"

namespace hs {

namespace {

// The file-set row of a weight slot ("vae", "text_encoder_2"), or null.
const ModelFileSlot* weightSlot(const std::string& slot) {
    const ModelFileSlot* row = modelFileSlot(slot);
    return row && !row->tokenizer ? row : nullptr;
}

// What to pick for a slot: the file name the model's pipeline usually has there.
std::string hint(const StrategyInfo* info, const std::string& slot, const std::string& what) {
    if (!info || !info->usualFiles.count(slot)) return "pick its " + what;
    const std::string& file = info->usualFiles.at(slot);
    return (file.find_first_of("aeiou") == 0 ? "pick an " : "pick a ") + file;
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

// The tokenizer the load will look for beside a text encoder file (pipeline/model_sources.cpp:
// a tokenizer(_N) folder beside it, the file's own folder, a tokenizer(_N) folder beside the
// model) when its family reads one and Halfscope bundles none (ComfyUI's t5xxl files carry none),
// so the load would read every weight and then stop: "" when it is there or not needed.
std::string missingTokenizer(const std::string& slot, const LibraryEntry& encoder,
                             const std::string& modelFile) {
    namespace fs = std::filesystem;
    const auto it = encoder.slots.find(slot);
    const auto family = FamilyRegistry::global().find(it != encoder.slots.end() ? it->second : "");
    const ModelFileSlot* tok = modelFileSlot("tokenizer" + slot.substr(12));
    if (!family || !tok || family->tokenizer.className.empty() || !family->tokenizer.bundled.empty())
        return {};
    std::error_code ec;
    const fs::path d = fs::path(encoder.path).parent_path(),
                   m = fs::path(modelFile).parent_path();
    for (const fs::path& c : {d / tok->slot, d, m / tok->slot})
        for (const auto& marker : family->tokenizer.markers)
            if (fs::is_regular_file(c / marker, ec)) return {};
    return "no " + family->tokenizer.what + " beside " + encoder.name + ": put its " +
           family->tokenizer.markers.front() + " there, or a " + tok->slot +
           " folder holding it (ComfyUI's files come without one)";
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
            const ModelFileSlot* t = weightSlot(slot);
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
        const auto info = strategies.info(set.pipeline);
        for (const auto& [slot, part] : donors) {
            const std::string why =
                info && info->partMisfit
                    ? info->partMisfit({slot, part->name, model->name, config, configOf(*part)})
                    : std::string();
            if (!why.empty()) {
                set.error = why;
                return set;
            }
        }
        for (const auto& s : strategies.make(set.pipeline, model->name)->componentSlots()) {
            if (!s.model || s.name == denoiserSlot || filled.count(s.name)) continue;
            const ModelFileSlot* t = weightSlot(s.name);
            const std::string what = t ? t->what : s.name;
            const std::string line = "no " + what + ": " + hint(info.get(), s.name, what);
            (s.required ? set.missing : set.optional)
                .push_back(line + (s.required ? "" : " (optional)"));
        }
        for (const auto& [slot, part] : donors) {
            if (slot.rfind("text_encoder", 0) != 0) continue;
            const std::string why = missingTokenizer(slot, *part, model->path);
            if (!why.empty()) set.missing.push_back(why);
        }
    } catch (const std::exception& e) {
        set.error = std::string("cannot tell which parts the model needs: ") + e.what();
    }
    return set;
}

}  // namespace hs
