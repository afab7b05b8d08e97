#include "cli/library_options.h"

#include "library/library_cache.h"

namespace hs::cli {

LibraryOptions libraryOptionsFrom(const Args& args) {
    LibraryOptions o;
    o.comfyui = args.all("comfyui");
    o.a1111 = args.all("a1111");
    o.user = args.all("add");
    o.hfCaches = args.all("hf-cache");
    o.cachePath =
        args.has("no-cache") ? "" : args.get("cache-file").value_or(defaultLibraryCachePath());
    const int maxEntries = args.getInt("max-entries", static_cast<int>(o.maxEntries));
    const int maxDepth = args.getInt("max-depth", o.maxDepth);
    if (maxEntries < 1 || maxEntries > 1000000) throw UsageError("--max-entries: 1 to 1000000");
    if (maxDepth < 0 || maxDepth > 64) throw UsageError("--max-depth: 0 to 64");
    o.maxEntries = static_cast<size_t>(maxEntries);
    o.maxDepth = maxDepth;
    return o;
}

}  // namespace hs::cli
