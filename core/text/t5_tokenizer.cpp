// Follows transformers' T5TokenizerFast on the legacy T5 v1.1 tokenizer.json (as SpmConverter
// wrote it: normalizers Precompiled(charsmap) + Replace(" {2,}", " "), pre-tokenizer
// Metaspace("▁", add_prefix_space), Unigram with fused unknowns, post-processor "$A </s>") and
// diffusers' FluxPipeline._get_t5_prompt_embeds (max_length padding, truncation).
//
// SentencePiece normalises with the same charsmap and collapses whitespace runs the same way, and
// its Unigram pieces never cross a "▁" word start, so it gives the fast tokenizer's pieces for
// each piece of text between special tokens, except for whitespace at the end: SentencePiece strips
// it, while Metaspace turns it into a last word "▁" of its own (tokenizers issue #1250:
// "   space   " -> [628, 3, 1] with the fast T5 v1.1 tokenizer, [628, 1] with the slow one).
#include "text/t5_tokenizer.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "io/bounded_read.h"
#include "text/sentencepiece_model.h"
#include "text/tokenizer_files.h"
#include "text/unicode.h"
#include "text/utf8.h"

namespace hs {

namespace {

const std::string kSpacePiece = "\xe2\x96\x81";  // U+2581, SentencePiece's "▁"

// Ids, and pieces when `pieces` is set.
struct Tokens {
    std::vector<int> ids;
    std::vector<std::string>* pieces = nullptr;
    void push(int id, std::string_view piece) {
        ids.push_back(id);
        if (pieces) pieces->emplace_back(piece);
    }
};

// encodePadded tokenizes a long prompt's first bytes only: this many at first, 4x more until two
// cuts agree on the ids it keeps. 16 bytes an id is ~4x what English and CJK text need.
size_t firstCutBytes(size_t ids) {
    return std::max<size_t>(4096, ids * 16);
}

// Where to cut `text` near `at`: before the next space when one is close (no word is cut), else
// at the next UTF-8 character boundary (text without spaces: CJK, one long word).
size_t cutPoint(std::string_view text, size_t at) {
    if (at >= text.size()) return text.size();
    const size_t end = std::min(text.size(), at + 256);
    for (size_t i = at; i < end; ++i)
        if (text[i] == ' ') return i;
    while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
    return at;
}

// SentencePiece fuses a run of unknown characters into one unk piece by growing a string, which
// costs the square of the run's length (160,000 unknown "☃": 4.6 s). Runs longer than this are
// tokenized in parts (T5Tokenizer::Impl::encodeText).
constexpr size_t kMaxUnknownRun = 1024;

// A Private Use Area character: unknown to T5-like models and left alone by their normaliser;
// checked when the model is loaded.
constexpr char32_t kGlueCandidates[] = {0xE000, 0xF8FF, 0x10FFFD};

// The codepoint at text[i] (valid UTF-8) and its length in bytes.
char32_t codepointAt(std::string_view text, size_t i, size_t& len) {
    const auto b = static_cast<unsigned char>(text[i]);
    len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    for (size_t k = 1; k < len; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    return cp;
}

}  // namespace

struct T5Tokenizer::Impl {
    std::unique_ptr<SentencePieceModel> sp;
    T5SpecialTokens specials;
    int pieceCount = 0;  // the model's pieces; extra ids follow
    int eos = 0, pad = 0, unk = 0;
    int space = 0;  // "▁" alone: the trailing-whitespace token (T5: 3)
    // Tokens cut out of the text before SentencePiece sees it (tokenizers' added tokens).
    std::unordered_map<std::string, int> specialIds;
    std::vector<size_t> specialLengths;  // distinct lengths, longest first
    std::array<bool, 256> specialStart{};
    std::bitset<65536> specialStart2;  // first two bytes of the longer ones
    // Long unknown runs: the glue character ("" when the model knows them all) and which ASCII
    // characters are unknown alone ("{" and "<" in T5).
    std::string glue;
    std::array<bool, 128> asciiUnknown{};

    Impl(const std::string& modelBytes, T5SpecialTokens s, const std::string& source)
        : specials(std::move(s)) {
        sp = std::make_unique<SentencePieceModel>(modelBytes, source);
        pieceCount = sp->pieceSize();
        if (specials.extraIds < 0 || specials.extraIds > 100000)
            throw TokenizerError(source + ": extra_ids must be in [0, 100000]");
        if (specials.modelMaxLength < 1)
            throw TokenizerError(source + ": model_max_length must be at least 1");
        auto need = [&](const std::string& tok, const char* what) {
            const int id = resolve(tok);
            if (id < 0)
                throw TokenizerError(source + ": the " + what + " token '" + tok +
                                     "' is not in the model");
            addSpecial(tok, id);
            return id;
        };
        eos = need(specials.eos, "eos");
        pad = need(specials.pad, "pad");
        unk = need(specials.unk, "unk");
        for (int k = 0; k < specials.extraIds; ++k)
            addSpecial("<extra_id_" + std::to_string(k) + ">",
                       pieceCount + specials.extraIds - 1 - k);
        for (const auto& tok : specials.additional) need(tok, "additional special");
        const int spaceId = resolve(kSpacePiece);
        // The fast tokenizer's Unigram gives unk for a "▁" word the model lacks.
        space = spaceId < 0 ? unk : spaceId;
        for (char32_t c = 0; c < 128; ++c) asciiUnknown[c] = unknownAlone(c);
        for (char32_t c : kGlueCandidates) {
            std::string g;
            appendUtf8(g, c);
            const auto spt = sp->encode(g);
            if (unknownAlone(c) && !spt.empty() && spt.back().piece == g) {
                glue = g;
                break;
            }
        }
    }

    // Whether `cp` on its own is an unknown character: only unk (and the "▁" word start) come out.
    bool unknownAlone(char32_t cp) const {
        std::string s;
        appendUtf8(s, cp);
        bool unknown = false;
        const auto spt = sp->encode(s);  // the pieces point into it
        for (const auto& p : spt) {
            if (int(p.id) == sp->unkId())
                unknown = true;
            else if (p.piece != kSpacePiece)
                return false;
        }
        return unknown;
    }

    // The id of a piece or special token; -1 when the vocabulary has none. T5Tokenizer's
    // _convert_token_to_id: <extra_id_K> is vocab_size - 1 - K.
    int resolve(const std::string& tok) const {
        auto it = specialIds.find(tok);
        if (it != specialIds.end()) return it->second;
        const std::string prefix = "<extra_id_";
        if (tok.size() > prefix.size() + 1 && tok.compare(0, prefix.size(), prefix) == 0 &&
            tok.back() == '>') {
            const std::string digits = tok.substr(prefix.size(), tok.size() - prefix.size() - 1);
            if (digits.size() <= 6 && std::all_of(digits.begin(), digits.end(),
                                                  [](char c) { return c >= '0' && c <= '9'; })) {
                const int k = std::stoi(digits);
                if (k < specials.extraIds) return pieceCount + specials.extraIds - 1 - k;
            }
        }
        const int id = sp->pieceToId(tok);  // the model's unk id for a piece it does not have
        if (id == sp->unkId() && tok != sp->idToPiece(id)) return -1;
        return id;
    }

    void addSpecial(const std::string& tok, int id) {
        if (tok.empty() || !specialIds.emplace(tok, id).second) return;
        specialStart[static_cast<unsigned char>(tok[0])] = true;
        if (tok.size() >= 2) specialStart2.set(prefix2(tok, 0));
        if (std::find(specialLengths.begin(), specialLengths.end(), tok.size()) ==
            specialLengths.end()) {
            specialLengths.push_back(tok.size());
            std::sort(specialLengths.rbegin(), specialLengths.rend());
        }
    }

    static size_t prefix2(std::string_view text, size_t i) {
        return size_t(static_cast<unsigned char>(text[i])) << 8 |
               static_cast<unsigned char>(text[i + 1]);
    }

    // The length of the longest special token at text[i] (0: none); its id in `id`.
    size_t matchSpecial(std::string_view text, size_t i, int& id) const {
        if (!specialStart[static_cast<unsigned char>(text[i])]) return 0;
        const bool two = i + 1 < text.size() && specialStart2.test(prefix2(text, i));
        for (size_t len : specialLengths) {
            if (i + len > text.size() || (len >= 2 && !two)) continue;
            auto it = specialIds.find(std::string(text.substr(i, len)));
            if (it != specialIds.end()) {
                id = it->second;
                return len;
            }
        }
        return 0;
    }

    // Whether `rest` (what SentencePiece dropped at the end of a text) holds whitespace after
    // normalisation. The model's normaliser decides (nmt_nfkc: tab, newline, U+3000 … are spaces;
    // some control and zero-width characters vanish): "a" + rest + "a" normalises to "▁a▁a" or
    // "▁aa".
    bool normalisesToSpace(std::string_view rest) const {
        if (rest.empty()) return false;
        std::string probe = "a";
        probe.append(rest);
        probe += 'a';
        std::string joined;
        for (const auto& p : sp->encode(probe)) joined += p.piece;
        if (joined.compare(0, kSpacePiece.size(), kSpacePiece) == 0)
            joined.erase(0, kSpacePiece.size());  // the dummy prefix
        return joined.find(kSpacePiece) != std::string::npos;
    }

    // Appends SentencePiece's pieces of `chunk`; returns the byte offset in `chunk` after the
    // last of them. `glued`: the chunk continues a run of unknown characters whose unk token ends
    // the previous chunk. It is then encoded behind the glue character, which starts no word,
    // stands for the run and fuses with the chunk's own unknown characters: the tokens up to the
    // glue's end (the "▁" word start and that unk) are folded into the previous token.
    size_t encodeChunk(std::string_view chunk, bool glued, Tokens& out) const {
        std::string buffer;
        std::string_view input = chunk;
        size_t skip = 0;
        if (glued) {
            buffer = glue;
            buffer.append(chunk);
            input = buffer;
            skip = glue.size();
        }
        const auto spt = sp->encode(input);
        size_t end = skip;
        for (const auto& p : spt) {
            end = std::max<size_t>(end, p.end);
            if (p.begin >= skip) {
                out.push(int(p.id), p.piece);
            } else if (p.end > skip && out.pieces && !out.pieces->empty()) {
                const std::string& piece = p.piece;
                const size_t at = piece.find(glue);
                if (at != std::string::npos) out.pieces->back() += piece.substr(at + glue.size());
            }
        }
        return std::min(end - skip, chunk.size());
    }

    // Where to end the chunk that starts at text[pos]: inside a run of unknown characters once it
    // is kMaxUnknownRun bytes long, else at the end of the text. The boundaries around an unknown
    // character are in every segmentation (no piece holds it), so the parts' pieces are the
    // whole's; the characters on both sides must not combine with what precedes them, so that
    // the normaliser sees the same characters.
    size_t chunkEnd(std::string_view text, size_t pos,
                    std::unordered_map<char32_t, bool>& unknownCache) const {
        size_t runStart = std::string_view::npos;
        for (size_t i = pos, len = 0; i < text.size(); i += len) {
            const char32_t cp = codepointAt(text, i, len);
            bool unknown;
            if (cp < 128) {
                unknown = asciiUnknown[cp];
            } else {
                auto it = unknownCache.find(cp);
                if (it == unknownCache.end())
                    it = unknownCache.emplace(cp, isCutSafeBefore(cp) && unknownAlone(cp)).first;
                unknown = it->second;
            }
            if (!unknown)
                runStart = std::string_view::npos;
            else if (runStart == std::string_view::npos)
                runStart = i;
            else if (i - runStart >= kMaxUnknownRun)
                return i;
        }
        return text.size();
    }

    // The fast tokenizer's ids of a text between special tokens: SentencePiece's pieces, then "▁"
    // when the text ends in whitespace (Metaspace keeps it as a word).
    void encodeText(std::string_view text, Tokens& out) const {
        if (text.empty()) return;  // tokenizers drops empty splits: no "▁" either
        std::unordered_map<char32_t, bool> unknownCache;
        bool glued = false;
        for (size_t pos = 0;;) {
            const size_t end = glue.empty() || text.size() - pos <= kMaxUnknownRun
                                   ? text.size()
                                   : chunkEnd(text, pos, unknownCache);
            const std::string_view chunk = text.substr(pos, end - pos);
            const size_t covered = encodeChunk(chunk, glued, out);
            if (end == text.size()) {
                if (normalisesToSpace(chunk.substr(covered))) out.push(space, kSpacePiece);
                return;
            }
            pos = end;
            glued = true;
        }
    }

    // All of `text`, special tokens split out first (leftmost, longest), as tokenizers'
    // AddedVocabulary does before normalising.
    void tokenize(std::string_view text, Tokens& out) const {
        size_t start = 0;
        for (size_t i = 0; i < text.size();) {
            int id = 0;
            const size_t len = matchSpecial(text, i, id);
            if (!len) {
                ++i;
                continue;
            }
            encodeText(text.substr(start, i - start), out);
            out.push(id, text.substr(i, len));
            i += len;
            start = i;
        }
        encodeText(text.substr(start), out);
    }

    // The first `limit` ids of `text` (fewer when it has fewer). A long text is tokenized in
    // growing prefixes until two cuts give the same first `limit` ids. Cuts fall before a space
    // where one is close: SentencePiece's pieces never cross a word start ("▁"), so the ids
    // before such a cut are those of the whole text; where there is no space to cut at (CJK, one
    // long word) the agreement of two cuts stands in for that. Worst case (fewer ids than
    // `limit` until the end: long unknown or blank runs) ~4/3 of the cost of the whole text.
    std::vector<int> firstIds(std::string_view text, size_t limit) const {
        if (limit == 0) return {};
        std::vector<int> previous;
        for (size_t want = firstCutBytes(limit);; want *= 4) {
            const size_t at = cutPoint(text, want);
            Tokens t;
            tokenize(text.substr(0, at), t);
            if (t.ids.size() > limit) t.ids.resize(limit);
            if (at >= text.size()) return t.ids;
            if (t.ids.size() == limit && t.ids == previous) return t.ids;
            previous = t.ids.size() == limit ? std::move(t.ids) : std::vector<int>{};
        }
    }
};

T5Tokenizer::T5Tokenizer(std::shared_ptr<const Impl> impl) : m_impl(std::move(impl)) {}

T5Tokenizer T5Tokenizer::fromSerializedModel(const std::string& modelBytes,
                                             T5SpecialTokens specials, const std::string& source) {
    return T5Tokenizer(std::make_shared<const Impl>(modelBytes, std::move(specials), source));
}

T5Tokenizer T5Tokenizer::fromFolder(const std::string& dir) {
    namespace fs = std::filesystem;
    const fs::path root(dir);
    const fs::path model = root / "spiece.model";
    // Present but not a regular file (a FIFO, a folder): readTokenizerFile says what it is.
    std::error_code ec;
    if (!fs::exists(model, ec))
        throw TokenizerError(model.string() + ": missing: the T5 tokenizer needs spiece.model");
    T5SpecialTokens specials;
    for (const char* name : {"tokenizer_config.json", "special_tokens_map.json"}) {
        const fs::path p = root / name;
        if (!fs::exists(p)) continue;
        const nlohmann::json j = readTokenizerJson(p);
        if (!j.is_object()) throw TokenizerError(p.string() + ": expected an object");
        readSpecialToken(j, "eos_token", specials.eos, p);
        readSpecialToken(j, "pad_token", specials.pad, p);
        readSpecialToken(j, "unk_token", specials.unk, p);
        if (j.contains("extra_ids")) {
            // At most 100000 ids (checked again when built): each becomes a token of the
            // vocabulary.
            const auto& e = j["extra_ids"];
            if (!e.is_number_integer() ||
                (e.is_number_unsigned() ? e.get<uint64_t>() > 100000
                                        : e.get<int64_t>() < 0 || e.get<int64_t>() > 100000))
                throw TokenizerError(p.string() +
                                     ": 'extra_ids' must be an integer in 0..100000, got " +
                                     quoteJsonValue(e));
            specials.extraIds = e.get<int>();
        }
        // transformers writes a huge number when the length is unset: keep T5's 512 then.
        if (j.contains("model_max_length") && j["model_max_length"].is_number()) {
            const double m = j["model_max_length"].get<double>();
            if (m >= 1 && m <= 1e6) specials.modelMaxLength = int(m);
        }
        // T5's list is <extra_id_0> … <extra_id_99>, which the extra ids already are.
        if (j.contains("additional_special_tokens") && j["additional_special_tokens"].is_array()) {
            // Searched linearly below: a bounded count keeps a hostile list from taking hours.
            constexpr size_t kMaxAdditional = 1 << 14;
            if (j["additional_special_tokens"].size() > kMaxAdditional)
                throw TokenizerError(p.string() + ": 'additional_special_tokens' has " +
                                     std::to_string(j["additional_special_tokens"].size()) +
                                     " entries, more than " + std::to_string(kMaxAdditional));
            for (const auto& e : j["additional_special_tokens"]) {
                std::string tok;
                if (e.is_string())
                    tok = e.get<std::string>();
                else if (e.is_object() && e.contains("content") && e["content"].is_string())
                    tok = e["content"].get<std::string>();
                else
                    throw TokenizerError(p.string() +
                                         ": 'additional_special_tokens' must hold strings or "
                                         "{\"content\": ...}");
                if (std::find(specials.additional.begin(), specials.additional.end(), tok) ==
                    specials.additional.end())
                    specials.additional.push_back(tok);
            }
        }
    }
    return fromSerializedModel(readTokenizerFile(model), std::move(specials), model.string());
}

std::vector<std::string> T5Tokenizer::pieces(const std::string& text) const {
    decodeUtf8(text);  // throws, naming the offset
    std::vector<std::string> out;
    Tokens t;
    t.pieces = &out;
    m_impl->tokenize(text, t);
    return out;
}

std::vector<int> T5Tokenizer::encode(const std::string& text) const {
    decodeUtf8(text);
    Tokens t;
    m_impl->tokenize(text, t);
    t.ids.push_back(m_impl->eos);
    return t.ids;
}

std::vector<int> T5Tokenizer::encodePadded(const std::string& text, int maxLength) const {
    if (maxLength < 1)
        throw std::invalid_argument(
            "T5Tokenizer::encodePadded: maxLength must be at least 1, not " +
            std::to_string(maxLength));
    decodeUtf8(text);  // all of it, even past the cut
    // HF truncation with one special token added: maxLength - 1 ids, then </s>.
    std::vector<int> ids = m_impl->firstIds(text, size_t(maxLength) - 1);
    ids.push_back(m_impl->eos);
    ids.resize(size_t(maxLength), m_impl->pad);
    return ids;
}

int T5Tokenizer::eosId() const {
    return m_impl->eos;
}
int T5Tokenizer::padId() const {
    return m_impl->pad;
}
int T5Tokenizer::unkId() const {
    return m_impl->unk;
}
size_t T5Tokenizer::vocabSize() const {
    return size_t(m_impl->pieceCount) + size_t(m_impl->specials.extraIds);
}
int T5Tokenizer::modelMaxLength() const {
    return m_impl->specials.modelMaxLength;
}
const T5SpecialTokens& T5Tokenizer::specialTokens() const {
    return m_impl->specials;
}

std::optional<int> T5Tokenizer::idOf(const std::string& piece) const {
    const int id = m_impl->resolve(piece);
    if (id < 0) return std::nullopt;
    return id;
}

std::string T5Tokenizer::pieceOf(int id) const {
    if (id < 0) return {};
    if (id < m_impl->pieceCount) return m_impl->sp->idToPiece(id);
    const int k = m_impl->pieceCount + m_impl->specials.extraIds - 1 - id;
    if (k >= 0) return "<extra_id_" + std::to_string(k) + ">";
    return {};
}

}  // namespace hs
