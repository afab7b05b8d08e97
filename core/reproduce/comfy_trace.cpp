#include "reproduce/comfy_trace.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include "reproduce/comfy_nodes.h"

namespace hs {

namespace {

// The longest chain of links followed for one setting. The graph has no cycle (checked on
// reading); this bounds the time a chain of 10^4 pass-through nodes takes.
constexpr int kMaxHops = 1000;

using json = nlohmann::json;

class Tracer {
public:
    Tracer(const ComfyGraph& g, ReproduceSettings& s) : m_graph(g), m_s(s) {}

    void run();

private:
    const ComfyNode* linked(const ComfyNode& n, const char* input, int* slot = nullptr) const;
    const ComfyNode& required(const ComfyNode& n, const char* input) const;
    // An input's value, through links to primitive nodes (PrimitiveInt, a seed node ...); null
    // when absent. `need`: a link to a node it cannot read is an error, else null.
    json value(const ComfyNode& n, const char* input, bool need) const;
    std::optional<double> number(const ComfyNode& n, const char* input) const;
    std::optional<int64_t> integer(const ComfyNode& n, const char* input) const;
    std::string text(const ComfyNode& n, const char* input) const;
    void hop(int& hops, const ComfyNode& at) const;

    const ComfyNode* previousStage(const ComfyNode& sampler) const;
    const ComfyNode& finalSampler() const;
    void readSampler(const ComfyNode& k);
    void readGuider(const ComfyNode& g);
    void readNoise(const ComfyNode& n);
    void readSamplerSelect(const ComfyNode& n);
    void readSigmas(const ComfyNode& n);
    std::string promptText(const ComfyNode& from, const char* input, bool positive);
    void readModel(const ComfyNode& from, const char* input);
    void readLatent(const ComfyNode& sampler);
    void readFilesAndNodes();
    void readRunFiles(const ComfyNode& sampler);
    void addLoaderFiles(const ComfyNode& n, bool run);

    const ComfyGraph& m_graph;
    ReproduceSettings& m_s;
};

void Tracer::hop(int& hops, const ComfyNode& at) const {
    if (++hops > kMaxHops)
        throw std::runtime_error("more than " + std::to_string(kMaxHops) +
                                 " nodes chained before " + describeNode(at) + " (the cap)");
}

const ComfyNode* Tracer::linked(const ComfyNode& n, const char* input, int* slot) const {
    const auto it = n.inputs.find(input);
    if (it == n.inputs.end()) return nullptr;
    const auto l = ComfyGraph::linkOf(*it);
    if (!l) return nullptr;
    if (slot) *slot = l->slot;
    return m_graph.find(l->node);  // present: checked on reading
}

const ComfyNode& Tracer::required(const ComfyNode& n, const char* input) const {
    const ComfyNode* m = linked(n, input);
    if (!m) throw std::runtime_error(describeNode(n) + " has no link on its input '" + input + "'");
    return *m;
}

json Tracer::value(const ComfyNode& n, const char* input, bool need) const {
    const ComfyNode* at = &n;
    std::string name = input;
    for (int hops = 0;; hop(hops, *at)) {
        const auto it = at->inputs.find(name);
        if (it == at->inputs.end()) return nullptr;
        const auto l = ComfyGraph::linkOf(*it);
        if (!l) return *it;
        const ComfyNode* from = m_graph.find(l->node);
        const char* key = primitiveValueInput(*from);
        if (!key) {
            if (!need) return nullptr;
            throw std::runtime_error(describeNode(n) + ": its input '" + input + "' comes from " +
                                     describeNode(*from) + ", whose value Halfscope cannot read");
        }
        at = from;
        name = key;
    }
}

std::optional<double> Tracer::number(const ComfyNode& n, const char* input) const {
    const json v = value(n, input, false);
    if (v.is_number()) return v.get<double>();
    return std::nullopt;
}

std::optional<int64_t> Tracer::integer(const ComfyNode& n, const char* input) const {
    const json v = value(n, input, false);
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_number_float() && v.get<double>() == double(int64_t(v.get<double>())))
        return int64_t(v.get<double>());
    return std::nullopt;
}

std::string Tracer::text(const ComfyNode& n, const char* input) const {
    const json v = value(n, input, true);
    if (v.is_string()) return v.get<std::string>();
    if (v.is_null()) return "";
    throw std::runtime_error(describeNode(n) + ": its input '" + input + "' is not text");
}

// The sampler a stage's latent comes from, through latent nodes (LatentUpscale ...); null for
// the first stage (an empty latent, an encoded image).
const ComfyNode* Tracer::previousStage(const ComfyNode& sampler) const {
    const ComfyNode* at = linked(sampler, "latent_image");
    for (int hops = 0; at; hop(hops, *at)) {
        if (isSamplerNode(*at)) return at;
        const ComfyNode* next = nullptr;
        for (const char* in : {"samples", "latent", "latent_image", "source"})
            if ((next = linked(*at, in))) break;
        at = next;
    }
    return nullptr;
}

// The sampler whose latent is decoded: the one no other sampler continues from, with the
// longest chain of stages before it; the first in id order among equals.
const ComfyNode& Tracer::finalSampler() const {
    std::vector<const ComfyNode*> samplers;
    std::set<std::string> continued;
    for (const auto& [id, n] : m_graph.nodes())
        if (isSamplerNode(n)) {
            samplers.push_back(&n);
            if (const ComfyNode* p = previousStage(n)) continued.insert(p->id);
        }
    if (samplers.empty())
        throw std::runtime_error(
            "the graph has no sampler node Halfscope reads (KSampler, KSamplerAdvanced, "
            "SamplerCustom, SamplerCustomAdvanced)");
    const ComfyNode* best = nullptr;
    int bestStages = 0;
    for (const ComfyNode* n : samplers) {
        if (continued.count(n->id)) continue;
        int stages = 1;
        for (const ComfyNode* p = previousStage(*n); p; p = previousStage(*p)) ++stages;
        if (stages > bestStages) best = n, bestStages = stages;
    }
    if (!best)  // every sampler continues another: impossible without a cycle
        throw std::runtime_error("the graph's samplers continue each other in a loop");
    m_s.stages = bestStages;
    return *best;
}

void Tracer::readNoise(const ComfyNode& n) {
    if (n.type == "RandomNoise") {
        m_s.seed = value(n, "noise_seed", true);
    } else if (n.type != "DisableNoise") {
        m_s.addUnsupported(n.type);
        m_s.seed = value(n, "noise_seed", false);
    }
}

void Tracer::readSamplerSelect(const ComfyNode& n) {
    if (n.type == "KSamplerSelect")
        m_s.sampler = text(n, "sampler_name");
    else if (const char* name = samplerOfNode(n.type))
        m_s.sampler = name;
    else
        m_s.addUnsupported(n.type);
}

void Tracer::readSigmas(const ComfyNode& sigmas) {
    const ComfyNode* n = &sigmas;
    for (int hops = 0; n; hop(hops, *n)) {
        if (n->type == "BasicScheduler") {
            m_s.scheduler = text(*n, "scheduler");
            m_s.steps = integer(*n, "steps");
            m_s.denoise = number(*n, "denoise");
            readModel(*n, "model");
            return;
        }
        if (const char* name = schedulerOfNode(n->type)) {
            m_s.scheduler = name;
            m_s.steps = integer(*n, "steps");
            if (n->inputs.contains("denoise")) m_s.denoise = number(*n, "denoise");
            if (n->inputs.contains("model")) readModel(*n, "model");
            return;
        }
        m_s.addUnsupported(n->type);  // SplitSigmas, FlipSigmas ... or not known
        n = linked(*n, "sigmas");
    }
}

void Tracer::readGuider(const ComfyNode& g) {
    if (g.type == "BasicGuider") {
        m_s.cfg = 1.0;  // no negative: the conditional prediction alone
        m_s.prompt = promptText(g, "conditioning", true);
    } else if (g.inputs.contains("positive") || g.inputs.contains("cond1")) {
        if (g.type != "CFGGuider") m_s.addUnsupported(g.type);  // DualCFGGuider, PerpNeg ...
        m_s.cfg = number(g, g.inputs.contains("cfg") ? "cfg" : "cfg_conds");
        m_s.prompt = promptText(g, g.inputs.contains("positive") ? "positive" : "cond1", true);
        if (g.inputs.contains("negative")) m_s.negativePrompt = promptText(g, "negative", false);
    } else {
        throw std::runtime_error("the sampler's guider is " + describeNode(g) +
                                 ", which Halfscope does not read");
    }
    readModel(g, "model");
}

void Tracer::readSampler(const ComfyNode& k) {
    if (k.type == "SamplerCustomAdvanced") {
        readNoise(required(k, "noise"));
        readGuider(required(k, "guider"));
        readSamplerSelect(required(k, "sampler"));
        readSigmas(required(k, "sigmas"));
    } else {
        const bool custom = k.type == "SamplerCustom";
        const bool advanced = custom || k.type == "KSamplerAdvanced";
        m_s.seed = value(k, advanced ? "noise_seed" : "seed", true);
        m_s.cfg = number(k, "cfg");
        m_s.prompt = promptText(k, "positive", true);
        m_s.negativePrompt = promptText(k, "negative", false);
        readModel(k, "model");
        if (custom) {
            readSamplerSelect(required(k, "sampler"));
            readSigmas(required(k, "sigmas"));
        } else {
            m_s.steps = integer(k, "steps");
            m_s.sampler = text(k, "sampler_name");
            m_s.scheduler = text(k, "scheduler");
            if (!advanced) m_s.denoise = number(k, "denoise");
        }
    }
    readLatent(k);
}

// The text of the conditioning on `from`'s `input`, through conditioning nodes; on the positive
// path a FluxGuidance (or CLIPTextEncodeFlux) sets the guidance.
std::string Tracer::promptText(const ComfyNode& from, const char* input, bool positive) {
    int slot = 0;
    const ComfyNode* n = linked(from, input, &slot);
    if (!n) return "";
    for (int hops = 0;; hop(hops, *n)) {
        const TextEncoderInputs enc = textEncoderOf(*n);
        if (enc.text) {
            if (!enc.known) m_s.addUnsupported(n->type);
            if (positive && enc.guidance && !m_s.guidance) m_s.guidance = number(*n, enc.guidance);
            for (const char* in : {enc.text, enc.fallback}) {
                if (!in) continue;
                std::string t = text(*n, in);
                if (!t.empty() || !enc.fallback || in == enc.fallback) return t;
            }
        }
        if (n->type == "ConditioningZeroOut") return "";
        if (n->type == "FluxGuidance") {
            if (positive && !m_s.guidance) m_s.guidance = number(*n, "guidance");
        } else {
            m_s.addUnsupported(n->type);
        }
        // Where it came from: ControlNetApplyAdvanced passes positive (output 0) and negative
        // (output 1); the others pass one conditioning on.
        const char* next = nullptr;
        if (n->inputs.contains("positive") && n->inputs.contains("negative"))
            next = slot == 1 ? "negative" : "positive";
        else
            for (const char* in : {"conditioning", "conditioning_to", "conditioning_1", "cond"})
                if (linked(*n, in)) {
                    next = in;
                    break;
                }
        const ComfyNode* prev = next ? linked(*n, next, &slot) : nullptr;
        if (!prev)
            throw std::runtime_error("the " + std::string(positive ? "prompt" : "negative prompt") +
                                     " comes from " + describeNode(*n) +
                                     ", which Halfscope does not read");
        n = prev;
    }
}

// Model sampling nodes between the sampler and the loader (their shift), and LoRAs and patches
// on the way (unsupported). A chain that ends elsewhere is not needed for the settings.
void Tracer::readModel(const ComfyNode& from, const char* input) {
    const ComfyNode* n = linked(from, input);
    for (int hops = 0; n; hop(hops, *n)) {
        if (n->type == "ModelSamplingFlux") {
            if (!m_s.maxShift) m_s.maxShift = number(*n, "max_shift");
            if (!m_s.baseShift) m_s.baseShift = number(*n, "base_shift");
        } else if (n->type == "ModelSamplingSD3" || n->type == "ModelSamplingAuraFlow") {
            if (!m_s.shift) m_s.shift = number(*n, "shift");
        }
        n = linked(*n, "model");
    }
}

// The first stage's latent: an empty latent's size, through latent nodes.
void Tracer::readLatent(const ComfyNode& sampler) {
    const ComfyNode* n = linked(sampler, "latent_image");
    for (int hops = 0; n; hop(hops, *n)) {
        if (isEmptyLatentNode(*n)) {
            m_s.width = integer(*n, "width");
            m_s.height = integer(*n, "height");
            return;
        }
        const ComfyNode* next = nullptr;
        for (const char* in : {"samples", "latent", "latent_image", "source"})
            if ((next = linked(*n, in))) break;
        n = next;
    }
}

void Tracer::addLoaderFiles(const ComfyNode& n, bool run) {
    for (const std::string& in : loaderFileInputs(n))
        if (const json v = value(n, in.c_str(), false); v.is_string())
            run ? m_s.addRunFile(v.get<std::string>()) : m_s.addFile(v.get<std::string>());
}

// Every loader's files, every node type Halfscope does not run, and the family the loaders
// name.
void Tracer::readFilesAndNodes() {
    FamilyHint family;
    for (const auto& [id, n] : m_graph.nodes()) {
        addLoaderFiles(n, false);
        if (!isKnownNode(n.type)) m_s.addUnsupported(n.type);
        if (n.type == "CLIPSetLastLayer" && integer(n, "stop_at_clip_layer").value_or(-1) != -1)
            m_s.addUnsupported("CLIPSetLastLayer");
        const FamilyHint hint = familyHint(n);
        if (!hint.family.empty() && (family.family.empty() || (hint.strong && !family.strong)))
            family = hint;
    }
    m_s.family = family.family;
}

// The files a run of the stage loads: the loaders of every node upstream of its sampler (the
// model, the conditioning's CLIP, a guider's and a scheduler's model), and the VAE loaders the
// graph's VAE decodes take (a checkpoint's own VAE comes with the checkpoint). Each node is
// visited once, so the walk is linear in the graph.
void Tracer::readRunFiles(const ComfyNode& sampler) {
    std::set<std::string> seen{sampler.id};
    std::vector<const ComfyNode*> todo{&sampler};
    while (!todo.empty()) {
        const ComfyNode* n = todo.back();
        todo.pop_back();
        addLoaderFiles(*n, true);
        for (const auto& [name, v] : n->inputs.items())
            if (const auto l = ComfyGraph::linkOf(v); l && seen.insert(l->node).second)
                todo.push_back(m_graph.find(l->node));
    }
    for (const auto& [id, n] : m_graph.nodes())
        if (n.type.rfind("VAEDecode", 0) == 0)
            if (const ComfyNode* vae = linked(n, "vae"); vae && vae->type == "VAELoader")
                addLoaderFiles(*vae, true);
}

void Tracer::run() {
    const ComfyNode& last = finalSampler();
    const ComfyNode* first = &last;
    while (const ComfyNode* p = previousStage(*first)) first = p;
    readSampler(*first);
    readFilesAndNodes();
    readRunFiles(*first);
}

}  // namespace

ReproduceSettings traceComfyGraph(const ComfyGraph& graph) {
    ReproduceSettings s;
    s.source = ReproduceSource::ComfyUI;
    Tracer(graph, s).run();
    return s;
}

}  // namespace hs
