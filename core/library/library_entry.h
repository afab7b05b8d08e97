#pragma once
// The model library: the models a user already has in other tools' folders (the Hugging Face
// cache, ComfyUI, AUTOMATIC1111/Forge) and in folders they add, found without copying anything
// and described from the safetensors headers alone (names, dtypes, shapes), never the weights.
// No LibTorch in this header: the studio's panel and the CLI table read these values.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hs {

// What one safetensors file's header says. Cached between scans (library/library_cache.h),
// keyed by the file's path, size, mtime and inode.
struct FileProbe {
    std::string path;   // as found (a snapshot's symlink, not its blob)
    uint64_t size = 0;  // of the file the path leads to (symlinks followed)
    int64_t mtimeNs = 0;
    uint64_t inode = 0, device = 0;
    std::string error;  // why the header could not be read ("" when it was)
    int64_t tensors = 0;
    int64_t parameters = 0;                 // elements of all tensors
    std::map<std::string, int64_t> dtypes;  // "BF16", "e4m3", "scaled e4m3" -> elements
    std::vector<std::string> layouts;       // single-file layouts detected, with prefix
    struct Part {
        std::string slot, className, description;
        std::string config;  // the converted config.json, as JSON text
    };
    std::vector<Part> parts;      // what the single-file layouts convert to
    std::string headline;         // "SDXL base, SGM layout: ..." ("" when not converted)
    std::string conversionError;  // a layout matched but does not convert: why
    std::string sha256;           // the whole file's, hex; "" until asked (A1111's model hash)
};

enum class EntryKind { Pipeline, Component, SingleFile, ShardSet, Unreadable };
std::string entryKindName(EntryKind k);  // "pipeline", "component", "file", "shards", "unreadable"

struct LibraryEntry {
    std::string name;    // "black-forest-labs/FLUX.1-dev", "flux1-dev.safetensors"
    std::string path;    // the folder or file
    std::string source;  // "hf-cache", "comfyui", "a1111", "user"
    std::string folder;  // the tool's folder kind it was found in: "vae", "checkpoints", ...
    EntryKind kind = EntryKind::SingleFile;
    std::string family;       // the principal component's family ("Flux transformer"), "" unknown
    std::string className;    // pipeline or principal component class
    std::string variant;      // short: "FLUX.1-dev style", "SD 1.x-style, LDM layout", "fp16 ..."
    std::string description;  // the detectors' whole line for a single file (the headline)
    std::vector<std::string> layouts;  // "Black Forest Labs Flux transformer", "diffusers"
    // Slots the entry can fill in a file set ("transformer", "vae", "text_encoder", ...), with
    // the class each converts to.
    std::map<std::string, std::string> slots;
    std::string dtype;       // most common stored floating dtype by elements: "BF16"
    int64_t parameters = 0;  // elements of all tensors
    int64_t tensors = 0;
    uint64_t bytes = 0;  // on disk, symlinks followed, each inode once
    // "unknown" unless the header alone tells: see fp16RiskFromHeader().
    std::string fp16Risk = "unknown";
    std::string mainConfig;  // single files: the principal part's converted config.json (JSON)
    std::vector<std::string> files;  // the safetensors files behind it
    std::string error;               // "" when readable; listed, never hidden
};

struct LibraryReport {
    std::vector<LibraryEntry> entries;
    std::vector<std::string> notes;  // caps reached, sources missing, yaml problems
    int headerReads = 0;             // safetensors headers read in this scan (cache misses)
    int cacheHits = 0;
};

}  // namespace hs
