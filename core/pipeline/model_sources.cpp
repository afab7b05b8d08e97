#include "pipeline/model_sources.h"

#include <filesystem>

#include "denoising/strategy.h"
#include "models/single_file.h"
#include "runtime/demo_location.h"

namespace hs {

namespace fs = std::filesystem;

namespace {

// The rows of the file-set table that give weights (--vae, --text-encoder, ...).
std::vector<const ModelFileSlot*> weightSlots() {
    std::vector<const ModelFileSlot*> out;
    for (const auto& row : modelFileSlots())
        if (!row.tokenizer) out.push_back(&row);
    return out;
}

std::string listOf(const SingleFileContents& c) {
    std::string s;
    for (const auto& part : c.components)
        s += (s.empty() ? "" : "; ") + part.slot + ": " + part.description;
    for (const auto& n : c.notConverted) s += (s.empty() ? "" : "; ") + n;
    return s;
}

OpenedComponent openedOf(const ConvertedComponent& c, const std::string& path) {
    return {c.className, c.description, sourceOf(c, path)};
}

bool isDir(const fs::path& p) {
    std::error_code ec;
    return fs::is_directory(p, ec);
}

bool isFile(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

// A file given with `o.option`: the component of its slot (a converted single file or a
// component folder). Other parts of an all-in-one file are left out.
void addOptionFile(ModelSources& s, const ModelFileSlot& o, const std::string& path) {
    if (isDir(path)) {
        OpenedComponent c = openFolderComponent(path);
        s.detected.push_back(path + " (" + o.option + "): component folder, " + c.className);
        s.components[o.slot] = std::move(c);
        return;
    }
    const SingleFileContents contents = readSingleFile(path);
    // A file of one text encoder also fills a later encoder slot it is given for: a t5xxl file
    // converts as FLUX.1's second encoder and is SD3's third, a clip_g file as a first one and is
    // SD3's and SDXL's second.
    const bool oneEncoder =
        contents.components.size() == 1 && textEncoderNumber(contents.components[0].slot) > 0 &&
        textEncoderNumber(o.slot) > textEncoderNumber(contents.components[0].slot);
    for (const auto& c : contents.components)
        if (c.slot == o.slot || oneEncoder) {
            s.detected.push_back(path + " (" + o.option + "): " + c.description);
            s.components[o.slot] = openedOf(c, path);
            return;
        }
    throw PipelineError(path + " was given with " + o.option + " as the " + o.what +
                        ", but it holds " + listOf(contents));
}

// The folder of a tokenizer: given, else the first candidate that holds the first of `markers`,
// else the first that holds the next one, ...
std::string tokenizerDir(const std::string& given, const std::vector<fs::path>& candidates,
                         const std::vector<std::string>& markers) {
    if (!given.empty()) return given;
    for (const auto& marker : markers)
        for (const auto& c : candidates)
            if (isFile(c / marker)) return c.string();
    return {};
}

void addTokenizer(PipelineFolder& f, const std::string& slot, const std::string& className,
                  const std::string& dir) {
    if (dir.empty()) return;
    if (!isDir(dir)) throw FileError(dir, "not a folder (a tokenizer folder is expected)");
    for (auto& c : f.components)
        if (c.name == slot) {
            c.dir = dir;
            return;
        }
    f.components.push_back({slot, "transformers", className, dir, ComponentKind::Tokenizer, {}});
}

// The pipeline folder single files stand in.
void makeFolder(ModelSources& s, const std::string& model, const ModelFiles& with) {
    std::string denoiserClass;
    nlohmann::json denoiserConfig;
    for (const auto& [slot, c] : s.components) {
        const auto family = FamilyRegistry::global().find(c.className);
        if (family && family->role == Role::Denoiser) {
            denoiserClass = c.className;
            denoiserConfig = c.source.config;
        }
    }
    std::string held;
    for (const auto& d : s.detected) held += "\n  " + d;
    if (denoiserClass.empty())
        throw PipelineError(model +
                            ": no denoiser (transformer or UNet) in the files given:" + held +
                            "\nOpen the model file (flux1-dev.safetensors, say) and give this "
                            "one with --vae, --text-encoder or --text-encoder-2.");
    PipelineFolder& f = s.folder;
    f.dir = model;
    f.className = StrategyRegistry::global().pipelineClassFor(denoiserClass, denoiserConfig);
    if (f.className.empty())
        throw PipelineError(model + ": no pipeline runs a single-file " + denoiserClass);
    for (const auto& [slot, c] : s.components) {
        const bool encoder = slot.rfind("text_encoder", 0) == 0;  // transformers' classes
        f.components.push_back({slot,
                                encoder ? "transformers" : "diffusers",
                                c.className,
                                c.source.dir,
                                ComponentKind::Model,
                                {}});
    }

    // Tokenizers: each text encoder's family says which one it reads (Family::tokenizer). Given
    // with --tokenizer(-N), else a tokenizer(_N) folder beside the encoder's own file or beside
    // the model (as in a diffusers repository), or the tokenizer's files themselves there, else
    // the one Halfscope bundles.
    const fs::path modelDir = fs::path(model).parent_path();
    for (const auto& [slot, c] : s.components) {
        if (slot.rfind("text_encoder", 0) != 0) continue;
        const auto family = FamilyRegistry::global().find(c.className);
        const ModelFileSlot* tok = modelFileSlot("tokenizer" + slot.substr(12));
        if (!family || family->tokenizer.className.empty() || !tok) continue;
        const TokenizerFiles& t = family->tokenizer;
        std::vector<fs::path> candidates{modelDir / tok->slot};
        const std::string& encoderFile = with.*modelFileSlot(slot)->path;
        if (!encoderFile.empty()) {
            const fs::path d = fs::path(encoderFile).parent_path();
            candidates.insert(candidates.begin(), {d / tok->slot, d});
        }
        std::string dir = tokenizerDir(with.*tok->path, candidates, t.markers);
        const bool bundled = dir.empty() && !t.bundled.empty();
        if (bundled) dir = findBundledTokenizer(t.bundled);
        addTokenizer(f, tok->slot, t.className, dir);
        if (bundled && t.bundledConfig)
            for (auto& pc : f.components)
                if (pc.name == tok->slot) pc.config = t.bundledConfig(c.source.config);
    }
    // Tokenizers no encoder slot reads, which the pipeline names (Anima's t5_tokenizer).
    for (const auto& slot : StrategyRegistry::global().make(f.className, model)->componentSlots()) {
        const ModelFileSlot* given = modelFileSlot(slot.givenWith);
        const auto family = FamilyRegistry::global().find(slot.tokenizerFamily);
        if (slot.model || !given || !family || f.find(slot.name)) continue;
        const std::vector<fs::path> candidates{modelDir / slot.name, modelDir / given->slot,
                                               modelDir};
        addTokenizer(f, slot.name, family->tokenizer.className,
                     tokenizerDir(with.*given->path, candidates, family->tokenizer.markers));
    }
}

}  // namespace

std::string optionForSlot(const std::string& slot) {
    const ModelFileSlot* row = modelFileSlot(slot);
    return row ? row->option : "--model";
}

ModelSources openModelSources(const std::string& model, const ModelFiles& with) {
    ModelSources s;
    if (isDir(model)) {
        s.folder = openPipeline(model);
    } else if (isFile(model)) {
        s.singleFile = true;
        const SingleFileContents contents = readSingleFile(model);
        for (const auto& c : contents.components) {
            s.detected.push_back(model + ": " + c.slot + ": " + c.description);
            s.components[c.slot] = openedOf(c, model);
        }
        for (const auto& n : contents.notConverted)
            s.detected.push_back(model + ": " + n + " (left out)");
    } else {
        throw FileError(model, "no such file or folder");
    }
    for (const ModelFileSlot* o : weightSlots())
        if (!(with.*o->path).empty()) addOptionFile(s, *o, with.*o->path);

    if (s.singleFile) {
        makeFolder(s, model, with);
    } else {
        // A tokenizer given for a folder replaces the one of its slot, or of the pipeline's slot
        // it gives (Anima's t5_tokenizer is given with --tokenizer-2).
        std::vector<ComponentSlot> wanted;
        try {
            wanted = StrategyRegistry::global().make(s.folder.className, model)->componentSlots();
        } catch (const PipelineError&) {
            // An unsupported pipeline: the load says so, naming the supported ones.
        }
        for (const auto& row : modelFileSlots()) {
            if (!row.tokenizer || (with.*row.path).empty()) continue;
            std::string slot = row.slot;
            for (const auto& w : wanted)
                if (w.givenWith == row.slot) slot = w.name;
            const PipelineComponent* held = s.folder.find(slot);
            addTokenizer(s.folder, slot, held ? held->className : "", with.*row.path);
        }
    }
    return s;
}

}  // namespace hs
