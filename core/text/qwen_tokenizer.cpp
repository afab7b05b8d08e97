// Follows transformers' Qwen2Tokenizer (tokenization_qwen2.py: prepare_for_tokenization's NFC,
// _tokenize, convert_tokens_to_string with errors="replace") and Qwen2TokenizerFast's
// tokenizer.json (added tokens split out first, NFC normaliser, Split + ByteLevel pre-tokenizer,
// BPE, ByteLevel decoder). Loading from files: qwen_tokenizer_load.cpp.
#include "text/qwen_tokenizer.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "text/byte_level_bpe.h"
#include "text/qwen_pretokenizer.h"
#include "text/unicode.h"
#include "text/utf8.h"

namespace hs {

struct QwenTokenizer::Impl {
    std::unordered_map<std::string, int> vocab;
    std::vector<const std::string*> tokenOf;  // id -> token (in vocab or added); null for none
    std::vector<char> isAdded;                // id -> whether its token is an added token
    ByteLevelBpe bpe;
    std::vector<QwenAddedToken> added;
    std::array<std::vector<int>, 256> addedByFirstByte;  // indices into `added`, longest first
    int pad = 0;
    int maxLength = 0;
    PaddingSide paddingSide = PaddingSide::Right;
    size_t size = 0;

    Impl(std::unordered_map<std::string, int> v,
         const std::vector<std::pair<std::string, std::string>>& merges,
         std::vector<QwenAddedToken> a, const std::string& padToken, int maxLen,
         const std::string& source, bool ignoreMerges)
        : vocab(std::move(v)),
          bpe(vocab, merges, source, ignoreMerges),
          added(std::move(a)),
          maxLength(maxLen) {
        if (maxLength < 1)
            throw TokenizerError(source + ": model_max_length must be at least 1, not " +
                                 std::to_string(maxLength));
        int maxId = -1;
        for (const auto& kv : vocab) {
            if (kv.second < 0)
                throw TokenizerError(source + ": token '" + kv.first + "' has a negative id");
            maxId = std::max(maxId, kv.second);
        }
        for (const auto& t : added) {
            if (t.id < 0 || t.content.empty())
                throw TokenizerError(source + ": added token '" + t.content + "' with id " +
                                     std::to_string(t.id) + " is empty or has a negative id");
            maxId = std::max(maxId, t.id);
        }
        tokenOf.assign(size_t(maxId + 1), nullptr);
        isAdded.assign(size_t(maxId + 1), 0);
        for (const auto& kv : vocab) tokenOf[kv.second] = &kv.first;
        size = vocab.size();
        for (size_t i = 0; i < added.size(); ++i) {
            const QwenAddedToken& t = added[i];
            if (!vocab.count(t.content)) ++size;
            tokenOf[t.id] = &t.content;
            isAdded[t.id] = 1;
            addedByFirstByte[uint8_t(t.content[0])].push_back(int(i));
        }
        for (auto& list : addedByFirstByte)
            std::stable_sort(list.begin(), list.end(), [&](int x, int y) {
                return added[x].content.size() > added[y].content.size();
            });
        auto padIt = std::find_if(added.begin(), added.end(),
                                  [&](const QwenAddedToken& t) { return t.content == padToken; });
        if (padIt != added.end()) {
            pad = padIt->id;
        } else if (auto it = vocab.find(padToken); it != vocab.end()) {
            pad = it->second;
        } else {
            throw TokenizerError(source + ": the pad token '" + padToken +
                                 "' is neither in the vocabulary nor an added token");
        }
    }

    // The added token starting at text[i] (longest first), or -1.
    int addedAt(const std::string& text, size_t i) const {
        for (int k : addedByFirstByte[uint8_t(text[i])]) {
            const std::string& c = added[k].content;
            if (text.compare(i, c.size(), c) == 0) return k;
        }
        return -1;
    }

    // Appends the ids of a text between added tokens; false once `limit` ids are there.
    bool encodeSegment(std::string_view segment, size_t limit, std::vector<int>& ids) const {
        const std::u32string t = nfc(decodeUtf8(segment));
        std::string bytes;
        for (const auto& [b, e] : qwenPretokenize(t)) {
            bytes.clear();
            for (size_t k = b; k < e; ++k) appendUtf8(bytes, t[k]);
            bpe.encode(bytes, ids);
            if (ids.size() >= limit) {
                ids.resize(limit);
                return false;
            }
        }
        return true;
    }

    std::vector<int> encode(const std::string& text, size_t limit) const {
        decodeUtf8(text);  // validates all of it (std::invalid_argument naming the offset)
        std::vector<int> ids;
        if (limit == 0) return ids;
        size_t start = 0;
        for (size_t i = 0; i < text.size();) {
            const int k = addedByFirstByte[uint8_t(text[i])].empty() ? -1 : addedAt(text, i);
            if (k < 0) {
                ++i;
                continue;
            }
            if (i > start &&
                !encodeSegment(std::string_view(text).substr(start, i - start), limit, ids))
                return ids;
            ids.push_back(added[k].id);
            if (ids.size() >= limit) return ids;
            i += added[k].content.size();
            start = i;
        }
        if (start < text.size()) encodeSegment(std::string_view(text).substr(start), limit, ids);
        return ids;
    }
};

QwenTokenizer::QwenTokenizer(std::unordered_map<std::string, int> vocab,
                             const std::vector<std::pair<std::string, std::string>>& merges,
                             std::vector<QwenAddedToken> added, std::string padToken,
                             int modelMaxLength, const std::string& source, bool ignoreMerges)
    : m_impl(std::make_shared<Impl>(std::move(vocab), merges, std::move(added), padToken,
                                    modelMaxLength, source, ignoreMerges)) {}

std::vector<int> QwenTokenizer::encode(const std::string& text) const {
    return m_impl->encode(text, SIZE_MAX);
}

std::vector<int> QwenTokenizer::encode(const std::string& text, size_t maxTokens) const {
    return m_impl->encode(text, maxTokens);
}

std::vector<std::string> QwenTokenizer::pieces(const std::string& text) const {
    std::vector<std::string> out;
    for (int id : encode(text)) out.push_back(*m_impl->tokenOf[id]);
    return out;
}

std::string QwenTokenizer::decode(const std::vector<int>& ids) const {
    std::string bytes;
    for (int id : ids) {
        if (id < 0 || size_t(id) >= m_impl->tokenOf.size() || !m_impl->tokenOf[id])
            throw TokenizerError("decode: id " + std::to_string(id) +
                                 " is neither in the vocabulary nor an added token");
        const std::string& tok = *m_impl->tokenOf[id];
        // An added token is its text; a vocabulary token stands for bytes (a broken vocabulary
        // entry that is not byte-level is kept as written).
        if (m_impl->isAdded[id] || !byteLevelToBytes(tok, bytes)) bytes += tok;
    }
    return utf8Lossy(bytes);
}

QwenBatch QwenTokenizer::encodeBatchLongest(const std::vector<std::string>& texts, int maxLength,
                                            PaddingSide side) const {
    if (maxLength < 0)
        throw std::invalid_argument("encodeBatchLongest: maxLength must not be negative, not " +
                                    std::to_string(maxLength));
    const size_t limit = size_t(maxLength > 0 ? maxLength : m_impl->maxLength);
    QwenBatch batch;
    for (const std::string& text : texts) {
        batch.ids.push_back(encode(text, limit));
        batch.length = std::max(batch.length, int(batch.ids.back().size()));
    }
    for (auto& row : batch.ids) {
        const size_t n = row.size(), padCount = size_t(batch.length) - n;
        std::vector<int> mask(n, 1);
        if (side == PaddingSide::Right) {
            row.insert(row.end(), padCount, m_impl->pad);
            mask.insert(mask.end(), padCount, 0);
        } else {
            row.insert(row.begin(), padCount, m_impl->pad);
            mask.insert(mask.begin(), padCount, 0);
        }
        batch.attentionMask.push_back(std::move(mask));
    }
    return batch;
}

void QwenTokenizer::setPaddingSide(PaddingSide side) {
    m_impl->paddingSide = side;
}

size_t QwenTokenizer::vocabSize() const {
    return m_impl->size;
}
int QwenTokenizer::padId() const {
    return m_impl->pad;
}
int QwenTokenizer::modelMaxLength() const {
    return m_impl->maxLength;
}
PaddingSide QwenTokenizer::paddingSide() const {
    return m_impl->paddingSide;
}
const std::vector<QwenAddedToken>& QwenTokenizer::addedTokens() const {
    return m_impl->added;
}

std::optional<int> QwenTokenizer::idOf(const std::string& token) const {
    for (const auto& t : m_impl->added)
        if (t.content == token) return t.id;
    auto it = m_impl->vocab.find(token);
    if (it == m_impl->vocab.end()) return std::nullopt;
    return it->second;
}

std::string QwenTokenizer::tokenOf(int id) const {
    if (id < 0 || size_t(id) >= m_impl->tokenOf.size() || !m_impl->tokenOf[id]) return {};
    return *m_impl->tokenOf[id];
}

std::string utf8Lossy(const std::string& bytes) {
    static const char kReplacement[] = "\xEF\xBF\xBD";
    const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
    const size_t n = bytes.size();
    std::string out;
    out.reserve(n);
    for (size_t i = 0; i < n;) {
        const unsigned b = s[i];
        if (b < 0x80) {
            out.push_back(char(b));
            ++i;
            continue;
        }
        // Length and the allowed range of the second byte (Unicode table 3-7).
        int len = 0;
        unsigned lo = 0x80, hi = 0xBF;
        if (b >= 0xC2 && b <= 0xDF) {
            len = 2;
        } else if (b >= 0xE0 && b <= 0xEF) {
            len = 3;
            if (b == 0xE0) lo = 0xA0;
            if (b == 0xED) hi = 0x9F;
        } else if (b >= 0xF0 && b <= 0xF4) {
            len = 4;
            if (b == 0xF0) lo = 0x90;
            if (b == 0xF4) hi = 0x8F;
        }
        // The maximal prefix of a valid sequence: replaced by one U+FFFD when incomplete.
        size_t k = 1;
        if (len > 0) {
            for (; k < size_t(len) && i + k < n; ++k) {
                const unsigned c = s[i + k];
                const bool ok = k == 1 ? (c >= lo && c <= hi) : (c & 0xC0) == 0x80;
                if (!ok) break;
            }
        }
        if (len > 0 && k == size_t(len))
            out.append(bytes, i, k);
        else
            out += kReplacement;
        i += k;
    }
    return out;
}

}  // namespace hs
