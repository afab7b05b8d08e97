#include "report/message_json.h"

namespace hs {

nlohmann::ordered_json messageToJson(const MessageText& m) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& piece : m) a.push_back({{"id", piece.id}, {"args", piece.args}});
    return a;
}

MessageText messageFromJson(const json_in::Node& n) {
    if (!n.raw().is_array()) n.fail("expected an array of messages");
    MessageText m;
    for (size_t i = 0; i < n.size(); ++i) {
        const json_in::Node p = n.at(i);
        Message piece;
        piece.id = p["id"].string();
        const json_in::Node args = p["args"];
        if (!args.raw().is_array()) args.fail("expected an array of strings");
        for (size_t k = 0; k < args.size(); ++k) piece.args.push_back(args.at(k).string());
        m.push_back(std::move(piece));
    }
    return m;
}

MessageText optionalMessage(const json_in::Node& n, const char* key) {
    return n.has(key) ? messageFromJson(n[key]) : MessageText{};
}

}  // namespace hs
