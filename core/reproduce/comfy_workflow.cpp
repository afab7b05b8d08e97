#include "reproduce/comfy_workflow.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace hs {

namespace {

using json = nlohmann::json;

// Widget names in the order the UI stores their values (each node's INPUT_TYPES, links left
// out). After a seed widget the UI stores its "control after generate" choice too.
const std::map<std::string, std::vector<const char*>>& widgetNames() {
    static const std::map<std::string, std::vector<const char*>> k = {
        {"KSampler", {"seed", "steps", "cfg", "sampler_name", "scheduler", "denoise"}},
        {"KSamplerAdvanced",
         {"add_noise", "noise_seed", "steps", "cfg", "sampler_name", "scheduler", "start_at_step",
          "end_at_step", "return_with_leftover_noise"}},
        {"SamplerCustom", {"add_noise", "noise_seed", "cfg"}},
        {"RandomNoise", {"noise_seed"}},
        {"KSamplerSelect", {"sampler_name"}},
        {"BasicScheduler", {"scheduler", "steps", "denoise"}},
        {"KarrasScheduler", {"steps", "sigma_max", "sigma_min", "rho"}},
        {"ExponentialScheduler", {"steps", "sigma_max", "sigma_min"}},
        {"PolyexponentialScheduler", {"steps", "sigma_max", "sigma_min", "rho"}},
        {"BetaSamplingScheduler", {"steps", "alpha", "beta"}},
        {"SDTurboScheduler", {"steps", "denoise"}},
        {"AlignYourStepsScheduler", {"model_type", "steps", "denoise"}},
        {"CFGGuider", {"cfg"}},
        {"DualCFGGuider", {"cfg_conds", "cfg_cond2_negative"}},
        {"FluxGuidance", {"guidance"}},
        {"CLIPTextEncode", {"text"}},
        {"CLIPTextEncodeSDXL",
         {"width", "height", "crop_w", "crop_h", "target_width", "target_height", "text_g",
          "text_l"}},
        {"CLIPTextEncodeSDXLRefiner", {"ascore", "width", "height", "text"}},
        {"CLIPTextEncodeFlux", {"clip_l", "t5xxl", "guidance"}},
        {"CLIPTextEncodeSD3", {"clip_l", "clip_g", "t5xxl", "empty_padding"}},
        {"CLIPSetLastLayer", {"stop_at_clip_layer"}},
        {"CheckpointLoaderSimple", {"ckpt_name"}},
        {"UNETLoader", {"unet_name", "weight_dtype"}},
        {"CLIPLoader", {"clip_name", "type", "device"}},
        {"DualCLIPLoader", {"clip_name1", "clip_name2", "type", "device"}},
        {"TripleCLIPLoader", {"clip_name1", "clip_name2", "clip_name3"}},
        {"QuadrupleCLIPLoader", {"clip_name1", "clip_name2", "clip_name3", "clip_name4"}},
        {"VAELoader", {"vae_name"}},
        {"LoraLoader", {"lora_name", "strength_model", "strength_clip"}},
        {"LoraLoaderModelOnly", {"lora_name", "strength_model"}},
        {"EmptyLatentImage", {"width", "height", "batch_size"}},
        {"EmptySD3LatentImage", {"width", "height", "batch_size"}},
        {"EmptyHunyuanLatentVideo", {"width", "height", "length", "batch_size"}},
        {"EmptyCosmosLatentVideo", {"width", "height", "length", "batch_size"}},
        {"EmptyHunyuanImageLatent", {"width", "height", "batch_size"}},
        {"LatentUpscale", {"upscale_method", "width", "height", "crop"}},
        {"LatentUpscaleBy", {"upscale_method", "scale_by"}},
        {"ModelSamplingFlux", {"max_shift", "base_shift", "width", "height"}},
        {"ModelSamplingSD3", {"shift"}},
        {"ModelSamplingAuraFlow", {"shift"}},
        {"ModelSamplingDiscrete", {"sampling", "zsnr"}},
        {"PrimitiveInt", {"value"}},
        {"PrimitiveFloat", {"value"}},
        {"PrimitiveString", {"value"}},
        {"PrimitiveStringMultiline", {"value"}},
        {"PrimitiveBoolean", {"value"}},
        {"SaveImage", {"filename_prefix"}},
    };
    return k;
}

bool isSeedWidget(const std::string& name) {
    return name == "seed" || name == "noise_seed";
}

bool isControlValue(const json& v) {
    return v.is_string() &&
           (v == "fixed" || v == "increment" || v == "decrement" || v == "randomize");
}

std::string idText(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
    return "";
}

// One entry of the links table: [id, from node, from slot, to node, to slot, type] or, in the
// newer form, an object with those names.
struct UiLink {
    std::string from;
    int slot = 0;
    std::string type;
};

struct UiInput {
    std::string name;
    std::optional<int64_t> link;
    bool widget = false;  // a widget turned into an input (its value is in widgets_values too)
    std::string type;
};

struct UiNode {
    std::string id;
    std::string type;
    int mode = 0;  // 0 runs, 2 muted (never runs), 4 bypassed (inputs passed on)
    std::vector<UiInput> inputs;
    json widgets;
};

class WorkflowReader {
public:
    explicit WorkflowReader(const json& w);
    ComfyGraph graph();

private:
    std::optional<ComfyLink> resolve(int64_t linkId, const std::string& wantedType) const;
    json inputsOf(const UiNode& n) const;

    std::map<int64_t, UiLink> m_links;
    std::map<std::string, UiNode> m_nodes;
};

WorkflowReader::WorkflowReader(const json& w) {
    const auto links = w.find("links");
    if (links != w.end() && links->is_array())
        for (const json& l : *links) {
            int64_t id = 0;
            UiLink u;
            if (l.is_array() && l.size() >= 5 && l[0].is_number_integer() &&
                l[2].is_number_integer()) {
                id = l[0].get<int64_t>();
                u.from = idText(l[1]);
                u.slot = int(l[2].get<int64_t>());
                if (l.size() >= 6 && l[5].is_string()) u.type = l[5].get<std::string>();
            } else if (l.is_object() && l.value("id", json()).is_number_integer() &&
                       l.value("origin_slot", json()).is_number_integer()) {
                id = l["id"].get<int64_t>();
                u.from = idText(l.value("origin_id", json()));
                u.slot = int(l["origin_slot"].get<int64_t>());
                if (l.value("type", json()).is_string()) u.type = l["type"].get<std::string>();
            } else {
                throw std::runtime_error(
                    "the workflow's links table has an entry that is not "
                    "a link");
            }
            m_links[id] = std::move(u);
        }
    const auto nodes = w.find("nodes");
    if (nodes == w.end() || !nodes->is_array())
        throw std::runtime_error("the workflow has no list of nodes");
    if (nodes->size() > kMaxComfyNodes)
        throw std::runtime_error("more than " + std::to_string(kMaxComfyNodes) +
                                 " nodes (the cap)");
    for (const json& n : *nodes) {
        if (!n.is_object() || !n.value("type", json()).is_string())
            throw std::runtime_error("the workflow has a node without a type");
        UiNode u;
        u.id = idText(n.value("id", json()));
        if (u.id.empty()) throw std::runtime_error("the workflow has a node without an id");
        u.type = n["type"].get<std::string>();
        if (n.value("mode", json()).is_number_integer()) u.mode = n["mode"].get<int>();
        if (n.value("inputs", json()).is_array())
            for (const json& in : n["inputs"]) {
                if (!in.is_object() || !in.value("name", json()).is_string()) continue;
                UiInput i;
                i.name = in["name"].get<std::string>();
                if (in.value("link", json()).is_number_integer())
                    i.link = in["link"].get<int64_t>();
                i.widget = in.contains("widget");
                if (in.value("type", json()).is_string()) i.type = in["type"].get<std::string>();
                u.inputs.push_back(std::move(i));
            }
        u.widgets = n.value("widgets_values", json());
        m_nodes[u.id] = std::move(u);
    }
}

// Where a link really starts: through reroutes and bypassed nodes (whose input of the link's
// type is passed on), as the frontend resolves them. Null: from a primitive node (the value is
// in the target's own widgets) or from nothing.
std::optional<ComfyLink> WorkflowReader::resolve(int64_t linkId, const std::string& type) const {
    for (size_t hops = 0; hops <= m_nodes.size(); ++hops) {
        const auto l = m_links.find(linkId);
        if (l == m_links.end()) return std::nullopt;
        const auto n = m_nodes.find(l->second.from);
        if (n == m_nodes.end())
            return ComfyLink{l->second.from, l->second.slot};  // check() names it
        const UiNode& from = n->second;
        if (from.type == "PrimitiveNode") return std::nullopt;
        const bool reroute = from.type == "Reroute";
        if (!reroute && from.mode != 4) return ComfyLink{from.id, l->second.slot};
        // A reroute passes its one input on; a bypassed node the first input of the type.
        const std::string& want = type.empty() ? l->second.type : type;
        const auto in = std::find_if(from.inputs.begin(), from.inputs.end(), [&](const UiInput& i) {
            return i.link && (reroute || i.type == want);
        });
        if (in == from.inputs.end()) return std::nullopt;
        linkId = *in->link;
    }
    throw std::runtime_error("the workflow's reroutes or bypassed nodes form a loop");
}

json WorkflowReader::inputsOf(const UiNode& n) const {
    json inputs = json::object();
    // Widget values by name: the node type's table, else (newer workflows) the inputs that
    // stand for widgets, in order; an object of values is already by name.
    if (n.widgets.is_object()) {
        for (const auto& [k, v] : n.widgets.items()) inputs[k] = v;
    } else if (n.widgets.is_array()) {
        std::vector<std::string> names;
        const auto known = widgetNames().find(n.type);
        if (known != widgetNames().end())
            names.assign(known->second.begin(), known->second.end());
        else
            for (const UiInput& i : n.inputs)
                if (i.widget) names.push_back(i.name);
        size_t at = 0;
        for (const std::string& name : names) {
            if (at >= n.widgets.size()) break;
            inputs[name] = n.widgets[at++];
            if (isSeedWidget(name) && at < n.widgets.size() && isControlValue(n.widgets[at])) ++at;
        }
    }
    for (const UiInput& i : n.inputs) {
        if (!i.link) continue;
        const auto l = resolve(*i.link, i.type);
        if (l) inputs[i.name] = json::array({l->node, l->slot});
    }
    return inputs;
}

ComfyGraph WorkflowReader::graph() {
    ComfyGraph g;
    for (const auto& [id, n] : m_nodes) {
        // Not run, or resolved into the links of the nodes they feed.
        if (n.mode == 2 || n.mode == 4 || n.type == "Reroute" || n.type == "PrimitiveNode" ||
            n.type == "Note" || n.type == "MarkdownNote")
            continue;
        g.add({n.id, n.type, inputsOf(n)});
    }
    // A link into a node left out above (muted) names no node of the graph: drop it, as the
    // frontend does, so that only links to nowhere fail the check.
    ComfyGraph out;
    for (auto [id, n] : g.nodes()) {
        for (auto it = n.inputs.begin(); it != n.inputs.end();) {
            const auto l = ComfyGraph::linkOf(*it);
            const auto from = l ? m_nodes.find(l->node) : m_nodes.end();
            if (l && from != m_nodes.end() && !g.find(l->node))
                it = n.inputs.erase(it);
            else
                ++it;
        }
        out.add(std::move(n));
    }
    out.check();
    return out;
}

}  // namespace

ComfyGraph comfyGraphFromWorkflow(const std::string& text) {
    const json w = parseBoundedJson(text, "keys", 1000);
    if (!w.is_object()) throw std::runtime_error("the workflow is not a JSON object");
    return WorkflowReader(w).graph();
}

}  // namespace hs
