#pragma once
// ComfyUI's API graph: node id -> {class_type, inputs}, an input being a value or a link
// ["node id", output index]. Read with bounds (nesting, node and value counts are checked on a
// streaming pass before any tree is built) and checked whole: every link names a node of the
// graph, and no link path comes back to where it started.
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace hs {

constexpr size_t kMaxComfyNodes = 20000;        // the largest real workflows have a few thousand
constexpr size_t kMaxComfyJsonValues = 500000;  // every number, string, list and object

struct ComfyLink {
    std::string node;
    int slot = 0;
};

struct ComfyNode {
    std::string id;
    std::string type;       // class_type
    nlohmann::json inputs;  // an object: input name -> value or link
};

// Node ids in natural order ("9" before "10"); ids that are not numbers after those, by text.
struct NaturalIdLess {
    bool operator()(const std::string& a, const std::string& b) const;
};

class ComfyGraph {
public:
    using Nodes = std::map<std::string, ComfyNode, NaturalIdLess>;

    // Parses an API graph ("prompt" chunk). Throws std::runtime_error saying what is wrong.
    static ComfyGraph fromApiJson(const std::string& text);

    // Adds a node (the UI workflow reader builds graphs this way); call check() when done.
    void add(ComfyNode node);
    // Every link names a node of the graph; no cycle. Throws std::runtime_error naming them.
    void check() const;

    const Nodes& nodes() const { return m_nodes; }
    const ComfyNode* find(const std::string& id) const;

    // The link an input value is: a list of two, a node id (string or integer) and an index.
    static std::optional<ComfyLink> linkOf(const nlohmann::json& value);

private:
    Nodes m_nodes;
};

// "node 13 (KSampler)", for messages.
std::string describeNode(const ComfyNode& n);

// Streams `text` once without building a tree and throws std::runtime_error when it nests
// deeper than kMaxJsonDepth, holds more than `maxValues` values, or its top-level object more
// than `maxKeys` keys (`what` names them: "nodes"). Then parses it. Messages quote no values.
nlohmann::json parseBoundedJson(const std::string& text, const char* what, size_t maxKeys,
                                size_t maxValues = kMaxComfyJsonValues);

}  // namespace hs
