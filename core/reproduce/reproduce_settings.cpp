#include "reproduce/reproduce_settings.h"

#include <algorithm>
#include <sstream>

namespace hs {

namespace {

void insertSorted(std::vector<std::string>& list, const std::string& item) {
    const auto at = std::lower_bound(list.begin(), list.end(), item);
    if (at == list.end() || *at != item) list.insert(at, item);
}

template <class T>
nlohmann::ordered_json orNull(const std::optional<T>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json nameOrNull(const std::string& s) {
    return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
}

// A number as people read it: 6.5, 7, 1.15 (not 7.000000).
std::string plainNumber(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

template <class T>
std::string orUnknown(const std::optional<T>& v) {
    if (!v) return "unknown";
    if constexpr (std::is_floating_point_v<T>)
        return plainNumber(*v);
    else
        return std::to_string(*v);
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
    return out.empty() ? "none" : out;
}

std::string pathOf(const ReproduceSettings& s, const std::string& file) {
    const auto it = s.resolved.find(file);
    return it == s.resolved.end() ? "" : it->second;
}

}  // namespace

void ReproduceSettings::addFile(const std::string& name) {
    if (!name.empty()) insertSorted(files, name);
}

void ReproduceSettings::addRunFile(const std::string& name) {
    if (name.empty()) return;
    insertSorted(runFiles, name);
    addFile(name);
}

void ReproduceSettings::addUnsupported(const std::string& what) {
    if (!what.empty()) insertSorted(unsupported, what);
}

const char* sourceName(ReproduceSource s) {
    return s == ReproduceSource::ComfyUI ? "comfyui" : "a1111";
}

nlohmann::ordered_json toJson(const ReproduceSettings& s) {
    nlohmann::ordered_json settings;
    settings["prompt"] = s.prompt;
    settings["negative_prompt"] = s.negativePrompt;
    settings["seed"] = s.seed;
    settings["steps"] = orNull(s.steps);
    settings["cfg"] = orNull(s.cfg);
    settings["guidance"] = orNull(s.guidance);
    settings["width"] = orNull(s.width);
    settings["height"] = orNull(s.height);
    settings["sampler"] = nameOrNull(s.sampler);
    settings["scheduler"] = nameOrNull(s.scheduler);
    // Denoise 1 (the whole schedule) is every text-to-image run: said only when it is not.
    if (s.denoise && *s.denoise != 1.0) settings["denoise"] = *s.denoise;
    if (s.shift) settings["shift"] = *s.shift;
    if (s.maxShift) settings["max_shift"] = *s.maxShift;
    if (s.baseShift) settings["base_shift"] = *s.baseShift;
    nlohmann::ordered_json j;
    j["source"] = sourceName(s.source);
    j["settings"] = std::move(settings);
    j["files"] = s.files;
    j["run_files"] = s.runFiles;
    if (!s.modelHash.empty()) j["model_hash"] = s.modelHash;
    if (!s.resolved.empty()) {
        nlohmann::ordered_json r = nlohmann::ordered_json::object();
        for (const std::string& f : s.files) r[f] = nameOrNull(pathOf(s, f));
        j["resolved"] = std::move(r);
    }
    j["stages"] = s.stages;
    j["family"] = nameOrNull(s.family);
    j["unsupported"] = s.unsupported;
    return j;
}

std::string formatSettings(const ReproduceSettings& s) {
    std::ostringstream out;
    out << "source:          "
        << (s.source == ReproduceSource::ComfyUI ? "ComfyUI" : "A1111 / Forge")
        << " (PNG text chunk '" << s.chunk << "')\n"
        << "prompt:          " << s.prompt << "\n"
        << "negative prompt: " << (s.negativePrompt.empty() ? "(none)" : s.negativePrompt) << "\n"
        << "seed:            " << (s.seed.is_null() ? "none" : s.seed.dump()) << "\n"
        << "steps:           " << orUnknown(s.steps) << "\n"
        << "cfg:             " << orUnknown(s.cfg) << "\n"
        << "guidance:        " << (s.guidance ? plainNumber(*s.guidance) : "none") << "\n"
        << "size:            " << orUnknown(s.width) << " x " << orUnknown(s.height) << "\n"
        << "sampler:         " << (s.sampler.empty() ? "unknown" : s.sampler) << "\n"
        << "scheduler:       " << (s.scheduler.empty() ? "unknown" : s.scheduler) << "\n";
    if (s.denoise && *s.denoise != 1.0)
        out << "denoise:         " << plainNumber(*s.denoise) << "\n";
    if (s.shift) out << "shift:           " << plainNumber(*s.shift) << "\n";
    if (s.maxShift) out << "max shift:       " << plainNumber(*s.maxShift) << "\n";
    if (s.baseShift) out << "base shift:      " << plainNumber(*s.baseShift) << "\n";
    out << "files:           " << joined(s.files) << "\n";
    if (s.runFiles != s.files) out << "run files:       " << joined(s.runFiles) << "\n";
    if (!s.modelHash.empty()) out << "model hash:      " << s.modelHash << "\n";
    for (const auto& [name, path] : s.resolved)
        out << "  " << name << ": " << (path.empty() ? "not found" : path) << "\n";
    out << "stages:          " << s.stages << (s.stages > 1 ? " (the first is reproduced)" : "")
        << "\n"
        << "family:          " << (s.family.empty() ? "unknown" : s.family) << "\n"
        << "unsupported:     " << joined(s.unsupported) << "\n";
    return out.str();
}

}  // namespace hs
