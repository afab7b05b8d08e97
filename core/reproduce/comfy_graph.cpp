#include "reproduce/comfy_graph.h"

#include <stdexcept>
#include <utility>
#include <vector>

#include "io/bounded_read.h"

namespace hs {

namespace {

// Counts what a parse would build; stops (returns false) at the first cap passed.
struct CountingSax {
    size_t maxKeys = 0;
    size_t maxValues = 0;
    size_t values = 0;
    size_t topKeys = 0;
    int depth = 0;
    std::string over;  // which cap stopped it

    bool value() {
        if (++values <= maxValues) return true;
        over = "values";
        return false;
    }
    bool null() { return value(); }
    bool boolean(bool) { return value(); }
    bool number_integer(nlohmann::json::number_integer_t) { return value(); }
    bool number_unsigned(nlohmann::json::number_unsigned_t) { return value(); }
    bool number_float(nlohmann::json::number_float_t, const std::string&) { return value(); }
    bool string(std::string&) { return value(); }
    bool binary(nlohmann::json::binary_t&) { return value(); }
    bool start_object(size_t) {
        ++depth;
        return value();
    }
    bool end_object() {
        --depth;
        return true;
    }
    bool start_array(size_t) {
        ++depth;
        return value();
    }
    bool end_array() {
        --depth;
        return true;
    }
    bool key(std::string&) {
        if (depth != 1 || ++topKeys <= maxKeys) return true;
        over = "keys";
        return false;
    }
    bool parse_error(size_t, const std::string&, const nlohmann::detail::exception&) {
        return false;  // the parse below reports it
    }
};

bool allDigits(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

}  // namespace

bool NaturalIdLess::operator()(const std::string& a, const std::string& b) const {
    const bool da = allDigits(a), db = allDigits(b);
    if (da != db) return da;
    if (da && a.size() != b.size()) return a.size() < b.size();
    return a < b;
}

nlohmann::json parseBoundedJson(const std::string& text, const char* what, size_t maxKeys,
                                size_t maxValues) {
    checkJsonDepth(text);
    CountingSax sax;
    sax.maxKeys = maxKeys;
    sax.maxValues = maxValues;
    nlohmann::json::sax_parse(text, &sax);  // false on a syntax error too: the parse says it
    if (sax.over == "values")
        throw std::runtime_error("more than " + std::to_string(maxValues) +
                                 " JSON values (the cap)");
    if (sax.over == "keys")
        throw std::runtime_error("more than " + std::to_string(maxKeys) + " " + what +
                                 " (the cap)");
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(boundedJsonError(e));
    }
}

std::string describeNode(const ComfyNode& n) {
    return "node " + n.id + " (" + n.type + ")";
}

std::optional<ComfyLink> ComfyGraph::linkOf(const nlohmann::json& v) {
    if (!v.is_array() || v.size() != 2 || !v[1].is_number_integer()) return std::nullopt;
    ComfyLink l;
    if (v[0].is_string())
        l.node = v[0].get<std::string>();
    else if (v[0].is_number_integer())
        l.node = std::to_string(v[0].get<int64_t>());
    else
        return std::nullopt;
    const int64_t slot = v[1].get<int64_t>();
    if (slot < 0 || slot > 1000) return std::nullopt;
    l.slot = int(slot);
    return l;
}

ComfyGraph ComfyGraph::fromApiJson(const std::string& text) {
    const nlohmann::json j = parseBoundedJson(text, "nodes", kMaxComfyNodes);
    if (!j.is_object()) throw std::runtime_error("the graph is not a JSON object of nodes");
    ComfyGraph g;
    for (const auto& [id, node] : j.items()) {
        if (!node.is_object() || !node.contains("class_type") || !node["class_type"].is_string())
            throw std::runtime_error("node " + id + " has no class_type");
        ComfyNode n;
        n.id = id;
        n.type = node["class_type"].get<std::string>();
        const auto in = node.find("inputs");
        if (in != node.end() && !in->is_null() && !in->is_object())
            throw std::runtime_error(describeNode(n) + ": its inputs are not an object");
        n.inputs = in != node.end() && in->is_object() ? *in : nlohmann::json::object();
        g.add(std::move(n));
    }
    g.check();
    return g;
}

void ComfyGraph::add(ComfyNode node) {
    const std::string id = node.id;
    m_nodes[id] = std::move(node);
}

const ComfyNode* ComfyGraph::find(const std::string& id) const {
    const auto it = m_nodes.find(id);
    return it == m_nodes.end() ? nullptr : &it->second;
}

void ComfyGraph::check() const {
    for (const auto& [id, n] : m_nodes)
        for (const auto& [name, v] : n.inputs.items())
            if (const auto l = linkOf(v); l && !find(l->node))
                throw std::runtime_error(describeNode(n) + ": input '" + name + "' links to node " +
                                         l->node + ", which is not in the graph");
    // Depth-first over the links with an explicit stack (a chain of 10^4 nodes must not
    // overflow the call stack): a link to a node still on the path is a cycle.
    enum : char { New, OnPath, Done };
    std::map<std::string, char, NaturalIdLess> state;
    for (const auto& [start, unused] : m_nodes) {
        if (state[start] != New) continue;
        struct Frame {
            const ComfyNode* node;
            nlohmann::json::const_iterator next;
        };
        std::vector<Frame> stack{{&m_nodes.at(start), m_nodes.at(start).inputs.begin()}};
        state[start] = OnPath;
        while (!stack.empty()) {
            Frame& f = stack.back();
            if (f.next == f.node->inputs.end()) {
                state[f.node->id] = Done;
                stack.pop_back();
                continue;
            }
            const auto l = linkOf(*f.next);
            ++f.next;
            if (!l) continue;
            char& s = state[l->node];
            if (s == OnPath)
                throw std::runtime_error("the graph has a cycle: " + describeNode(*f.node) +
                                         " takes an input from node " + l->node +
                                         ", which depends on it");
            if (s == Done) continue;
            s = OnPath;
            const ComfyNode& next = m_nodes.at(l->node);
            stack.push_back({&next, next.inputs.begin()});
        }
    }
}

}  // namespace hs
