#include "library/library_scan.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "io/bounded_read.h"
#include "io/model_folder.h"
#include "io/terminal_text.h"
#include "library/header_probe.h"
#include "library/library_cache.h"
#include "library/library_describe.h"
#include "library/model_paths_yaml.h"
#include "base/affixes.h"

namespace hs {

namespace fs = std::filesystem;

namespace {

// ComfyUI's folder kinds that hold what Halfscope runs (loras, controlnets ... are not models
// of their own).
const std::vector<std::string> kComfyKinds{"checkpoints", "diffusion_models", "unet", "vae",
                                           "clip",        "text_encoders"};
const std::vector<std::string> kA1111Folders{"Stable-diffusion", "VAE", "text_encoder"};

bool isDir(const fs::path& p) {
    std::error_code ec;
    return fs::is_directory(p, ec);
}

std::string canonicalOr(const fs::path& p) {
    std::error_code ec;
    const fs::path c = fs::canonical(p, ec);
    return ec ? p.lexically_normal().string() : c.string();
}

class Scanner : public ProbeSource {
public:
    Scanner(const LibraryOptions& o) : m_opt(o), m_cache(o.cachePath, &m_cacheProblem) {
        if (!m_cacheProblem.empty()) m_report.notes.push_back(m_cacheProblem);
    }

    FileProbe probe(const std::string& path) override {
        FileProbe current;
        current.path = path;
        // Checked before each file of a pipeline or shard set, not only between folder
        // entries: a 30-shard folder on a slow disk is many reads.
        if (cancelled()) {
            current.error = "not read: the scan was stopped";
            return current;
        }
        if (const std::string out = outsideConfinement(path); !out.empty()) {
            current.error = out;
            return current;
        }
        if (!statForProbe(path, current)) return current;
        if (auto hit = m_cache.find(current)) {
            ++m_report.cacheHits;
            hit->path = path;
            return *hit;
        }
        FileProbe p = probeSafetensorsFile(path);
        ++m_report.headerReads;
        // A file that could not be opened (permissions) may become readable without changing
        // its size or mtime: read it again next time.
        if (p.error.rfind("cannot open", 0) != 0) m_cache.put(p);
        return p;
    }

    void run() {
        std::vector<std::string> hf = m_opt.hfCaches;
        if (hf.empty() && m_opt.defaultHfCache) hf = defaultHfCaches();
        for (const auto& h : hf) scanHf(h);
        for (const auto& c : m_opt.comfyui) scanComfy(c);
        for (const auto& a : m_opt.a1111) scanA1111(a);
        for (const auto& u : m_opt.user) scanUser(u);
        try {
            m_cache.save();
        } catch (const std::exception& e) {
            m_report.notes.push_back(std::string("library cache not saved: ") + e.what());
        }
    }

    LibraryReport take() { return std::move(m_report); }

private:
    void note(const std::string& n) {
        for (const auto& have : m_report.notes)
            if (have == n) return;
        m_report.notes.push_back(n);
    }

    bool cancelled() const { return m_opt.cancel && m_opt.cancel->load(); }

    // While a Hugging Face repository is scanned: "" when `path` resolves inside it, else why
    // it is not followed (a snapshot's files link to ../../blobs; a link to / or to another
    // user's files is not part of the cache).
    std::string outsideConfinement(const std::string& path) const {
        if (m_confine.empty()) return "";
        const std::string real = canonicalOr(path);
        if (real.compare(0, m_confine.size() + 1, m_confine + "/") == 0 || real == m_confine)
            return "";
        return "a symlink that leads out of the Hugging Face cache repository (to " + real +
               "): not followed";
    }

    // describeFile/Component/Pipeline never throw by contract; anything that escapes them
    // (an allocation failure on a strange file, a bug) is the entry's error, not the end of the
    // scan thread and with it the studio.
    template <class Describe>
    void addDescribed(const std::string& path, Describe describe, const std::string& source,
                      const std::string& folder, const std::string& name) {
        LibraryEntry e;
        try {
            e = describe();
        } catch (const std::exception& ex) {
            e = describeUnreadable(path, std::string("could not be described: ") + ex.what());
        }
        add(std::move(e), source, folder, name);
    }

    void add(LibraryEntry e, const std::string& source, const std::string& folder,
             const std::string& name) {
        if (!m_seenEntries.insert(canonicalOr(e.path)).second) return;  // found twice
        if (m_report.entries.size() >= m_opt.maxEntries) {
            note("stopped listing at " + std::to_string(m_opt.maxEntries) +
                 " entries (the cap); narrow the folders given");
            m_stopped = true;
            return;
        }
        e.source = source;
        e.folder = folder;
        e.name = name;
        m_report.entries.push_back(std::move(e));
    }

    // One more folder entry looked at; false once the cap is reached.
    bool visit() {
        if (m_stopped) return false;
        if (cancelled()) {
            note("scan stopped before the end; the list is incomplete");
            m_stopped = true;
            return false;
        }
        if (++m_visited > m_opt.maxVisited) {
            note("stopped after looking at " + std::to_string(m_opt.maxVisited) +
                 " folder entries (the cap); the list is incomplete");
            m_stopped = true;
            return false;
        }
        return true;
    }

    // A folder (or file) given as a source must be scanned once, however many ways it is named.
    bool firstTime(const fs::path& p) { return m_seenFolders.insert(canonicalOr(p)).second; }

    // What is at `path`, when it is a model: a pipeline or component folder, a safetensors file,
    // a shard index, a pickle or GGUF file (listed with why it is not read). Folders that are
    // neither are walked. `name` is how the entry is listed.
    void scanPath(const fs::path& path, const std::string& source, const std::string& folder,
                  const std::string& name, int depth, bool inWalk) {
        const std::string p = path.string();
        std::error_code ec;
        const auto lst = fs::symlink_status(path, ec);
        const auto st = fs::status(path, ec);
        const std::string file = path.filename().string();
        if (fs::is_symlink(lst)) {
            if (const std::string out = outsideConfinement(p); !out.empty()) {
                add(describeUnreadable(p, out), source, folder, name);
                return;
            }
        }
        if (fs::is_symlink(lst) && !fs::exists(st)) {
            if (looksLikeModelFile(file) || !inWalk)
                add(describeUnreadable(
                        p, "dangling symlink to " + fs::read_symlink(path, ec).string()),
                    source, folder, name);
            return;
        }
        if (fs::is_directory(st)) {
            // A link to a folder above this one (families/vae/up -> ..) would list the tree
            // again under other names: a loop, said and skipped.
            if (fs::is_symlink(lst)) {
                const std::string target = canonicalOr(path) + "/";
                const std::string here = canonicalOr(path.parent_path()) + "/";
                if (here.compare(0, target.size(), target) == 0) {
                    note(p + ": a symlink to a folder above it, not followed");
                    return;
                }
            }
            if (isPipelineFolder(p))
                addDescribed(p, [&] { return describePipeline(p, *this); }, source, folder, name);
            else if (isComponentFolder(p))
                addDescribed(p, [&] { return describeComponent(p, *this); }, source, folder,
                             name);
            else if (depth >= m_opt.maxDepth)
                note("not looked below " + std::to_string(m_opt.maxDepth) + " folder levels (" + p +
                     ")");
            else
                walk(path, source, folder, name.empty() ? "" : name + "/", depth + 1);
            return;
        }
        if (!looksLikeModelFile(file)) {
            if (!inWalk)
                add(describeUnreadable(p, "not a model file (.safetensors expected)"), source,
                    folder, name);
            return;
        }
        addDescribed(p, [&] { return describeFile(p, *this); }, source, folder, name);
    }

    void walk(const fs::path& dir, const std::string& source, const std::string& folder,
              const std::string& prefix, int depth) {
        // A symlink back up the tree (or two names of one folder) is walked once.
        if (!m_walked.insert(canonicalOr(dir)).second) return;
        std::error_code ec;
        fs::directory_iterator it(dir, fs::directory_options::none, ec);
        if (ec) {
            add(describeUnreadable(dir.string(), "cannot list folder: " + ec.message()), source,
                folder,
                prefix.empty() ? dir.filename().string() : prefix.substr(0, prefix.size() - 1));
            return;
        }
        std::vector<fs::path> children;
        for (; it != fs::directory_iterator(); it.increment(ec)) {
            if (ec || !visit()) break;
            children.push_back(it->path());
        }
        std::sort(children.begin(), children.end());
        // Shards named by an index in this folder are the index's entry, not entries of their
        // own.
        std::set<std::string> claimed;
        for (const auto& c : children)
            if (endsWith(c.filename().string(), ".safetensors.index.json"))
                for (const auto& s : shardsOfIndex(c.string())) claimed.insert(s);
        for (const auto& c : children) {
            if (m_stopped) return;
            if (claimed.count(c.filename().string())) continue;
            scanPath(c, source, folder, prefix + c.filename().string(), depth, true);
        }
    }

    void scanHf(const std::string& root) {
        if (!isDir(root)) {
            note("Hugging Face cache " + root + ": no such folder");
            return;
        }
        if (!firstTime(root)) return;
        std::error_code ec;
        std::vector<fs::path> repos;
        for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
            if (!visit()) break;
            if (it->path().filename().string().rfind("models--", 0) == 0)
                repos.push_back(it->path());
        }
        std::sort(repos.begin(), repos.end());
        for (const auto& repo : repos) {
            m_confine = canonicalOr(repo);
            std::string name = repo.filename().string().substr(8);
            for (size_t at; (at = name.find("--")) != std::string::npos;) name.replace(at, 2, "/");
            std::vector<fs::path> snapshots;
            std::string rev;
            if (fs::exists(repo / "refs" / "main", ec)) {
                try {
                    // Bounded and regular files only: a FIFO there must not block the scan.
                    rev = readBoundedFile((repo / "refs" / "main").string(), 4096, "refs/main");
                } catch (const std::exception& e) {
                    add(describeUnreadable(repo.string(), e.what()), "hf-cache", "hub", name);
                    continue;
                }
                while (!rev.empty() && std::isspace(static_cast<unsigned char>(rev.back())))
                    rev.pop_back();
                // A commit hash: a name with '/' or ".." would lead out of snapshots/.
                if (rev.empty() || rev.find('/') != std::string::npos || rev == "." ||
                    rev == "..") {
                    add(describeUnreadable(repo.string(),
                                           "refs/main does not hold a snapshot name: '" +
                                               printable(rev.substr(0, 60)) + "'"),
                        "hf-cache", "hub", name);
                    continue;
                }
            }
            if (!rev.empty()) {
                snapshots.push_back(repo / "snapshots" / rev);
            } else {
                for (fs::directory_iterator s(repo / "snapshots", ec), end; !ec && s != end;
                     s.increment(ec))
                    if (visit()) snapshots.push_back(s->path());
                std::sort(snapshots.begin(), snapshots.end());
            }
            if (snapshots.empty()) {
                add(describeUnreadable(repo.string(),
                                       "no snapshot (refs/main and snapshots/ empty)"),
                    "hf-cache", "hub", name);
                continue;
            }
            for (const auto& snap : snapshots) {
                const std::string label = snapshots.size() > 1
                                              ? name + "@" + snap.filename().string().substr(0, 8)
                                              : name;
                if (!isDir(snap)) {
                    add(describeUnreadable(snap.string(), "refs/main names snapshot " +
                                                              snap.filename().string() +
                                                              ", which is missing"),
                        "hf-cache", "hub", label);
                    continue;
                }
                if (isPipelineFolder(snap.string())) {
                    // FLUX.1-dev's repository also holds its single files at the top.
                    const std::string dir = snap.string();
                    addDescribed(dir, [&] { return describePipeline(dir, *this); }, "hf-cache",
                                 "hub", label);
                    for (fs::directory_iterator f(snap, ec), end; !ec && f != end;
                         f.increment(ec)) {
                        const std::string file = f->path().string();
                        if (visit() && endsWith(file, ".safetensors"))
                            addDescribed(file, [&] { return describeFile(file, *this); },
                                         "hf-cache", "hub",
                                         label + ": " + f->path().filename().string());
                    }
                } else {
                    scanPath(snap, "hf-cache", "hub", label, 0, false);
                }
            }
        }
        m_confine.clear();  // other sources are not confined
    }

    void scanFolder(const fs::path& dir, const std::string& source, const std::string& folder) {
        if (!isDir(dir) || !firstTime(dir)) return;
        walk(dir, source, folder, "", 1);
    }

    void scanComfy(const std::string& root) {
        if (!isDir(root)) {
            note("ComfyUI folder " + root + ": no such folder");
            return;
        }
        const fs::path models = fs::path(root) / "models";
        if (!isDir(models)) note("ComfyUI folder " + root + ": no models/ folder in it");
        for (const auto& kind : kComfyKinds) scanFolder(models / kind, "comfyui", kind);
        const fs::path yaml = fs::path(root) / "extra_model_paths.yaml";
        std::error_code ec;
        if (!fs::exists(yaml, ec)) return;
        std::vector<ModelPathSection> sections;
        try {
            sections = readModelPathsYaml(yaml.string());
        } catch (const std::exception& e) {
            note(std::string("extra_model_paths.yaml not read: ") + e.what());
            return;
        }
        for (const auto& s : sections)
            for (const auto& [kind, folders] : s.kinds) {
                if (std::find(kComfyKinds.begin(), kComfyKinds.end(), kind) == kComfyKinds.end())
                    continue;
                for (const auto& f : folders) {
                    if (!isDir(f))
                        note(yaml.string() + ": " + s.name + "." + kind + ": " + f +
                             ": no such folder");
                    scanFolder(f, "comfyui", kind);
                }
            }
    }

    void scanA1111(const std::string& root) {
        if (!isDir(root)) {
            note("AUTOMATIC1111/Forge folder " + root + ": no such folder");
            return;
        }
        const fs::path models = fs::path(root) / "models";
        if (!isDir(models / "Stable-diffusion"))
            note("AUTOMATIC1111/Forge folder " + root + ": no models/Stable-diffusion folder");
        for (const auto& f : kA1111Folders) scanFolder(models / f, "a1111", f);
    }

    void scanUser(const std::string& path) {
        if (!firstTime(path)) return;
        fs::path p(path);
        std::string name = p.filename().string();
        if (name.empty()) name = p.parent_path().filename().string();
        scanPath(p, "user", "added", name, 0, false);
    }

    const LibraryOptions& m_opt;
    std::string m_cacheProblem;
    LibraryCache m_cache;
    LibraryReport m_report;
    size_t m_visited = 0;
    bool m_stopped = false;
    std::string m_confine;  // the Hugging Face repository being scanned, canonical
    std::set<std::string> m_seenFolders, m_seenEntries, m_walked;
};

}  // namespace

std::vector<std::string> defaultHfCaches() {
    std::string dir;
    if (const char* hub = std::getenv("HF_HUB_CACHE"); hub && *hub)
        dir = hub;
    else if (const char* home = std::getenv("HF_HOME"); home && *home)
        dir = std::string(home) + "/hub";
    else if (const char* user = std::getenv("HOME"); user && *user)
        dir = std::string(user) + "/.cache/huggingface/hub";
    if (dir.empty() || !isDir(dir)) return {};
    return {dir};
}

LibraryReport scanLibrary(const LibraryOptions& options) {
    Scanner s(options);
    try {
        s.run();
    } catch (const std::exception& e) {  // std::bad_alloc, a filesystem_error, ...
        LibraryReport r = s.take();
        r.notes.push_back(std::string("scan ended early: ") + e.what());
        return r;
    }
    return s.take();
}

}  // namespace hs
