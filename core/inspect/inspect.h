#pragma once
// What is in a checkpoint, and would its weights survive being stored in fp16 or bf16?
// Backs `halfscope-cli inspect PATH [--json]` for a safetensors file, a component folder or a
// pipeline folder. Tensors are processed one at a time as views into the mapped files, so
// memory stays bounded whatever the model size.
#include <torch/types.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/safetensors.h"

namespace hs {

// What casting finite stored values to a narrower format does to them. Counted from the
// stored dtype exactly as a cast rounds (round to nearest even):
//   overflow:  finite values that become +-Inf (fp16: |x| >= 65520, i.e. past 65504 after
//              rounding; bf16: only past ~3.39e38, so never for fp16/bf16-stored weights)
//   underflow: nonzero values that become 0 (fp16: |x| <= 2^-25 ~ 2.98e-8; bf16: |x| <=
//              2^-134 ~ 4.6e-41, half of its smallest subnormal 9.2e-41)
//   subnormal: values that land in the format's subnormal range and lose precision
//              (fp16: below 2^-14 ~ 6.1e-5; bf16: below 2^-126 ~ 1.2e-38)
// Counting uses bit patterns, not float comparisons, so it is right even with
// flush-to-zero/denormals-are-zero enabled (configureRuntime() turns that on).
struct RangeCounts {
    int64_t overflow = 0;
    int64_t underflow = 0;
    int64_t subnormal = 0;
    void add(const RangeCounts& o) {
        overflow += o.overflow;
        underflow += o.underflow;
        subnormal += o.subnormal;
    }
};

// One floating tensor's range check.
struct TensorRange {
    int64_t count = 0;      // elements checked
    int64_t nonFinite = 0;  // NaN or Inf already in storage
    double absMax = 0;      // largest finite |x| (0 when none)
    RangeCounts fp16, bf16;
};

// Any floating CPU tensor (F64 goes through float32 first: a value exactly halfway between
// two fp16 values after that rounding may be counted on the wrong side; harmless here).
TensorRange rangeCheck(const torch::Tensor& t);

// Tensors grouped by top-level module.
struct ModuleSummary {
    std::string name;
    int64_t tensors = 0;
    int64_t parameters = 0;  // elements of all tensors
    int64_t checked = 0;     // elements range-checked (floating tensors LibTorch can read)
    int64_t nonFinite = 0;
    double absMax = 0;
    RangeCounts fp16, bf16;
    void add(const std::string& dtype, int64_t numel, const TensorRange* r);
};

struct DTypeCount {
    int64_t tensors = 0;
    int64_t parameters = 0;
};

struct ComponentSummary {
    std::string name;       // "vae", or the file / folder name
    std::string kind;       // "model", "tokenizer", "scheduler", "other"
    std::string className;  // "" when unknown (a bare file)
    std::string variant;    // weights variant opened ("" plain)
    std::string path;       // folder or file
    std::vector<std::string> weightFiles;
    int64_t tensors = 0;
    int64_t parameters = 0;
    uint64_t bytes = 0;                        // tensor data bytes
    std::map<std::string, DTypeCount> dtypes;  // "F32", "e4m3", "scaled e4m3" -> counts
    std::vector<ModuleSummary> modules;        // sorted by name
    ModuleSummary total;
    // ComfyUI's scaled fp8 (io/scaled_fp8.h): weights range-checked times their scale_weight,
    // and the scale_input values by weight, read and not applied. The marker and the scales are
    // counted in `bytes` only.
    int64_t scaledWeights = 0;
    std::map<std::string, float> inputScales;
    std::string error;  // pipelines: why this component could not be read ("" when it was)
};

// What a single .safetensors file holds in the single-file layouts Halfscope converts
// (models/single_file.h): flux1-dev.safetensors, ae.safetensors, an SD 1.5 checkpoint ...
struct SingleFileSummary {
    struct Part {
        std::string slot;       // "transformer"
        std::string className;  // "FluxTransformer2DModel"
        std::string description;
    };
    bool examined = false;  // true for a file
    // One line naming what the file is: "SDXL base, SGM layout: UNet 2.57 B, two text encoders,
    // VAE; fp16 weights" (inspect/inspect_headline.h); "" when nothing converts.
    std::string headline;
    std::vector<std::string> layouts;  // detected, with their prefix; empty: none recognised
    std::vector<Part> components;      // what converts
    std::vector<std::string> notConverted;
    std::vector<std::string> ignored;  // keys no layout claims
    std::string error;                 // a layout matched but does not convert: why
};

struct InspectReport {
    std::string path;
    std::string kind;       // "file", "component", "pipeline"
    std::string className;  // pipeline class, or the component's
    std::vector<ComponentSummary> components;
    SingleFileSummary singleFile;  // kind "file" only
    // A component that could not be read, or a single-file layout that does not convert.
    bool hasErrors() const {
        if (!singleFile.error.empty()) return true;
        for (const auto& c : components)
            if (!c.error.empty()) return true;
        return false;
    }
};

// "decoder.up_blocks.0.resnets.0.conv1.weight" -> "decoder";
// "text_model.encoder.layers.0.mlp.fc1.weight" -> "text_model.encoder".
std::string topLevelModule(const std::string& key);

// Summarises every tensor of `set` (one at a time).
ComponentSummary inspectTensors(const TensorSet& set);

// A safetensors file (or *.safetensors.index.json), a component folder or a pipeline folder.
// `variant` selects weights variants in folders (see openComponent). Throws FileError, except
// for a pipeline's components: one that cannot be read (pickle only, corrupt weights) gets its
// `error` set and the others are still inspected.
InspectReport inspectPath(const std::string& path, const std::string& variant = "");

nlohmann::json toJson(const InspectReport& r);
std::string formatReport(const InspectReport& r);  // human-readable tables

}  // namespace hs
