#include "library/library_lookup.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "io/sha256.h"
#include "library/header_probe.h"

namespace hs {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string baseName(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "model.safetensors" -> "model"; only the extensions model files have.
std::string stemOf(const std::string& name) {
    for (const char* ext : {".safetensors", ".ckpt", ".pt", ".pth", ".bin"}) {
        const std::string e = ext;
        if (name.size() > e.size() && lower(name.substr(name.size() - e.size())) == e)
            return name.substr(0, name.size() - e.size());
    }
    return name;
}

bool matches(const std::string& path, const std::string& wanted) {
    if (path == wanted) return true;
    if (path.size() > wanted.size() &&
        path.compare(path.size() - wanted.size(), wanted.size(), wanted) == 0 &&
        path[path.size() - wanted.size() - 1] == '/')
        return true;
    // A1111 writes the checkpoint's name without its extension.
    return stemOf(wanted) == wanted && stemOf(baseName(path)) == baseName(wanted) &&
           stemOf(baseName(path)) != baseName(path);
}

bool holdsDenoiser(const LibraryEntry& e) {
    return e.slots.count("unet") || e.slots.count("transformer");
}

}  // namespace

std::vector<std::string> filesNamed(const LibraryReport& library, const std::string& name) {
    std::string wanted = name;
    std::replace(wanted.begin(), wanted.end(), '\\', '/');
    while (!wanted.empty() && wanted.front() == '/') wanted.erase(wanted.begin());
    std::vector<std::string> out;
    if (wanted.empty()) return out;
    std::set<std::string> seen;
    for (const LibraryEntry& e : library.entries)
        for (const std::string& f : e.files)
            if (matches(f, wanted) && seen.insert(f).second) out.push_back(f);
    return out;
}

Sha256Of sha256Through(LibraryCache& cache) {
    return [&cache](const std::string& path) {
        FileProbe now;
        now.path = path;
        std::optional<FileProbe> known;
        if (statForProbe(path, now)) known = cache.find(now);
        if (known && !known->sha256.empty()) return known->sha256;
        const std::string hash = sha256OfFile(path);
        if (known) {
            known->sha256 = hash;
            cache.put(*known);
        }
        return hash;
    };
}

bool hasA1111Hash(const std::string& path, const std::string& hash, const Sha256Of& sha256) {
    const std::string h = lower(hash);
    if (h.size() == 8) return sha256OfFile(path, 0x100000, 0x10000).substr(0, 8) == h;
    return h.size() >= 10 && h.size() <= 64 && sha256(path).substr(0, h.size()) == h;
}

void resolveImageFiles(ReproduceSettings& s, const LibraryReport& library, const Sha256Of& sha256) {
    for (const std::string& f : s.files) {
        const auto found = filesNamed(library, f);
        s.resolved[f] = found.empty() ? "" : found.front();
    }
    if (s.modelHash.empty() || !s.resolved.count(s.hashedFile) || !s.resolved[s.hashedFile].empty())
        return;
    for (const LibraryEntry& e : library.entries) {
        if (e.kind != EntryKind::SingleFile || !holdsDenoiser(e)) continue;
        try {
            if (hasA1111Hash(e.path, s.modelHash, sha256)) {
                s.resolved[s.hashedFile] = e.path;
                return;
            }
        } catch (const std::exception&) {
            // An unreadable file is not the one; the library lists it with its error.
        }
    }
}

std::vector<std::string> missingRunFiles(const ReproduceSettings& s) {
    std::vector<std::string> out;
    for (const std::string& f : s.runFiles) {
        const auto at = s.resolved.find(f);
        if (at == s.resolved.end() || at->second.empty()) out.push_back(f);
    }
    return out;
}

std::vector<LibraryEntry> entriesOfRunFiles(const ReproduceSettings& s,
                                            const LibraryReport& library) {
    std::vector<LibraryEntry> picked;
    for (const std::string& f : s.runFiles) {
        const auto at = s.resolved.find(f);
        if (at == s.resolved.end() || at->second.empty()) continue;
        const std::string& path = at->second;
        const auto e = std::find_if(
            library.entries.begin(), library.entries.end(), [&](const LibraryEntry& x) {
                return x.path == path || std::count(x.files.begin(), x.files.end(), path);
            });
        if (e == library.entries.end()) continue;
        if (std::none_of(picked.begin(), picked.end(),
                         [&](const LibraryEntry& p) { return p.path == e->path; }))
            picked.push_back(*e);
    }
    return picked;
}

}  // namespace hs
