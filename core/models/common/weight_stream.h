#pragma once
// Block-by-block weight streaming, for models larger than memory (FLUX.1-dev: 12 B parameters,
// 24 GB in bf16, 48 GB in fp32 or an emulated format). A streamed load keeps the checkpoint
// mapped in its stored dtype and converts the parameters of one block (e.g.
// "transformer_blocks.3.") into the plan's format only while that block runs, with exactly the
// conversion a full load does (convertWeight), so the numbers are bit-identical. When the block
// is done its parameters go back to a placeholder and the mapped file pages it read are dropped
// from the process (madvise MADV_DONTNEED), so resident memory stays near the non-block weights
// plus one block. Non-block weights (embedders, final norms, proj_out) are loaded as usual.
#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "models/common/weights.h"
#include "numerics/precision_policy.h"

namespace hs {

// How a component holds its weights.
enum class LoadMode {
    Full,      // every weight converted into the plan's format at load time
    Streamed,  // block weights converted per block while it runs (see above)
};
const char* loadModeName(LoadMode mode);  // "full", "streamed"

// The block prefixes ("transformer_blocks.0.", ...) of the keys in `weights` that start with one
// of `stems` ("transformer_blocks.") followed by a number, in order of stem then number.
std::vector<std::string> blockPrefixesOf(const WeightMap& weights,
                                         const std::vector<std::string>& stems);

// The whole pages of a tensor's bytes that lie in a read-only file mapping (a view into a
// mapped checkpoint; the pages at its edges may hold its neighbours' bytes). Dropping them frees
// their memory; the file keeps the bytes. Empty for any other tensor: heap memory must never be
// dropped, it would read back as zeros.
struct MappedPages {
    uintptr_t first = 0, last = 0;
    void drop() const;  // madvise(MADV_DONTNEED); nothing when empty
};

// The process's read-only file mappings, read once from /proc/self/maps for a whole load (not
// per tensor, nor per block run).
class FileMappings {
public:
    FileMappings();
    MappedPages pagesOf(const torch::Tensor& stored) const;

private:
    std::vector<std::pair<uintptr_t, uintptr_t>> m_ranges;
};

class WeightStream {
public:
    // Keeps the block parameters of `module` (keys starting with one of `blockPrefixes`) as
    // their stored tensors in `weights` and puts a placeholder into each: a NaN expanded to the
    // parameter's shape and dtype (one element of storage), so a block run without its weights
    // yields NaN instead of plausible numbers. `component` and `policy` as for loadWeights.
    WeightStream(torch::nn::Module& module, const WeightMap& weights, const std::string& component,
                 const PrecisionPolicy& policy, const std::vector<std::string>& blockPrefixes);
    ~WeightStream();
    WeightStream(const WeightStream&) = delete;
    WeightStream& operator=(const WeightStream&) = delete;

    // Holds one block's parameters in the plan's format while alive (nested holds of the same
    // block share one conversion). A default-constructed scope holds nothing.
    class Scope {
    public:
        Scope() = default;
        Scope(Scope&& o) noexcept;
        Scope& operator=(Scope&& o) noexcept;
        ~Scope();

    private:
        friend class WeightStream;
        Scope(WeightStream* stream, size_t block) : m_stream(stream), m_block(block) {}
        WeightStream* m_stream = nullptr;
        size_t m_block = 0;
    };

    // Throws std::out_of_range for a prefix that is not one of the stream's blocks.
    Scope materialise(const std::string& prefix);

    const std::vector<std::string>& blocks() const { return m_prefixes; }
    bool isMaterialised(const std::string& prefix) const;
    size_t materialisedBlocks() const;
    // Bytes of one block's (or every block's) stored tensors, and of the largest block once
    // converted into the plan's format.
    uint64_t storedBytes(const std::string& prefix) const;
    uint64_t largestBlockBytes() const;
    // Conversions done and the time they took (for benchmarks).
    int64_t materialisations() const { return m_materialisations; }
    double materialiseMs() const { return m_materialiseMs; }

private:
    struct Param {
        std::string key;
        torch::Tensor param;   // the module's parameter (its data is swapped)
        torch::Tensor stored;  // the checkpoint tensor (a view into the mapping)
        torch::Tensor placeholder;
        MappedPages pages;  // `stored`'s pages in the mapped file, found once
        bool floating = true;
    };
    struct Block {
        std::vector<Param> params;
        int holds = 0;
    };
    void acquire(size_t block);
    void release(size_t block);

    std::string m_component;
    PrecisionPolicy m_policy;
    std::vector<std::string> m_prefixes;
    std::vector<Block> m_blocks;
    std::map<std::string, size_t> m_index;
    mutable std::mutex m_mutex;
    int64_t m_materialisations = 0;
    double m_materialiseMs = 0;
};

// A model whose forward runs its blocks through a WeightStream when it has one (Flux
// transformer, T5 encoder). Without a stream every hold is a no-op: a fully loaded model.
class StreamedBlocks {
public:
    void setWeightStream(std::shared_ptr<WeightStream> stream) { m_stream = std::move(stream); }
    const std::shared_ptr<WeightStream>& weightStream() const { return m_stream; }

protected:
    WeightStream::Scope holdBlock(const std::string& prefix) const {
        return m_stream ? m_stream->materialise(prefix) : WeightStream::Scope();
    }

private:
    std::shared_ptr<WeightStream> m_stream;
};

}  // namespace hs
