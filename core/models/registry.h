#pragma once
// The model families Halfscope loads, found by the class name in a component's config.json
// (diffusers "_class_name", transformers "architectures"). A family is one folder under models/
// plus one line in models/families.cpp (see docs/ADDING_A_MODEL.md); `run-module`, the pipeline
// and `inspect` look families up here and never name one.
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/common/named_tensors.h"
#include "models/common/weight_stream.h"
#include "models/common/weights.h"
#include "numerics/probe.h"
#include "records/run_types.h"

namespace hs {

// A loaded model of some family. Role interfaces (models/roles.h) add what a pipeline needs.
class Component {
public:
    virtual ~Component() = default;
    virtual torch::nn::Module& module() = 0;
    // The family's "in.*" tensors -> its "out.*" tensors (float32), as `run-module` and the
    // golden files name them. Throws InputError naming the key and the expected shape.
    virtual NamedTensors run(const NamedTensors& inputs, ProbeContext& probes) = 0;
    // The model's stream hook when its family can stream (Family::blockStems), else null.
    virtual StreamedBlocks* streamedBlocks() { return nullptr; }
    // Streamed when loaded with LoadMode::Streamed (its blocks' weights then live in a
    // WeightStream), else Full.
    LoadMode loadMode() {
        StreamedBlocks* s = streamedBlocks();
        return s && s->weightStream() ? LoadMode::Streamed : LoadMode::Full;
    }
};

// What a component is loaded from.
struct ComponentSource {
    std::string dir;        // the folder (or file) it came from, for messages
    nlohmann::json config;  // its config.json
    WeightMap weights;      // checkpoint keys as the family's module names its parameters
};

// The tokenizer a text encoder family reads its ids with, for a model opened from single files,
// which carry none: the pipeline looks for it beside the files, else takes the bundled one.
struct TokenizerFiles {
    std::string className;             // model_index.json's class for it: "CLIPTokenizer"
    std::string what;                  // "CLIP tokenizer", for messages
    std::vector<std::string> markers;  // a folder holding one of these is one, in this order
    std::string bundled;               // the one Halfscope ships (resources/tokenizers/<name>)
    // The tokenizer config for the bundled one, given the encoder's config (OpenCLIP's
    // tokenizer is CLIP-L's padding with "!"); null: none.
    std::function<nlohmann::json(const nlohmann::json& encoderConfig)> bundledConfig = {};
};

struct Family {
    std::string name;                     // "CLIP text encoder", for messages and --help
    std::vector<std::string> classNames;  // "_class_name" / "architectures" values it loads
    Role role = Role::Other;              // its role when the pipeline does not say otherwise
    std::string defaultComponent;         // its usual key in model_index.json: "text_encoder"
    std::string io;                       // run-module's keys: "in.x -> out.y, out.z"
    // Builds the model `source.config` describes (every size bounded, ConfigError otherwise),
    // parameters uninitialised and probe paths under `component`. Runs twice per load: first
    // under nn::MetaConstruction, to check the weights' names and shapes before anything is
    // allocated, then for real.
    std::function<std::shared_ptr<Component>(const ComponentSource& source,
                                             const std::string& component)>
        build;
    // Checkpoint keys the model does not hold, skipped when loading (globs allowed).
    std::function<std::vector<std::string>(const ComponentSource& source)> ignoredKeys;
    // Key stems of the repeated blocks ("transformer_blocks.", "encoder.block."): a family that
    // names them (and whose components return streamedBlocks()) can load LoadMode::Streamed.
    std::vector<std::string> blockStems;
    // A text encoder's tokenizer (className empty: the family needs none).
    TokenizerFiles tokenizer = {};
};

class FamilyRegistry {
public:
    // The built-in families (registered on first use) and any added since.
    static FamilyRegistry& global();

    // Throws std::invalid_argument when one of its class names is already taken.
    void add(Family family);
    // The family loading `className`, or null.
    std::shared_ptr<const Family> find(const std::string& className) const;
    // As find(), but throws std::runtime_error "<where>: model class 'X' is not supported
    // (supported: ...)".
    std::shared_ptr<const Family> require(const std::string& className,
                                          const std::string& where) const;
    std::vector<std::string> classNames() const;

private:
    mutable std::mutex m_mutex;
    std::vector<std::shared_ptr<const Family>> m_families;
};

// Registers the families that ship with Halfscope (models/families.cpp).
void registerBuiltinFamilies(FamilyRegistry& registry);

// Checks `source.weights` against `family`'s model built on the meta device, then builds it and
// loads the weights in `policy`'s formats, in eval mode, without autograd. Throws ConfigError or
// WeightError, their messages prefixed with `source.dir`.
// LoadMode::Streamed loads the non-block weights and leaves the blocks' (Family::blockStems) in
// `source.weights`, converted block by block while the model runs (models/common/weight_stream.h):
// the mapped file must outlive the component (its views in the stream keep it alive). Throws
// std::invalid_argument when the family cannot stream.
std::shared_ptr<Component> loadComponent(const Family& family, const ComponentSource& source,
                                         const PrecisionPolicy& policy,
                                         const std::string& component,
                                         LoadMode mode = LoadMode::Full);

// The most common floating dtype among a component's weights: the format it runs in when the
// plan says nothing about it. `dtypeName` gets its safetensors name ("BF16").
Format storedFormatOf(const TensorSet& weights, std::string* dtypeName = nullptr);
// The same over loaded or converted tensors (views keep their stored dtype).
Format storedFormatOf(const WeightMap& weights, std::string* dtypeName = nullptr);

int64_t parameterCount(torch::nn::Module& module);

}  // namespace hs
