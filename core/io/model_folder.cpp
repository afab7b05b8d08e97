#include "io/model_folder.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <regex>
#include <set>

#include "base/enum_names.h"
#include "io/bounded_read.h"

namespace hs {

namespace fs = std::filesystem;

namespace {

// diffusers names weights diffusion_pytorch_model.*, transformers model.*.
const char* const kBases[] = {"diffusion_pytorch_model", "model"};
const char* const kPickleExts[] = {".bin", ".ckpt", ".pt", ".pth"};

bool isFile(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

// Something is there (a symlink is followed): a FIFO or a folder in place of a file is then
// refused by the bounded reader with what it is, not reported missing.
bool present(const fs::path& p) {
    std::error_code ec;
    return fs::exists(p, ec);
}

std::vector<std::string> filesIn(const std::string& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file(ec)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

// Weight files for `variant` in the order they are preferred: single files, then sharded
// indexes. diffusers names a variant index "<base>.safetensors.index.<v>.json"; older
// releases wrote "<base>.<v>.safetensors.index.json"; both are accepted.
std::vector<std::string> candidates(const std::string& v) {
    std::vector<std::string> out;
    const std::string dot = v.empty() ? "" : "." + v;
    for (const char* b : kBases) out.push_back(std::string(b) + dot + ".safetensors");
    for (const char* b : kBases) {
        out.push_back(std::string(b) + ".safetensors.index" + dot + ".json");
        if (!v.empty()) out.push_back(std::string(b) + dot + ".safetensors.index.json");
    }
    return out;
}

// Variants present among `files` ("fp16", "bf16", "non_ema", ...). Shards
// ("model.fp16-00001-of-00002.safetensors") do not match: a variant has no '-'.
std::set<std::string> variantsIn(const std::vector<std::string>& files) {
    static const std::regex single(R"(^(diffusion_pytorch_model|model)\.(\w+)\.safetensors$)");
    static const std::regex index(
        R"(^(diffusion_pytorch_model|model)\.safetensors\.index\.(\w+)\.json$)");
    static const std::regex legacy(
        R"(^(diffusion_pytorch_model|model)\.(\w+)\.safetensors\.index\.json$)");
    std::set<std::string> out;
    std::smatch m;
    for (const auto& f : files)
        if (std::regex_match(f, m, single) || std::regex_match(f, m, index) ||
            std::regex_match(f, m, legacy))
            out.insert(m[2].str());
    return out;
}

// A name from a file in a message: at most 60 characters, whatever the file holds.
std::string quoted(const std::string& s, bool marks = true) {
    const std::string t = s.size() > 60 ? s.substr(0, 57) + "..." : s;
    return marks ? "'" + t + "'" : t;
}

std::string joinNames(const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return s;
}

[[noreturn]] void failNoWeights(const std::string& dir, const std::vector<std::string>& files,
                                const std::string& variant, const std::set<std::string>& variants) {
    std::vector<std::string> pickles, others;
    for (const auto& f : files) {
        for (const char* ext : kPickleExts)
            if (f.size() > std::strlen(ext) &&
                f.compare(f.size() - std::strlen(ext), std::string::npos, ext) == 0)
                pickles.push_back(f);
        if (f.size() > 12 && f.compare(f.size() - 12, 12, ".safetensors") == 0) others.push_back(f);
    }
    if (!variant.empty()) {
        std::vector<std::string> have;
        for (const auto& v : variants) have.push_back("'" + v + "'");
        throw FileError(dir, "no '" + variant + "' weights (expected diffusion_pytorch_model." +
                                 variant + ".safetensors or model." + variant +
                                 ".safetensors or a sharded index); variants present: " +
                                 (have.empty() ? "none" : joinNames(have)));
    }
    if (variants.size() > 1) {
        throw FileError(dir, "no plain weights and several variants (" +
                                 joinNames({variants.begin(), variants.end()}) +
                                 "): choose one explicitly");
    }
    if (others.empty() && !pickles.empty()) {
        throw FileError(
            dir, "only pickle checkpoints found (" + joinNames(pickles) +
                     "). Halfscope never opens pickle files: unpickling can execute arbitrary "
                     "code. Download the .safetensors variant of the model, or convert it once "
                     "in Python: from safetensors.torch import save_file; save_file(torch.load("
                     "'FILE', weights_only=True), 'model.safetensors') (for diffusers folders "
                     "name it diffusion_pytorch_model.safetensors).");
    }
    std::string msg =
        "no weights: expected diffusion_pytorch_model.safetensors or model.safetensors (or a "
        "sharded *.safetensors.index.json)";
    if (!others.empty()) msg += "; found only " + joinNames(others);
    throw FileError(dir, msg);
}

}  // namespace

nlohmann::json readJsonFile(const std::string& path) {
    // Bounded: a regular file of at most kMaxConfigBytes, nested at most kMaxJsonDepth levels;
    // the parser's message (line and column) is kept, cut short.
    return readBoundedJson(path, kMaxConfigBytes, "JSON file");
}

ComponentFolder openComponent(const std::string& dir, const std::string& variant) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw FileError(dir, "not a folder");
    const fs::path cfg = fs::path(dir) / "config.json";
    if (!present(cfg))
        throw FileError(cfg.string(),
                        "missing config.json: not a diffusers/transformers component folder");
    ComponentFolder c;
    c.dir = dir;
    c.config = readJsonFile(cfg.string());
    if (!c.config.is_object()) throw FileError(cfg.string(), "config is not a JSON object");
    if (auto it = c.config.find("_class_name"); it != c.config.end() && it->is_string()) {
        c.className = it->get<std::string>();
    } else if (auto a = c.config.find("architectures");
               a != c.config.end() && a->is_array() && !a->empty() && (*a)[0].is_string()) {
        c.className = (*a)[0].get<std::string>();
    }

    const auto files = filesIn(dir);
    const auto variants = variantsIn(files);
    auto pick = [&](const std::string& v) -> std::string {
        for (const auto& name : candidates(v))
            if (std::binary_search(files.begin(), files.end(), name)) return name;
        return "";
    };
    std::string chosen = pick(variant);
    c.variant = variant;
    if (chosen.empty() && variant.empty() && variants.size() == 1) {
        c.variant = *variants.begin();
        chosen = pick(c.variant);
    }
    if (chosen.empty()) failNoWeights(dir, files, variant, variants);

    c.weights = TensorSet::open((fs::path(dir) / chosen).string());
    for (const auto& f : c.weights.files()) c.weightFiles.push_back(f->path());
    return c;
}

std::string componentKindName(ComponentKind k) {
    static constexpr EnumName<ComponentKind> names[] = {{ComponentKind::Model, "model"},
                                                        {ComponentKind::Tokenizer, "tokenizer"},
                                                        {ComponentKind::Scheduler, "scheduler"},
                                                        {ComponentKind::Other, "other"}};
    return nameIn(names, k, "other");
}

const PipelineComponent* PipelineFolder::find(const std::string& name) const {
    for (const auto& c : components)
        if (c.name == name) return &c;
    return nullptr;
}

namespace {

// The [library, class] of a model_index.json entry, or of a modular_model_index.json entry
// [library, class, {"type_hint": [library, class], "subfolder": ..., ...}] (the class may be
// null there for a component not loaded when the pipeline was saved: its type_hint names it).
// Sets `subfolder` from the spec. False for an entry left out ([null, null]).
bool readIndexEntry(const std::string& indexPath, const std::string& name, const nlohmann::json& v,
                    bool modular, PipelineComponent& c, std::string& subfolder) {
    const bool withSpec = modular && v.size() == 3 && (v[2].is_object() || v[2].is_null());
    if (v.size() != 2 && !withSpec)
        throw FileError(indexPath, "entry " + quoted(name) + " must be [library, class]" +
                                       (modular ? " or [library, class, {spec}]" : ""));
    nlohmann::json lib = v[0], cls = v[1];
    subfolder = name;
    if (withSpec && v[2].is_object()) {
        const auto& spec = v[2];
        auto hint = spec.find("type_hint");
        if (cls.is_null() && hint != spec.end() && hint->is_array() && hint->size() == 2) {
            lib = (*hint)[0];
            cls = (*hint)[1];
        }
        if (auto sub = spec.find("subfolder"); sub != spec.end() && sub->is_string())
            subfolder = sub->get<std::string>();
    }
    if (lib.is_null() && cls.is_null()) return false;
    if (withSpec && v[2].is_null()) return false;  // made from a config at run time: no folder
    if (!lib.is_string() || !cls.is_string())
        throw FileError(indexPath, "entry " + quoted(name) + " must be [library, class] strings");
    c.name = name;
    c.library = lib.get<std::string>();
    c.className = cls.get<std::string>();
    return true;
}

// A component's folder name from the index must name a folder inside the pipeline folder: a
// hostile index could otherwise point "text_encoder" at "/etc" or "../../somewhere". Plain names
// only; a modular spec's subfolder may hold several plain segments ("a/b"), never "." or "..".
void checkComponentPath(const std::string& indexPath, const std::string& name,
                        const std::string& path, bool segmentsAllowed) {
    auto refuse = [&](const std::string& why) {
        throw FileError(indexPath,
                        "component " + quoted(name) +
                            (path == name ? "" : " (subfolder " + quoted(path) + ")") +
                            " is not a plain folder name inside the pipeline folder: " + why);
    };
    if (path.empty()) refuse("the name is empty");
    if (path.find('\0') != std::string::npos) refuse("it holds a NUL character");
    if (path.front() == '/' || path.front() == '\\') refuse("it is an absolute path");
    if (path.find('\\') != std::string::npos) refuse("it holds a backslash");
    size_t start = 0;
    for (;;) {
        const size_t slash = path.find('/', start);
        const std::string seg =
            path.substr(start, slash == std::string::npos ? slash : slash - start);
        if (seg == "..") refuse("'..' leads outside the pipeline folder");
        if (seg.empty() || seg == ".") refuse("it has an empty or '.' part");
        if (slash == std::string::npos) break;
        if (!segmentsAllowed) refuse("it holds a '/'");
        start = slash + 1;
    }
}

ComponentKind kindOf(const fs::path& d, const std::string& className) {
    if (isFile(d / "scheduler_config.json")) return ComponentKind::Scheduler;
    if ((isFile(d / "vocab.json") && isFile(d / "merges.txt")) || isFile(d / "tokenizer.json") ||
        isFile(d / "spiece.model") || className.find("Tokenizer") != std::string::npos)
        return ComponentKind::Tokenizer;
    if (isFile(d / "config.json")) return ComponentKind::Model;
    return ComponentKind::Other;
}

}  // namespace

PipelineFolder openPipeline(const std::string& dir) {
    // Modular pipelines (diffusers' ModularPipeline.save_pretrained: Anima) write
    // modular_model_index.json instead; its components live in sub-folders the same way.
    std::string indexPath = (fs::path(dir) / "model_index.json").string();
    const bool modular = !present(indexPath) && present(fs::path(dir) / "modular_model_index.json");
    if (modular) indexPath = (fs::path(dir) / "modular_model_index.json").string();
    if (!present(indexPath))
        throw FileError(indexPath, "missing model_index.json: not a diffusers pipeline folder");
    PipelineFolder p;
    p.dir = dir;
    p.modelIndex = readJsonFile(indexPath);
    if (!p.modelIndex.is_object()) throw FileError(indexPath, "not a JSON object");
    if (auto it = p.modelIndex.find("_class_name"); it != p.modelIndex.end() && it->is_string())
        p.className = it->get<std::string>();

    for (auto it = p.modelIndex.begin(); it != p.modelIndex.end(); ++it) {
        const std::string& name = it.key();
        const auto& v = it.value();
        // "_class_name", "_diffusers_version", ... are about the pipeline; plain values such as
        // "requires_safety_checker": true are pipeline options, not components.
        if (name.empty() || name[0] == '_' || !v.is_array()) continue;
        PipelineComponent c;
        std::string subfolder;
        if (!readIndexEntry(indexPath, name, v, modular, c, subfolder)) continue;
        checkComponentPath(indexPath, name, name, false);
        if (subfolder != name && !subfolder.empty())
            checkComponentPath(indexPath, name, subfolder, true);
        c.dir = (fs::path(dir) / subfolder).string();
        std::error_code ec;
        if (subfolder.empty() || !fs::is_directory(c.dir, ec)) {
            // A modular index may point a component at another repository: only what the
            // folder holds can be opened here.
            std::string elsewhere;
            if (modular && v.size() == 3 && v[2].is_object() &&
                v[2].contains("pretrained_model_name_or_path") &&
                v[2]["pretrained_model_name_or_path"].is_string())
                elsewhere = " (the index points at " +
                            quoteJsonValue(v[2]["pretrained_model_name_or_path"], 120) +
                            "; download it into this folder)";
            throw FileError(indexPath,
                            "component " + quoted(name) + " (" + quoted(c.className, false) +
                                ") is listed but its folder " + c.dir + " is missing" + elsewhere);
        }
        c.kind = kindOf(c.dir, c.className);
        p.components.push_back(std::move(c));
    }
    return p;
}

bool isPipelineFolder(const std::string& dir) {
    return isFile(fs::path(dir) / "model_index.json") ||
           isFile(fs::path(dir) / "modular_model_index.json");
}

bool isComponentFolder(const std::string& dir) {
    return isFile(fs::path(dir) / "config.json") && !isPipelineFolder(dir);
}

nlohmann::json schedulerConfigOf(const PipelineComponent& scheduler) {
    if (!scheduler.config.is_null()) return scheduler.config;
    return readJsonFile(scheduler.dir + "/scheduler_config.json");
}

}  // namespace hs
