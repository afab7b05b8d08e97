#include "pipeline/model_sources.h"

#include <filesystem>

#include "denoising/strategy.h"
#include "models/single_file.h"
#include "runtime/demo_location.h"

namespace hs {

namespace fs = std::filesystem;

namespace {

struct FileOption {
    const char* option;
    const char* slot;
    const char* what;  // what the slot holds, for messages
    std::string ModelFiles::*path;
};

const std::vector<FileOption>& fileOptions() {
    static const std::vector<FileOption> options{
        {"--vae", "vae", "VAE", &ModelFiles::vae},
        {"--text-encoder", "text_encoder", "first text encoder (CLIP; Anima's Qwen3)",
         &ModelFiles::textEncoder},
        {"--text-encoder-2", "text_encoder_2", "second text encoder (T5, or SDXL's OpenCLIP-bigG)",
         &ModelFiles::textEncoder2},
    };
    return options;
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
void addOptionFile(ModelSources& s, const FileOption& o, const std::string& path) {
    if (isDir(path)) {
        OpenedComponent c = openFolderComponent(path);
        s.detected.push_back(path + " (" + o.option + "): component folder, " + c.className);
        s.components[o.slot] = std::move(c);
        return;
    }
    const SingleFileContents contents = readSingleFile(path);
    for (const auto& c : contents.components)
        if (c.slot == o.slot) {
            s.detected.push_back(path + " (" + o.option + "): " + c.description);
            s.components[o.slot] = openedOf(c, path);
            return;
        }
    throw PipelineError(path + " was given with " + o.option + " as the " + o.what +
                        ", but it holds " + listOf(contents));
}

// The folder of a tokenizer: given, else the first candidate that holds `marker`.
std::string tokenizerDir(const std::string& given, const std::vector<fs::path>& candidates,
                         const char* marker) {
    if (!given.empty()) return given;
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

    // Tokenizers: given, else beside the files (a tokenizer/ or tokenizer_2/ folder, as in a
    // diffusers repository, or the tokenizer's files themselves), else the bundled CLIP-L one.
    const fs::path modelDir = fs::path(model).parent_path();
    std::vector<fs::path> clip{modelDir / "tokenizer"}, second{modelDir / "tokenizer_2"};
    if (!with.textEncoder.empty()) {
        const fs::path d = fs::path(with.textEncoder).parent_path();
        clip.insert(clip.begin(), {d / "tokenizer", d});
    }
    if (!with.textEncoder2.empty()) {
        const fs::path d = fs::path(with.textEncoder2).parent_path();
        second.insert(second.begin(), {d / "tokenizer_2", d});
    }
    auto clipEncoder = [&](const char* slot) -> const OpenedComponent* {
        auto it = s.components.find(slot);
        return it != s.components.end() && it->second.className.rfind("CLIPTextModel", 0) == 0
                   ? &it->second
                   : nullptr;
    };
    // OpenCLIP's tokenizer (SD 2.x, SDXL's second) is CLIP's vocabulary padding with "!".
    auto addClip = [&](const char* slot, const OpenedComponent& encoder, const std::string& given,
                       const std::vector<fs::path>& candidates) {
        std::string dir = tokenizerDir(given, candidates, "vocab.json");
        const bool bundled = dir.empty();
        if (bundled) dir = findBundledTokenizer("clip-l");
        addTokenizer(f, slot, "CLIPTokenizer", dir);
        const bool openClip = encoder.source.config.value("hidden_act", "") == "gelu";
        if (bundled && openClip)
            for (auto& c : f.components)
                if (c.name == slot) c.config = {{"pad_token", "!"}};
    };
    if (const OpenedComponent* te = clipEncoder("text_encoder"))
        addClip("tokenizer", *te, with.tokenizer, clip);
    if (const OpenedComponent* te2 = clipEncoder("text_encoder_2"))
        addClip("tokenizer_2", *te2, with.tokenizer2, second);
    else if (s.components.count("text_encoder_2"))
        addTokenizer(f, "tokenizer_2", "T5TokenizerFast",
                     tokenizerDir(with.tokenizer2, second, "spiece.model"));

    // Anima: a Qwen tokenizer for its Qwen3 encoder (--tokenizer, else beside the files, else the
    // bundled Qwen2 one), and the T5 tokenizer whose ids its text conditioner embeds
    // (--tokenizer-2, else beside the files).
    auto te = s.components.find("text_encoder");
    if (te != s.components.end() && te->second.className.rfind("Qwen", 0) == 0) {
        std::string dir = tokenizerDir(with.tokenizer, clip, "merges.txt");
        if (dir.empty()) dir = tokenizerDir({}, clip, "tokenizer.json");
        if (dir.empty()) dir = findBundledTokenizer("qwen2");
        addTokenizer(f, "tokenizer", "Qwen2Tokenizer", dir);
    }
    if (denoiserClass == "CosmosTransformer3DModel") {
        std::vector<fs::path> t5{modelDir / "t5_tokenizer", modelDir / "tokenizer_2", modelDir};
        addTokenizer(f, "t5_tokenizer", "T5TokenizerFast",
                     tokenizerDir(with.tokenizer2, t5, "spiece.model"));
    }
}

}  // namespace

std::string optionForSlot(const std::string& slot) {
    for (const auto& o : fileOptions())
        if (slot == o.slot) return o.option;
    if (slot == "tokenizer") return "--tokenizer";
    if (slot == "tokenizer_2" || slot == "t5_tokenizer") return "--tokenizer-2";
    return "--model";
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
    for (const auto& o : fileOptions())
        if (!(with.*o.path).empty()) addOptionFile(s, o, with.*o.path);

    if (s.singleFile) {
        makeFolder(s, model, with);
    } else {
        addTokenizer(s.folder, "tokenizer", "CLIPTokenizer", with.tokenizer);
        addTokenizer(s.folder, s.folder.find("t5_tokenizer") ? "t5_tokenizer" : "tokenizer_2",
                     "T5TokenizerFast", with.tokenizer2);
    }
    return s;
}

}  // namespace hs
