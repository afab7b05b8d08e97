#include "library/library_file_set.h"

#include <filesystem>
#include <memory>
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
    if (!family || !tok || family->tokenizer.className.empty() ||
        !family->tokenizer.bundled.empty())
        return {};
    std::error_code ec;
    const fs::path d = fs::path(encoder.path).parent_path(), m = fs::path(modelFile).parent_path();
    for (const fs::path& c : {d / tok->slot, d, m / tok->slot})
        for (const auto& marker : family->tokenizer.markers)
            if (fs::is_regular_file(c / marker, ec)) return {};
    return "no " + family->tokenizer.what + " beside " + encoder.name + ": put its " +
           family->tokenizer.markers.front() + " there, or a " + tok->slot +
           " folder holding it (ComfyUI's files come without one)";
}

// What the file set knows of the model's pipeline before anything loads.
struct ModelShape {
    nlohmann::json config;                     // the denoiser's converted config
    std::shared_ptr<const StrategyInfo> info;  // null: no strategy runs it
    std::vector<ComponentSlot> slots;          // its strategy's
    bool declares(const std::string& slot) const {
        for (const auto& s : slots)
            if (s.model && s.name == slot) return true;
        return false;
    }
};

// The slots a part its layout puts in `named` may fill, in the order they are tried: `named`,
// and where the strategy tells the parts' kinds (StrategyInfo::slotTakes) and the file holds this
// one encoder, the later text-encoder slots of that kind, as the loader takes such a file with
// --text-encoder-N (pipeline/model_sources.cpp).
std::vector<std::string> slotsFor(const std::string& named, const LibraryEntry& part,
                                  const ModelShape& shape) {
    const auto takes = shape.info ? shape.info->slotTakes : nullptr;
    if (!takes) return {named};
    const nlohmann::json config = configOf(part);
    std::vector<std::string> out;
    if (!shape.declares(named) || takes(named, config)) out.push_back(named);
    if (part.slots.size() == 1 && textEncoderNumber(named) > 0)
        for (const auto& s : shape.slots)
            if (s.model && textEncoderNumber(s.name) > textEncoderNumber(named) &&
                takes(s.name, config))
                out.push_back(s.name);
    if (out.empty()) out.push_back(named);  // of no kind it takes: its misfit says why
    return out;
}

// Puts `part` (its layout naming `named`) in the first of slotsFor() that no other pick holds
// and whose checks it passes (StrategyInfo::partMisfit). False with set.error when none does:
// the first misfit, else the pick holding the slot.
bool place(const std::string& named, const LibraryEntry& part, const LibraryEntry& model,
           const ModelShape& shape, std::map<std::string, const LibraryEntry*>& donors,
           LibraryFileSet& set) {
    const auto misfit = shape.info ? shape.info->partMisfit : nullptr;
    std::string why, heldBy;
    for (const std::string& slot : slotsFor(named, part, shape)) {
        const ModelFileSlot* t = weightSlot(slot);
        if (!t) continue;
        if (donors.count(slot)) {
            if (heldBy.empty())
                heldBy = donors.at(slot)->name + " and " + part.name + " both hold the " + t->what +
                         ": pick one";
            continue;
        }
        const std::string no =
            misfit ? misfit({slot, part.name, model.name, shape.config, configOf(part)}) : "";
        if (!no.empty()) {
            if (why.empty()) why = no;
            continue;
        }
        donors[slot] = &part;
        set.with.*(t->path) = part.path;
        return true;
    }
    set.error = why.empty() ? heldBy : why;
    return false;
}

// The model's pipeline and its strategy's slots; throws when its config cannot be read.
ModelShape shapeOf(const LibraryEntry& model, const std::string& denoiserClass,
                   std::string& pipeline) {
    ModelShape shape;
    const auto& strategies = StrategyRegistry::global();
    shape.config = model.mainConfig.empty() ? nlohmann::json::object()
                                            : nlohmann::json::parse(model.mainConfig);
    pipeline = strategies.pipelineClassFor(denoiserClass, shape.config);
    if (pipeline.empty()) return shape;
    shape.info = strategies.info(pipeline);
    shape.slots = strategies.make(pipeline, model.name)->componentSlots();
    return shape;
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
    // The pipeline first: its strategy says which slot each picked part fills.
    ModelShape shape;
    std::string shapeError;
    try {
        shape = shapeOf(*model, denoiserClass, set.pipeline);
    } catch (const std::exception& e) {
        shapeError = std::string("cannot tell which parts the model needs: ") + e.what();
    }
    std::map<std::string, const LibraryEntry*> donors;  // slot -> the picked file giving it
    for (const auto& e : picked) {
        if (&e == model) continue;
        bool used = false;
        for (const auto& [slot, cls] : e.slots) {
            if (!weightSlot(slot)) continue;
            if (!place(slot, e, *model, shape, donors, set)) return set;
            used = true;
        }
        if (!used) {
            set.error = e.name + " holds no VAE or text encoder a file set takes";
            return set;
        }
    }
    if (!shapeError.empty()) {
        set.error = shapeError;
        return set;
    }
    if (set.pipeline.empty()) return set;
    // The parts the model's pipeline needs and neither the model (an SD checkpoint holds all)
    // nor a pick gives, from its strategy's slots.
    for (const auto& s : shape.slots) {
        if (!s.model || s.name == denoiserSlot || model->slots.count(s.name) ||
            donors.count(s.name))
            continue;
        const ModelFileSlot* t = weightSlot(s.name);
        const std::string what = t ? t->what : s.name;
        const std::string line = "no " + what + ": " + hint(shape.info.get(), s.name, what);
        (s.required ? set.missing : set.optional)
            .push_back(line + (s.required ? "" : " (optional)"));
    }
    for (const auto& [slot, part] : donors) {
        if (textEncoderNumber(slot) == 0) continue;
        const std::string why = missingTokenizer(slot, *part, model->path);
        if (!why.empty()) set.missing.push_back(why);
    }
    return set;
}

}  // namespace hs
