#include "library/library_cache.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "io/bounded_read.h"

namespace hs {

namespace {

// 2: fp8 dtypes as "e4m3" / "scaled e4m3", and scaled-fp8 files converted (no longer errors).
constexpr int kCacheVersion = 2;
constexpr uint64_t kMaxCacheBytes = 256ull << 20;

nlohmann::json toJson(const FileProbe& p) {
    nlohmann::json parts = nlohmann::json::array();
    for (const auto& part : p.parts)
        parts.push_back({{"slot", part.slot},
                         {"class", part.className},
                         {"description", part.description},
                         {"config", part.config}});
    return {{"size", p.size},
            {"mtime_ns", p.mtimeNs},
            {"inode", p.inode},
            {"device", p.device},
            {"error", p.error},
            {"tensors", p.tensors},
            {"parameters", p.parameters},
            {"dtypes", p.dtypes},
            {"layouts", p.layouts},
            {"parts", parts},
            {"headline", p.headline},
            {"conversion_error", p.conversionError},
            {"sha256", p.sha256}};
}

FileProbe fromJson(const std::string& path, const nlohmann::json& j) {
    FileProbe p;
    p.path = path;
    p.size = j.at("size").get<uint64_t>();
    p.mtimeNs = j.at("mtime_ns").get<int64_t>();
    p.inode = j.at("inode").get<uint64_t>();
    p.device = j.at("device").get<uint64_t>();
    p.error = j.at("error").get<std::string>();
    p.tensors = j.at("tensors").get<int64_t>();
    p.parameters = j.at("parameters").get<int64_t>();
    p.dtypes = j.at("dtypes").get<std::map<std::string, int64_t>>();
    p.layouts = j.at("layouts").get<std::vector<std::string>>();
    for (const auto& part : j.at("parts"))
        p.parts.push_back({part.at("slot").get<std::string>(), part.at("class").get<std::string>(),
                           part.at("description").get<std::string>(),
                           part.at("config").get<std::string>()});
    p.headline = j.at("headline").get<std::string>();
    p.conversionError = j.at("conversion_error").get<std::string>();
    p.sha256 = j.value("sha256", "");  // absent before hashes were kept
    return p;
}

}  // namespace

std::string defaultLibraryCachePath() {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg && *xdg == '/') return std::string(xdg) + "/halfscope/library.json";
    const char* home = std::getenv("HOME");
    if (home && *home) return std::string(home) + "/.cache/halfscope/library.json";
    return "";
}

LibraryCache::LibraryCache(std::string path, std::string* problem) : m_path(std::move(path)) {
    if (problem) problem->clear();
    std::error_code ec;
    if (m_path.empty() || !std::filesystem::exists(m_path, ec)) return;
    try {
        const nlohmann::json j = readBoundedJson(m_path, kMaxCacheBytes, "library cache");
        if (!j.is_object() || j.value("version", 0) != kCacheVersion) {
            if (problem) *problem = m_path + ": another version; rebuilt";
            return;
        }
        for (const auto& [file, entry] : j.at("files").items())
            m_files.emplace(file, fromJson(file, entry));
    } catch (const std::exception& e) {
        m_files.clear();
        if (problem) *problem = std::string(e.what()) + " (cache ignored and rebuilt)";
    }
}

std::optional<FileProbe> LibraryCache::find(const FileProbe& current) const {
    auto it = m_files.find(current.path);
    if (it == m_files.end()) return std::nullopt;
    const FileProbe& c = it->second;
    if (c.size != current.size || c.mtimeNs != current.mtimeNs || c.inode != current.inode ||
        c.device != current.device)
        return std::nullopt;
    return c;
}

void LibraryCache::put(const FileProbe& probe) {
    m_files[probe.path] = probe;
}

void LibraryCache::save() const {
    if (m_path.empty()) return;
    nlohmann::json files = nlohmann::json::object();
    for (const auto& [path, probe] : m_files) {
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0) continue;  // gone: forget it
        files[path] = toJson(probe);
    }
    const nlohmann::json j{{"version", kCacheVersion}, {"files", files}};
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(m_path).parent_path(), ec);
    const std::string text =
        j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    writeFileAtomically(m_path, text.data(), text.size());
}

}  // namespace hs
