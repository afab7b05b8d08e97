// Follows transformers' CLIPTokenizer (tokenization_clip.py, slow tokenizer, ftfy installed)
// and openai/CLIP's SimpleTokenizer (simple_tokenizer.py), which agree on the golden texts.
#include "text/clip_tokenizer.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "text/clip_bpe.h"
#include "text/text_cleanup.h"
#include "text/tokenizer_files.h"
#include "text/unicode.h"
#include "text/utf8.h"
#include "text/whitespace.h"

namespace hs {

namespace {

// transformers reads at most this many merges (lines[1 : 49152 - 256 - 2 + 1]).
constexpr size_t kMaxMerges = 49152 - 256 - 2;

// Case-insensitive match of an ASCII-lower-case literal at t[i] as the regex module's
// IGNORECASE sees it after str.lower(): only U+017F LONG S also matches 's'.
size_t matchLiteral(const std::u32string& t, size_t i, const char* lit) {
    size_t k = 0;
    for (; lit[k]; ++k) {
        if (i + k >= t.size()) return 0;
        const char32_t c = t[i + k];
        if (c != char32_t(lit[k]) && !(lit[k] == 's' && c == 0x17F)) return 0;
    }
    return k;
}

}  // namespace

struct ClipTokenizer::Impl {
    std::unordered_map<std::string, int> vocab;
    std::unordered_map<int, std::string> tokens;
    std::shared_ptr<ClipBpe> bpe;  // shared by copies with other special tokens
    std::vector<int> symbolId;     // BPE symbol -> vocab id (unk when absent)
    ClipSpecialTokens specials;
    std::vector<std::u32string> splitTokens;  // distinct special strings, longest first
    std::vector<int> splitIds;
    int bos, eos, pad, unk, maxLength;

    Impl(std::unordered_map<std::string, int> v,
         const std::vector<std::pair<std::string, std::string>>& merges, ClipSpecialTokens s,
         int maxLen)
        : vocab(std::move(v)), bpe(std::make_shared<ClipBpe>(merges)), maxLength(maxLen) {
        for (const auto& kv : vocab) tokens.emplace(kv.second, kv.first);
        if (maxLength < 2) throw TokenizerError("model_max_length must be at least 2");
        setSpecials(std::move(s));
    }

    void setSpecials(ClipSpecialTokens s) {
        specials = std::move(s);
        auto need = [&](const std::string& tok, const char* what) {
            auto it = vocab.find(tok);
            if (it == vocab.end())
                throw TokenizerError(std::string("the ") + what + " token '" + tok +
                                     "' is not in the vocabulary");
            return it->second;
        };
        bos = need(specials.bos, "bos");
        eos = need(specials.eos, "eos");
        pad = need(specials.pad, "pad");
        unk = need(specials.unk, "unk");
        // transformers splits the text on every special token before cleaning it (its added
        // tokens trie), so a pad token "!" is split out too (diffusers issue #4153).
        splitTokens.clear();
        splitIds.clear();
        for (const std::string* t : {&specials.bos, &specials.eos, &specials.unk, &specials.pad}) {
            std::u32string u = decodeUtf8(*t);
            if (u.empty() ||
                std::find(splitTokens.begin(), splitTokens.end(), u) != splitTokens.end())
                continue;
            splitTokens.push_back(u);
            splitIds.push_back(vocab.at(*t));
        }
        // BPE symbols missing from the vocabulary map to unk.
        symbolId.resize(bpe->symbolCount());
        for (size_t i = 0; i < symbolId.size(); ++i) {
            auto it = vocab.find(bpe->symbol(int(i)));
            symbolId[i] = it == vocab.end() ? unk : it->second;
        }
    }

    int idOfPiece(const std::string& piece) const {
        auto it = vocab.find(piece);
        return it == vocab.end() ? unk : it->second;
    }

    // CLIPTokenizer._tokenize of one segment between special tokens. Returns false once
    // `limit` ids are there.
    bool tokenizeSegment(const std::u32string& segment, size_t limit, std::vector<int>& ids,
                         std::vector<std::string>* pieces) const {
        auto emit = [&](int id, const std::string& piece) {
            ids.push_back(id);
            if (pieces) pieces->push_back(piece);
            return ids.size() < limit;
        };
        // whitespace_clean() only turns whitespace runs into one space and strips the ends; the
        // pre-tokenizer skips whitespace anyway, so each line can be lower-cased and split alone.
        // A segment that ftfy cut at max_decode_length (no '\n' at its end) waits for the rest
        // of its line, so no word is split at the cut.
        auto process = [&](const std::u32string& fixed) {
            const std::u32string t = pythonLower(fixed);
            std::string bytes;
            size_t i = 0;
            while (i < t.size()) {
                size_t len = 0;
                if (t[i] == '<') {
                    len = matchLiteral(t, i, "<|startoftext|>");
                    if (!len) len = matchLiteral(t, i, "<|endoftext|>");
                } else if (t[i] == '\'') {
                    for (const char* c : {"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"})
                        if ((len = matchLiteral(t, i, c))) break;
                }
                if (!len) {
                    const ClipCharClass cls = clipCharClass(t[i]);
                    if (cls == ClipCharClass::Skip) {
                        ++i;
                        continue;
                    }
                    len = 1;
                    if (cls != ClipCharClass::Number)
                        while (i + len < t.size() && clipCharClass(t[i + len]) == cls) ++len;
                }
                bytes.clear();
                for (size_t k = i; k < i + len; ++k) appendUtf8(bytes, t[k]);
                i += len;
                // The reference's bpe() cache starts with the two literal special tokens.
                if (bytes == "<|startoftext|>" || bytes == "<|endoftext|>") {
                    if (!emit(idOfPiece(bytes), bytes)) return false;
                    continue;
                }
                for (int s : bpe->apply(bytes))
                    if (!emit(symbolId[s], bpe->symbol(s))) return false;
            }
            return true;
        };
        std::u32string pending;
        const bool more = forEachFixedLine(segment, [&](std::u32string&& fixed) {
            pending += fixed;
            if (!pending.empty() && pending.back() != '\n') return true;
            const bool go = process(pending);
            pending.clear();
            return go;
        });
        return more && (pending.empty() || process(pending));
    }

    void tokenize(const std::string& text, size_t limit, std::vector<int>& ids,
                  std::vector<std::string>* pieces) const {
        const std::u32string t = decodeUtf8(text);  // validates all of it, even past `limit`
        if (limit == 0) return;
        std::vector<size_t> nextAt(splitTokens.size());
        for (size_t s = 0; s < splitTokens.size(); ++s) nextAt[s] = t.find(splitTokens[s]);
        size_t pos = 0;
        while (true) {
            // Earliest special token at or after pos; the longest one when several start there.
            size_t best = std::u32string::npos, bestLen = 0;
            int bestIdx = -1;
            for (size_t s = 0; s < splitTokens.size(); ++s) {
                if (nextAt[s] != std::u32string::npos && nextAt[s] < pos)
                    nextAt[s] = t.find(splitTokens[s], pos);
                const size_t at = nextAt[s];
                if (at == std::u32string::npos) continue;
                if (at < best || (at == best && splitTokens[s].size() > bestLen))
                    best = at, bestLen = splitTokens[s].size(), bestIdx = int(s);
            }
            const size_t end = best == std::u32string::npos ? t.size() : best;
            if (end > pos && !tokenizeSegment(t.substr(pos, end - pos), limit, ids, pieces)) return;
            if (bestIdx < 0) return;
            ids.push_back(splitIds[bestIdx]);
            if (pieces) pieces->push_back(encodeUtf8(splitTokens[bestIdx]));
            if (ids.size() >= limit) return;
            pos = best + bestLen;
        }
    }
};

ClipTokenizer ClipTokenizer::fromFolder(const std::string& dir) {
    namespace fs = std::filesystem;
    const fs::path root(dir);
    const fs::path vocabPath = root / "vocab.json", mergesPath = root / "merges.txt";
    const nlohmann::json vj = readTokenizerJson(vocabPath);
    if (!vj.is_object()) throw TokenizerError(vocabPath.string() + ": expected an object");
    std::unordered_map<std::string, int> vocab;
    vocab.reserve(vj.size());
    for (auto it = vj.begin(); it != vj.end(); ++it) {
        vocab.emplace(it.key(), tokenIdOf(it.value(), it.key(), vocabPath.string()));
    }
    // merges.txt: "#version: 0.2" then "a b" lines. The reference strips the file and always
    // drops its first line; here the first line is dropped only when it is a '#' header, so a
    // header-less file keeps its first merge.
    std::string text = readTokenizerFile(mergesPath);
    std::vector<std::pair<std::string, std::string>> merges;
    std::istringstream lines(text);
    std::string line;
    bool first = true;
    size_t counted = 0;
    while (std::getline(lines, line) && counted < kMaxMerges) {
        if (first) {
            first = false;
            if (!line.empty() && line[0] == '#') continue;
        }
        auto parts = splitWhitespace(line);
        ++counted;
        if (parts.size() == 2) merges.emplace_back(parts[0], parts[1]);
    }
    ClipSpecialTokens specials;
    int maxLength = 77;
    for (const char* name : {"tokenizer_config.json", "special_tokens_map.json"}) {
        const fs::path p = root / name;
        if (!fs::exists(p)) continue;
        const nlohmann::json j = readTokenizerJson(p);
        if (!j.is_object()) throw TokenizerError(p.string() + ": expected an object");
        readSpecialToken(j, "bos_token", specials.bos, p);
        readSpecialToken(j, "eos_token", specials.eos, p);
        readSpecialToken(j, "pad_token", specials.pad, p);
        readSpecialToken(j, "unk_token", specials.unk, p);
        // transformers writes a huge number when the length is unset: keep CLIP's 77 then.
        if (j.contains("model_max_length") && j["model_max_length"].is_number()) {
            const double m = j["model_max_length"].get<double>();
            if (m >= 2 && m <= 1e6) maxLength = int(m);
        }
    }
    return ClipTokenizer(std::move(vocab), merges, specials, maxLength);
}

ClipTokenizer::ClipTokenizer(std::unordered_map<std::string, int> vocab,
                             const std::vector<std::pair<std::string, std::string>>& merges,
                             ClipSpecialTokens specials, int modelMaxLength)
    : m_impl(std::make_shared<const Impl>(std::move(vocab), merges, std::move(specials),
                                          modelMaxLength)) {}

std::vector<std::string> ClipTokenizer::pieces(const std::string& text) const {
    std::vector<int> ids;
    std::vector<std::string> out;
    m_impl->tokenize(text, SIZE_MAX, ids, &out);
    return out;
}

std::vector<int> ClipTokenizer::tokenIds(const std::string& text, size_t maxTokens) const {
    std::vector<int> ids;
    m_impl->tokenize(text, maxTokens, ids, nullptr);
    return ids;
}

std::vector<int> ClipTokenizer::encode(const std::string& text) const {
    std::vector<int> ids{m_impl->bos};
    m_impl->tokenize(text, SIZE_MAX, ids, nullptr);
    ids.push_back(m_impl->eos);
    return ids;
}

std::vector<int> ClipTokenizer::encodePadded(const std::string& text, int maxLength) const {
    const size_t n = size_t(maxLength > 0 ? maxLength : m_impl->maxLength);
    if (n < 2) throw std::invalid_argument("encodePadded: maxLength must be at least 2");
    std::vector<int> ids{m_impl->bos};
    m_impl->tokenize(text, n - 1, ids, nullptr);  // the limit counts bos: n - 2 content ids
    ids.resize(std::min(ids.size(), n - 1));
    ids.push_back(m_impl->eos);
    ids.resize(n, m_impl->pad);
    return ids;
}

int ClipTokenizer::bosId() const {
    return m_impl->bos;
}
int ClipTokenizer::eosId() const {
    return m_impl->eos;
}
int ClipTokenizer::padId() const {
    return m_impl->pad;
}
int ClipTokenizer::unkId() const {
    return m_impl->unk;
}
int ClipTokenizer::modelMaxLength() const {
    return m_impl->maxLength;
}
size_t ClipTokenizer::vocabSize() const {
    return m_impl->vocab.size();
}
ClipTokenizer ClipTokenizer::withSpecialTokens(ClipSpecialTokens specials) const {
    auto impl = std::make_shared<Impl>(*m_impl);
    impl->setSpecials(std::move(specials));
    ClipTokenizer t(*this);
    t.m_impl = std::move(impl);
    return t;
}

const ClipSpecialTokens& ClipTokenizer::specialTokens() const {
    return m_impl->specials;
}

std::optional<int> ClipTokenizer::idOf(const std::string& token) const {
    auto it = m_impl->vocab.find(token);
    if (it == m_impl->vocab.end()) return std::nullopt;
    return it->second;
}

std::string ClipTokenizer::tokenOf(int id) const {
    auto it = m_impl->tokens.find(id);
    return it == m_impl->tokens.end() ? std::string() : it->second;
}

}  // namespace hs
