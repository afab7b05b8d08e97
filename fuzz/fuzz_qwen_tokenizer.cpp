// libFuzzer target: the Qwen2 tokenizer (byte-level BPE + the Qwen2 pre-tokenizer), used by
// Qwen-Image's and Anima's text encoders. The first byte picks the mode:
//   < 0x80: the rest is text for the real Qwen2 tokenizer (resources/tokenizers/qwen2, loaded
//           once): encode, pieces and truncated encode agree, ids are in the vocabulary, and
//           text without "<|" decodes back to its NFC form. Only invalid UTF-8 may be refused.
//   < 0xA0: the rest is little-endian uint32 ids for decode: valid UTF-8 out, or TokenizerError.
//   < 0xC0: the rest is texts separated by '\0' for encodeBatchLongest: equal rows, masks right.
//   else:   the rest is a tokenizer folder, files separated by "\n====\n": tokenizer.json,
//           tokenizer_config.json, added_tokens.json when the byte is odd, else vocab.json,
//           merges.txt, tokenizer_config.json, added_tokens.json. An accepted folder must
//           tokenize a fixed text; a TokenizerError / FileError refusal is fine.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "fuzz_text.h"
#include "fuzz_util.h"
#include "text/qwen_tokenizer.h"
#include "text/unicode.h"
#include "text/utf8.h"

namespace {

const hs::QwenTokenizer& realTokenizer() {
    static const hs::QwenTokenizer tok =
        hs::QwenTokenizer::fromFolder(hs::fuzz::sourcePath("resources/tokenizers/qwen2"));
    return tok;
}

void encodeText(const hs::QwenTokenizer& tok, const std::string& text, size_t limit,
                bool roundTrip) {
    if (hs::fuzz::refusedInvalidUtf8(tok, text)) return;
    const std::vector<int> ids = tok.encode(text);
    for (int id : ids) check(!tok.tokenOf(id).empty());
    check(tok.pieces(text).size() == ids.size());
    hs::fuzz::checkTruncated(tok.encode(text, limit), ids, limit);
    const std::string back = tok.decode(ids);
    check(validUtf8(back));
    // Only for the real vocabulary: a fuzzed one may give two tokens one id, or added tokens
    // that do not start with "<|".
    if (roundTrip && text.find("<|") == std::string::npos)
        check(back == hs::encodeUtf8(hs::nfc(hs::decodeUtf8(text))));
}

void decodeIds(std::string_view data) {
    std::vector<int> ids(data.size() / 4);
    if (!ids.empty()) std::memcpy(ids.data(), data.data(), ids.size() * 4);
    try {
        check(validUtf8(realTokenizer().decode(ids)));
    } catch (const hs::TokenizerError&) {
    }
}

void encodeBatch(std::string_view data, int maxLength) {
    std::vector<std::string> texts;
    for (std::string_view t : hs::fuzz::splitParts(data, std::string_view("\0", 1), 8))
        texts.emplace_back(t);
    for (const auto& t : texts)
        if (!validUtf8(t)) return;
    const auto side = maxLength % 2 ? hs::PaddingSide::Left : hs::PaddingSide::Right;
    const hs::QwenBatch b = realTokenizer().encodeBatchLongest(texts, maxLength, side);
    check(b.ids.size() == texts.size() && b.attentionMask.size() == texts.size());
    check(b.length <= maxLength);
    for (size_t r = 0; r < texts.size(); ++r) {
        check(b.ids[r].size() == size_t(b.length) && b.attentionMask[r].size() == size_t(b.length));
        const std::vector<int> ids = realTokenizer().encode(texts[r], size_t(maxLength));
        size_t ones = 0;
        for (int m : b.attentionMask[r]) ones += m == 1;
        check(ones == ids.size());
    }
}

void loadFolder(std::string_view data, bool tokenizerJson) {
    const auto parts = hs::fuzz::splitParts(data, "\n====\n", tokenizerJson ? 3 : 4);
    const char* const jsonNames[] = {"tokenizer.json", "tokenizer_config.json",
                                     "added_tokens.json"};
    const char* const pairNames[] = {"vocab.json", "merges.txt", "tokenizer_config.json",
                                     "added_tokens.json"};
    std::vector<std::pair<std::string, std::string_view>> files;
    for (size_t i = 0; i < parts.size(); ++i)
        files.emplace_back(tokenizerJson ? jsonNames[i] : pairNames[i], parts[i]);
    const std::string& dir = hs::fuzz::writeFiles(files);
    const auto tok = hs::fuzz::loadFolderOrRefusal<hs::QwenTokenizer>(dir);
    if (!tok) return;
    encodeText(*tok, "Hello world, the <|endoftext|> 123 café 日本語 🐱\n\n  x", 5, false);
    encodeText(*tok, std::string(data.substr(0, 64)), 3, false);
    try {
        tok->decode({0, 1, 2, tok->padId()});
    } catch (const hs::TokenizerError&) {
    }
}

}  // namespace

void hs::fuzz::runMode(uint8_t mode, std::string_view rest) {
    if (mode < 0x80)
        encodeText(realTokenizer(), std::string(rest), 1 + mode % 64, true);
    else if (mode < 0xA0)
        decodeIds(rest);
    else if (mode < 0xC0)
        encodeBatch(rest, 1 + mode % 24);
    else
        loadFolder(rest, mode % 2);
}

// LLVMFuzzerInitialize: the tokenizer loads once, before the first input.
void hs::fuzz::warmUp() {
    realTokenizer();
}
