#include "demo/prompt_words.h"

#include <algorithm>
#include <map>

#include "demo/caption_grammar.h"
#include "demo/demo_tokenizer.h"
#include "text/clip_tokenizer.h"

namespace hs::demo {

namespace {

// bytes_to_unicode's inverse: a piece's symbols back to the bytes of the prompt.
std::string piecesToText(const std::vector<std::string>& pieces) {
    static const std::map<std::string, char> byteOf = [] {
        std::map<std::string, char> m;
        for (int b = 0; b < 256; ++b) m[byteToUnicode()[size_t(b)]] = char(b);
        return m;
    }();
    std::string joined, text;
    for (const auto& p : pieces) joined += p;
    const std::string end = "</w>";
    if (joined.size() >= end.size() &&
        joined.compare(joined.size() - end.size(), end.size(), end) == 0)
        joined.resize(joined.size() - end.size());
    // Symbols are 1 to 2 bytes of UTF-8 (U+0021..U+0143).
    for (size_t i = 0; i < joined.size();) {
        const size_t n = (static_cast<unsigned char>(joined[i]) < 0x80) ? 1 : 2;
        auto it = byteOf.find(joined.substr(i, n));
        text += it != byteOf.end() ? it->second : '?';
        i += n;
    }
    return text;
}

}  // namespace

std::vector<std::string> wordsNotUnderstood(const ClipTokenizer& tokenizer,
                                            const std::string& prompt) {
    std::vector<std::string> unknown, word;
    auto report = [&](const std::string& text) {
        if (std::find(unknown.begin(), unknown.end(), text) == unknown.end())
            unknown.push_back(text);
    };
    const ClipSpecialTokens& specials = tokenizer.specialTokens();
    // One-symbol words are base tokens: understood only where the grammar has them ("a", ",").
    const std::vector<std::string> grammar = grammarWords();
    for (const auto& piece : tokenizer.pieces(prompt)) {
        if (piece == specials.bos || piece == specials.eos || piece == specials.pad) {
            report(piece);
            continue;
        }
        word.push_back(piece);
        const bool wordEnds = piece.size() >= 4 && piece.compare(piece.size() - 4, 4, "</w>") == 0;
        if (!wordEnds) continue;
        const std::string text = piecesToText(word);
        if (word.size() > 1 || std::find(grammar.begin(), grammar.end(), text) == grammar.end())
            report(text);
        word.clear();
    }
    return unknown;
}

std::vector<std::string> understoodWords(const ClipTokenizer& tokenizer) {
    std::vector<std::string> words;
    for (const auto& w : grammarWords())
        if (tokenizer.pieces(w).size() == 1) words.push_back(w);
    return words;
}

std::string notUnderstoodNote(const std::vector<std::string>& words) {
    if (words.empty()) return "";
    std::string list;
    for (const auto& w : words) list += (list.empty() ? "\"" : ", \"") + w + "\"";
    return "words not understood by the demo model: " + list +
           " (it was trained on a small grammar of shapes, colours, sizes and positions; other "
           "words reach it as letters it never learned and are ignored at best)";
}

}  // namespace hs::demo
