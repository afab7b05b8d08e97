#include "library/library_describe.h"

#include <filesystem>
#include <regex>
#include <set>

#include "base/affixes.h"
#include "base/enum_names.h"
#include "denoising/strategy.h"
#include "io/bounded_read.h"
#include "io/float8.h"
#include "io/model_folder.h"
#include "io/safetensors.h"
#include "library/header_probe.h"
#include "models/registry.h"

namespace hs {

namespace fs = std::filesystem;

namespace {

std::string fileNameOf(const std::string& path) {
    return fs::path(path).filename().string();
}

std::shared_ptr<const Family> familyOf(const std::string& className) {
    return className.empty() ? nullptr : FamilyRegistry::global().find(className);
}

bool isDenoiser(const std::string& className) {
    const auto f = familyOf(className);
    return f && f->role == Role::Denoiser;
}

void appendError(LibraryEntry& e, const std::string& what) {
    e.error += (e.error.empty() ? "" : "; ") + what;
}

// Sums the files' headers into `e`: tensors, parameters, dtype, bytes on disk (each inode once:
// a Hugging Face blob two snapshot links lead to is one file), errors.
void addProbes(LibraryEntry& e, const std::vector<FileProbe>& probes,
               std::map<std::string, int64_t>& dtypes,
               std::set<std::pair<uint64_t, uint64_t>>& inodes, bool errors = true) {
    for (const auto& p : probes) {
        e.files.push_back(p.path);
        if (p.inode != 0 && inodes.insert({p.device, p.inode}).second) e.bytes += p.size;
        if (!p.error.empty()) {
            if (errors) appendError(e, fileNameOf(p.path) + ": " + p.error);
            continue;
        }
        e.tensors += p.tensors;
        e.parameters += p.parameters;
        for (const auto& [d, n] : p.dtypes) dtypes[d] += n;
    }
}

// The most common floating dtype by elements.
std::string mainDtype(const std::map<std::string, int64_t>& dtypes) {
    std::string best;
    int64_t most = -1;
    for (const auto& [d, n] : dtypes)
        if (isFloatingDtypeLabel(d) && n > most) most = n, best = d;
    return best;
}

void finish(LibraryEntry& e, const std::map<std::string, int64_t>& dtypes) {
    e.dtype = mainDtype(dtypes);
    // Nothing read: nothing to say ("-" in the table), rather than "unknown".
    e.fp16Risk = e.tensors > 0 ? fp16RiskFromHeader(dtypes) : e.error.empty() ? "unknown" : "";
    if (const auto f = familyOf(e.className); f && e.family.empty()) e.family = f->name;
}

// "diffusion_pytorch_model.fp16.safetensors" -> "fp16"; "" for a plain name.
std::string variantOf(const std::string& fileName) {
    const std::string stem =
        fileName.substr(0, fileName.size() - std::string(".safetensors").size());
    const auto dot = stem.rfind('.');
    return dot == std::string::npos ? "" : stem.substr(dot + 1);
}

// "model-00001-of-00003.safetensors": compiled once, as every folder entry of a scan is matched.
const std::regex kShardFileName(R"(.*-\d{5}-of-\d{5}\.safetensors)");

// The weights of a component folder: the plain ones (sharded or not) when there, else the one
// variant there is. Empty when the folder has no safetensors.
std::vector<std::string> componentWeights(const std::string& dir, std::string& variant,
                                          std::string& problem) {
    std::vector<std::string> plainIndex, plain, variants, pickles;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string n = it->path().filename().string();
        if (endsWith(n, ".safetensors.index.json"))
            plainIndex.push_back(n);
        else if (std::regex_match(n, kShardFileName))
            continue;  // a shard: its index names it
        else if (endsWith(n, ".safetensors"))
            (variantOf(n).empty() ? plain : variants).push_back(n);
        else if (endsWith(n, ".bin") || endsWith(n, ".ckpt") || endsWith(n, ".pt"))
            pickles.push_back(n);
    }
    std::sort(plainIndex.begin(), plainIndex.end());
    std::sort(plain.begin(), plain.end());
    std::sort(variants.begin(), variants.end());
    std::vector<std::string> files;
    if (!plainIndex.empty()) {
        std::string why;
        for (const auto& s : shardsOfIndex(dir + "/" + plainIndex[0], &why))
            files.push_back(dir + "/" + s);
        if (files.empty()) problem = why.empty() ? plainIndex[0] + ": no shard listed" : why;
    } else if (!plain.empty()) {
        files.push_back(dir + "/" + plain[0]);
    } else if (!variants.empty()) {
        variant = variantOf(variants[0]);
        for (const auto& v : variants)
            if (variantOf(v) == variant) files.push_back(dir + "/" + v);
    } else if (!pickles.empty()) {
        problem = "pickle weights only (" + pickles[0] +
                  "): not opened, loading pickle can run code; convert to safetensors";
    } else {
        problem = "no .safetensors weights in the folder";
    }
    return files;
}

// The words that tell models of one family apart: the pipeline shape's, from the converted
// config (FLUX.1-dev and schnell differ by the guidance embedding), else the headline's start
// ("SDXL base, SGM layout: ...").
std::string shortVariant(const FileProbe::Part& main, const std::string& headline) {
    try {
        const auto c = nlohmann::json::parse(main.config);
        const auto& strategies = StrategyRegistry::global();
        const auto info = strategies.info(strategies.pipelineClassFor(main.className, c));
        const std::string v = info && info->variantName ? info->variantName(c) : "";
        if (!v.empty()) return v;
    } catch (const std::exception&) {
    }
    const std::string& text = headline.empty() ? main.description : headline;
    const auto cut = text.find_first_of(":;");
    return cut == std::string::npos ? text : text.substr(0, cut);
}

}  // namespace

std::string entryKindName(EntryKind k) {
    static constexpr EnumName<EntryKind> names[] = {{EntryKind::Pipeline, "pipeline"},
                                                    {EntryKind::Component, "component"},
                                                    {EntryKind::SingleFile, "file"},
                                                    {EntryKind::ShardSet, "shards"},
                                                    {EntryKind::Unreadable, "unreadable"}};
    return nameIn(names, k);
}

std::string fp16RiskFromHeader(const std::map<std::string, int64_t>& dtypes) {
    int64_t floating = 0, half = 0;
    for (const auto& [d, n] : dtypes) {
        if (d == "F16") half += n;
        if (isFloatingDtypeLabel(d)) floating += n;
    }
    return floating > 0 && half == floating ? "weights fit fp16" : "unknown";
}

bool looksLikeModelFile(const std::string& n) {
    for (const char* ext : {".safetensors", ".safetensors.index.json", ".ckpt", ".pt", ".pth",
                            ".bin", ".gguf", ".sft"})
        if (endsWith(n, ext)) return true;
    return false;
}

std::vector<std::string> shardsOfIndex(const std::string& indexPath, std::string* problem) {
    std::vector<std::string> files;
    try {
        const nlohmann::json j = readBoundedJson(indexPath, kMaxConfigBytes, "shard index");
        std::set<std::string> seen;
        for (const auto& [tensor, file] : j.at("weight_map").items()) {
            if (!file.is_string()) throw FileError(indexPath, "a shard name is not a string");
            checkShardName(indexPath, tensor, file.get<std::string>());
            if (seen.insert(file.get<std::string>()).second)
                files.push_back(file.get<std::string>());
        }
    } catch (const std::exception& e) {
        if (problem) *problem = e.what();
        return {};
    }
    return files;
}

LibraryEntry describeUnreadable(const std::string& path, const std::string& error) {
    LibraryEntry e;
    e.path = path;
    e.kind = EntryKind::Unreadable;
    e.error = error;
    e.fp16Risk = "";
    return e;
}

LibraryEntry describeFile(const std::string& path, ProbeSource& probes) {
    const std::string name = fileNameOf(path);
    if (endsWith(name, ".ckpt") || endsWith(name, ".pt") || endsWith(name, ".pth") ||
        endsWith(name, ".bin"))
        return describeUnreadable(
            path,
            "pickle checkpoint: not opened (loading pickle can run code); convert it to "
            ".safetensors");
    if (endsWith(name, ".gguf"))
        return describeUnreadable(path, "GGUF (quantised) file: not read by Halfscope");
    LibraryEntry e;
    e.path = path;
    std::map<std::string, int64_t> dtypes;
    std::set<std::pair<uint64_t, uint64_t>> inodes;
    if (endsWith(name, ".safetensors.index.json")) {
        e.kind = EntryKind::ShardSet;
        e.layouts = {"sharded safetensors"};
        std::string problem;
        const auto shards = shardsOfIndex(path, &problem);
        if (shards.empty()) {
            e.error = problem.empty() ? "shard index lists no shard" : problem;
            FileProbe self;
            if (statForProbe(path, self)) e.bytes = self.size;
            return e;
        }
        std::vector<FileProbe> ps;
        const std::string dir = fs::path(path).parent_path().string();
        for (const auto& s : shards) ps.push_back(probes.probe(dir + "/" + s));
        addProbes(e, ps, dtypes, inodes);
        finish(e, dtypes);
        return e;
    }
    e.kind = EntryKind::SingleFile;
    const FileProbe p = probes.probe(path);
    addProbes(e, {p}, dtypes, inodes);
    for (const auto& l : p.layouts) e.layouts.push_back(l);
    const FileProbe::Part* main = nullptr;
    for (const auto& part : p.parts) {
        e.slots[part.slot] = part.className;
        if (!main || (isDenoiser(part.className) && !isDenoiser(main->className))) main = &part;
    }
    if (main) {
        e.className = main->className;
        e.mainConfig = main->config;
        e.description = p.headline.empty() ? main->description : p.headline;
        e.variant = shortVariant(*main, p.headline);
    }
    if (!p.conversionError.empty()) appendError(e, p.conversionError);
    if (p.error.empty() && p.layouts.empty())
        e.variant = "no single-file layout recognised (a LoRA, or a component's own weights?)";
    finish(e, dtypes);
    return e;
}

namespace {

// A component folder; `got` receives its files' probes (a pipeline sums them across components).
LibraryEntry componentEntry(const std::string& dir, ProbeSource& probes,
                            std::vector<FileProbe>& ps) {
    LibraryEntry e;
    e.path = dir;
    e.kind = EntryKind::Component;
    std::map<std::string, int64_t> dtypes;
    std::set<std::pair<uint64_t, uint64_t>> inodes;
    try {
        const nlohmann::json config =
            readBoundedJson(dir + "/config.json", kMaxConfigBytes, "config");
        if (config.contains("_class_name") && config["_class_name"].is_string()) {
            e.className = config["_class_name"].get<std::string>();
            e.layouts = {"diffusers folder"};
        } else if (config.contains("architectures") && config["architectures"].is_array() &&
                   !config["architectures"].empty() && config["architectures"][0].is_string()) {
            e.className = config["architectures"][0].get<std::string>();
            e.layouts = {"transformers folder"};
        }
    } catch (const std::exception& ex) {
        appendError(e, ex.what());
    }
    std::string variant, problem;
    const auto files = componentWeights(dir, variant, problem);
    if (!problem.empty()) appendError(e, problem);
    for (const auto& f : files) ps.push_back(probes.probe(f));
    addProbes(e, ps, dtypes, inodes);
    if (!variant.empty()) e.variant = variant + " weights variant";
    if (!e.className.empty()) e.slots[fileNameOf(dir)] = e.className;
    finish(e, dtypes);
    return e;
}

}  // namespace

LibraryEntry describeComponent(const std::string& dir, ProbeSource& probes) {
    std::vector<FileProbe> ps;
    return componentEntry(dir, probes, ps);
}

LibraryEntry describePipeline(const std::string& dir, ProbeSource& probes) {
    LibraryEntry e;
    e.path = dir;
    e.kind = EntryKind::Pipeline;
    e.layouts = {"diffusers pipeline"};
    std::map<std::string, int64_t> dtypes;
    std::set<std::pair<uint64_t, uint64_t>> inodes;
    PipelineFolder p;
    try {
        p = openPipeline(dir);
    } catch (const std::exception& ex) {
        e.error = ex.what();
        return e;
    }
    e.className = p.className;
    std::vector<std::string> variants;
    for (const auto& c : p.components) {
        if (c.kind != ComponentKind::Model) continue;
        std::vector<FileProbe> ps;
        const LibraryEntry part = componentEntry(c.dir, probes, ps);
        e.slots[c.name] = part.className.empty() ? c.className : part.className;
        if (!part.error.empty()) appendError(e, c.name + ": " + part.error);
        if (!part.variant.empty()) variants.push_back(c.name + " " + part.variant);
        if (isDenoiser(part.className)) e.family = part.family;
        // Each blob once, across components too; their errors are in part.error already.
        addProbes(e, ps, dtypes, inodes, false);
    }
    for (const auto& v : variants) e.variant += (e.variant.empty() ? "" : ", ") + v;
    finish(e, dtypes);  // the pipeline class names no family: the denoiser's was taken
    return e;
}

}  // namespace hs
