#pragma once
// `halfscope-cli run-module`'s code path, for any registered family: one component folder
// (config.json + weights) or single-file checkpoint, its family found from the config's class
// name (or the file's layout), run on "in.*" tensors with probes.
#include <optional>
#include <string>
#include <vector>

#include "models/registry.h"

namespace hs {

struct ComponentRunOptions {
    std::optional<Format> precision;  // the whole component in this format (else stored dtype)
    PrecisionPlan rules;              // finer rules on top, e.g. "vae.decoder.up_blocks.0=fp32"
    torch::Device device{torch::kCPU};
    ProbeLevel level = ProbeLevel::Off;
    int repeat = 0;  // timed forwards after the first
    // Which part of a single file holding several ("transformer", "vae", "text_encoder" ...);
    // empty: the only one.
    std::string part;
};

struct ComponentRun {
    // The plan's prefix: the family's default component name, or a single file's slot.
    std::string component;
    std::string description;  // what was detected in a single file ("" for a folder)
    std::string className;
    std::string familyName;
    PrecisionPlan plan;  // stored dtype, then the precision, then the rules
    Execution execution = Execution::Native;
    NamedTensors outputs;
    std::optional<FirstNonFinite> firstNonFinite;
    std::vector<double> timesMs;  // one per repeat
};

// `dir` a component folder or a single .safetensors file. Throws FileError, ConfigError,
// WeightError, InputError, or std::runtime_error for a class no family loads or a part the
// file does not hold.
ComponentRun runComponentFolder(const std::string& dir, const NamedTensors& inputs,
                                const ComponentRunOptions& options);

}  // namespace hs
