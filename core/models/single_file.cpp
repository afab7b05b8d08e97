#include "models/single_file.h"

#include <map>
#include <set>

#include "base/affixes.h"

namespace hs {

namespace {

// One layout found under one prefix, with the tensors it owns (prefix removed).
struct Found {
    const SingleFileLayout* layout;
    std::string prefix;
    WeightMap keys;
};

// Every layout found, in detection order; a key belongs to the first layout that owns it.
std::vector<Found> findLayouts(const WeightMap& all, std::set<std::string>& claimed) {
    std::vector<Found> found;
    for (const SingleFileLayout& layout : singleFileLayouts()) {
        for (const std::string& prefix : layout.prefixes) {
            if (!layout.detect(all, prefix)) continue;
            Found f{&layout, prefix, {}};
            for (const std::string& root : layout.roots) {
                const std::string head = prefix + root;
                for (auto it = all.lower_bound(head); it != all.end(); ++it) {
                    if (!startsWith(it->first, head)) break;
                    if (!claimed.count(it->first))
                        f.keys.emplace(it->first.substr(prefix.size()), it->second);
                }
            }
            if (f.keys.empty()) continue;  // all taken by a layout before (Chroma's img_in)
            for (const auto& kv : f.keys) claimed.insert(prefix + kv.first);
            found.push_back(std::move(f));
        }
    }
    return found;
}

std::string placeOf(const Found& f) {
    return f.prefix.empty() ? "at the root" : f.prefix + "*";
}

// The no-match error: what is known, and what the file starts with.
[[noreturn]] void noLayout(const WeightMap& all, const std::string& path) {
    std::string known;
    for (const auto& l : singleFileLayouts()) known += (known.empty() ? "" : ", ") + l.name;
    std::string first;
    bool diffusersKeys = false;
    int shown = 0;
    for (const auto& kv : all) {
        diffusersKeys |= kv.first.find("transformer_blocks.") != std::string::npos ||
                         kv.first.find("down_blocks.") != std::string::npos ||
                         kv.first.find("up_blocks.") != std::string::npos;
        if (shown++ < 4)
            first += (first.empty() ? "'" : ", '") + kv.first + "' " + shapeText(kv.second.sizes());
    }
    std::string msg =
        path + ": no single-file layout Halfscope knows matches this file (known: " + known + "). ";
    msg += all.empty()
               ? "It holds no tensors."
               : "It holds " + std::to_string(all.size()) + " tensors, beginning " + first + ".";
    if (diffusersKeys)
        msg +=
            " Its keys look like diffusers' own: open the component folder (with its "
            "config.json) instead.";
    throw WeightError(msg);
}

}  // namespace

std::function<bool(const WeightMap& all, const std::string& prefix)> markerKeys(
    std::vector<std::string> all, std::vector<std::string> any) {
    return [all = std::move(all), any = std::move(any)](const WeightMap& w, const std::string& p) {
        for (const std::string& k : all)
            if (!w.count(p + k)) return false;
        for (const std::string& k : any)
            if (w.count(p + k)) return true;
        return any.empty();
    };
}

std::vector<std::string> detectSingleFile(const WeightMap& all) {
    std::set<std::string> claimed;
    std::vector<std::string> names;
    for (const Found& f : findLayouts(all, claimed))
        names.push_back(f.layout->name + " (" + placeOf(f) + ")");
    return names;
}

SingleFileContents convertSingleFile(const WeightMap& all, const std::string& path) {
    SingleFileContents out;
    std::set<std::string> claimed;
    std::map<std::string, std::string> placed;  // slot -> the layout and place that gave it
    for (Found& f : findLayouts(all, claimed)) {
        const SingleFileLayout& l = *f.layout;
        if (!l.convert) {
            out.notConverted.push_back(l.name + " (" + placeOf(f) + ", " +
                                       std::to_string(f.keys.size()) +
                                       " tensors): not converted: " + l.notConverted);
            continue;
        }
        LayoutKeys keys(std::move(f.keys), f.prefix, l.name, path);
        try {
            out.components.push_back(l.convert(keys, all));
        } catch (const ConfigError& e) {
            const std::string what = e.what();
            if (startsWith(what, path)) throw;
            throw ConfigError(keys.where() + what);
        }
        keys.finish();
        // One file, two transformers (a layout under model.diffusion_model. and again at the
        // root): the pipeline would keep one and drop the other without a word.
        const std::string here = l.name + " " + placeOf(f);
        const auto [it, fresh] = placed.emplace(out.components.back().slot, here);
        if (!fresh)
            throw WeightError(path + ": two '" + it->first + "' components in one file (" +
                              it->second + ", and " + here +
                              "); Halfscope does not guess which one is meant: save them as "
                              "two files");
    }
    for (const auto& kv : all)
        if (!claimed.count(kv.first)) out.ignored.push_back(kv.first);
    if (!out.components.empty()) return out;
    if (out.notConverted.empty()) noLayout(all, path);
    std::string held;
    for (const auto& n : out.notConverted) held += (held.empty() ? "" : "; ") + n;
    throw WeightError(path + ": holds nothing Halfscope can load yet: " + held);
}

SingleFileContents readSingleFile(const std::string& path) {
    // The weights are views into the mapping, which they keep alive after the set is gone.
    return convertSingleFile(weightMapOf(TensorSet::open(path)), path);
}

}  // namespace hs
