#include "records/message.h"

#include <sstream>
#include <unordered_map>

namespace hs {

const MessageTemplate* findMessage(std::string_view id) {
    static const std::unordered_map<std::string_view, const MessageTemplate*> byId = [] {
        std::unordered_map<std::string_view, const MessageTemplate*> m;
        for (const auto& t : messageCatalogue()) m.emplace(t.id, &t);
        return m;
    }();
    const auto it = byId.find(id);
    return it == byId.end() ? nullptr : it->second;
}

int placeholderCount(std::string_view text) {
    int n = 0;
    for (size_t i = 0; i + 1 < text.size(); ++i)
        if (text[i] == '%' && text[i + 1] >= '1' && text[i + 1] <= '9')
            n = std::max(n, text[i + 1] - '0');
    return n;
}

std::string fillTemplate(std::string_view text, const std::vector<std::string>& args) {
    std::string out;
    out.reserve(text.size() + 32);
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 1 < text.size() && text[i + 1] >= '1' && text[i + 1] <= '9') {
            const size_t n = size_t(text[i + 1] - '1');
            if (n < args.size()) {
                out += args[n];
                ++i;
                continue;
            }
        }
        out += text[i];
    }
    return out;
}

std::string englishText(const Message& m) {
    const MessageTemplate* t = findMessage(m.id);
    return t ? fillTemplate(t->text, m.args) : std::string();
}

std::string englishText(const MessageText& m) {
    std::string s;
    for (const auto& piece : m) s += englishText(piece);
    return s;
}

std::string renderText(const MessageText& m, const std::string& english,
                       const MessageTranslator& translate) {
    if (m.empty() || !translate) return english;
    std::string s;
    for (const auto& piece : m) {
        const MessageTemplate* t = findMessage(piece.id);
        if (!t || int(piece.args.size()) < placeholderCount(t->text)) return english;
        s += fillTemplate(translate(*t), piece.args);
    }
    return s;
}

std::string numberText(double v, int precision) {
    std::ostringstream s;
    s.precision(precision);
    s << v;
    return s.str();
}

}  // namespace hs
