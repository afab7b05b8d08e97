#pragma once
// Finding the model files an image names (reproduce/) among the library's entries: by name, as
// ComfyUI's loaders and A1111's infotext write it, and by A1111's "Model hash".
#include <functional>
#include <string>
#include <vector>

#include "library/library_cache.h"
#include "library/library_entry.h"
#include "reproduce/reproduce_settings.h"

namespace hs {

// The files behind the library's entries that `name` names: ComfyUI's "flux1-dev.safetensors"
// or "flux/flux1-dev.safetensors" (a subfolder of its models folder; '\' as on Windows) matches
// a path ending so; A1111's "v1-5-pruned-emaonly" (no extension) matches a file of that stem
// (.safetensors, .ckpt, .pt, .bin). Paths in the entries' order, each once.
std::vector<std::string> filesNamed(const LibraryReport& library, const std::string& name);

// A file's whole SHA-256 as hex.
using Sha256Of = std::function<std::string(const std::string& path)>;

// SHA-256s kept in the library's cache beside the file's header probe (computed once per file
// version; a file the cache does not know is hashed each time). `cache` must outlive the
// function; save it afterwards.
Sha256Of sha256Through(LibraryCache& cache);

// Whether the file at `path` has A1111's "Model hash" `hash`: 10 hex digits are the first of
// its SHA-256 (`sha256`), 8 the old A1111 hash (of the 64 KiB at 1 MiB). Throws FileError.
bool hasA1111Hash(const std::string& path, const std::string& hash, const Sha256Of& sha256);

// Fills s.resolved: each of s.files -> the first file named so, "" when none. When A1111's
// Model (s.hashedFile) is not found by name and s.modelHash is set, the library's single files that
// hold a denoiser are hashed until one matches (the user renamed the file); the match stands for
// it.
void resolveImageFiles(ReproduceSettings& s, const LibraryReport& library, const Sha256Of& sha256);

// The run files (s.runFiles) resolved to no path, in order.
std::vector<std::string> missingRunFiles(const ReproduceSettings& s);

// The library entries holding the resolved run files, each entry once (an all-in-one file or a
// shard set may hold several), in runFiles' order: what assembleFileSet takes.
std::vector<LibraryEntry> entriesOfRunFiles(const ReproduceSettings& s,
                                            const LibraryReport& library);

}  // namespace hs
