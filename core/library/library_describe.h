#pragma once
// One library entry from what is on disk: a single file, a shard set, a component folder or a
// pipeline folder, described from the safetensors headers of its files (given by a ProbeSource,
// which is where the cache sits) and its JSON files. Never throws: problems are the entry's
// `error`.
#include <map>
#include <string>
#include <vector>

#include "library/library_entry.h"

namespace hs {

class ProbeSource {
public:
    virtual ~ProbeSource() = default;
    virtual FileProbe probe(const std::string& path) = 0;
};

// .safetensors, a shard index, or a format listed with why it is not read (pickle, GGUF).
bool looksLikeModelFile(const std::string& fileName);
// The shard file names a *.safetensors.index.json names; empty when it cannot be read or names
// a shard outside its folder (checkShardName), with why in `problem` when given.
std::vector<std::string> shardsOfIndex(const std::string& indexPath,
                                       std::string* problem = nullptr);

LibraryEntry describeFile(const std::string& path, ProbeSource& probes);
LibraryEntry describeComponent(const std::string& dir, ProbeSource& probes);
LibraryEntry describePipeline(const std::string& dir, ProbeSource& probes);
LibraryEntry describeUnreadable(const std::string& path, const std::string& error);

// What the headers alone say about fp16: "weights fit fp16" when every floating tensor is
// stored in fp16 (activations may still overflow: only a run shows that), else "unknown" (the
// weight check, `inspect`, reads the weights and is not run by the library).
std::string fp16RiskFromHeader(const std::map<std::string, int64_t>& dtypeElements);

}  // namespace hs
