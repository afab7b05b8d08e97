// libFuzzer target: the CLIP tokenizer (SD 1.x / SDXL / SD3 / FLUX text encoders).
// The first byte picks the mode:
//   < 0xC0: the rest is prompt text for the real CLIP vocabulary (tests/data/golden/
//           clip_tokenizer, loaded once): pieces, encode, encodePadded and tokenIds must agree
//           and give ids of the vocabulary; only invalid UTF-8 may be refused.
//   else:   the rest is a tokenizer folder, its files separated by "\n====\n": vocab.json,
//           merges.txt, tokenizer_config.json (optional). A folder the loader accepts must
//           tokenize a fixed prompt; refusing it with a TokenizerError (or a FileError) is fine.
// Anything else that escapes (std::out_of_range, nlohmann type errors, ...) is a bug: abort.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "fuzz_text.h"
#include "fuzz_util.h"
#include "text/clip_tokenizer.h"
#include "text/utf8.h"

namespace {

const hs::ClipTokenizer& realTokenizer() {
    static const hs::ClipTokenizer tok =
        hs::ClipTokenizer::fromFolder(hs::fuzz::sourcePath("tests/data/golden/clip_tokenizer"));
    return tok;
}

void checkIds(const hs::ClipTokenizer& tok, const std::vector<int>& ids) {
    for (int id : ids) check(id >= 0 && !tok.tokenOf(id).empty());
}

void encodeText(const hs::ClipTokenizer& tok, const std::string& text, int padTo) {
    if (!validUtf8(text)) {
        try {
            tok.encode(text);
        } catch (const std::invalid_argument&) {
            return;
        }
        std::abort();  // invalid UTF-8 accepted
    }
    const std::vector<int> ids = tok.encode(text);
    check(ids.size() >= 2 && ids.front() == tok.bosId() && ids.back() == tok.eosId());
    checkIds(tok, ids);
    check(tok.pieces(text).size() == ids.size() - 2);

    const std::vector<int> some = tok.tokenIds(text, size_t(padTo));
    check(some.size() == std::min(size_t(padTo), ids.size() - 2));
    for (size_t i = 0; i < some.size(); ++i) check(some[i] == ids[i + 1]);

    const std::vector<int> padded = tok.encodePadded(text, padTo + 2);
    check(padded.size() == size_t(padTo + 2) && padded.front() == tok.bosId());
    const size_t kept = std::min(ids.size(), padded.size());
    check(padded[kept - 1] == tok.eosId());
    for (size_t i = 1; i + 1 < kept; ++i) check(padded[i] == ids[i]);
    for (size_t i = kept; i < padded.size(); ++i) check(padded[i] == tok.padId());
}

void loadFolder(std::string_view data) {
    const auto parts = hs::fuzz::splitParts(data, "\n====\n", 3);
    std::vector<std::pair<std::string, std::string_view>> files = {{"vocab.json", parts[0]}};
    if (parts.size() > 1) files.emplace_back("merges.txt", parts[1]);
    if (parts.size() > 2) files.emplace_back("tokenizer_config.json", parts[2]);
    const std::string& dir = hs::fuzz::writeFiles(files);
    std::optional<hs::ClipTokenizer> tok;
    try {
        tok.emplace(hs::ClipTokenizer::fromFolder(dir));
    } catch (const std::runtime_error&) {  // TokenizerError, FileError
        return;
    }
    encodeText(*tok, "a photo of a cat, 4k <|endoftext|> Ünïcödé 日本 🐱", 8);
    encodeText(*tok, std::string(data.substr(0, 64)), 3);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    realTokenizer();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    if (data[0] < 0xC0)
        encodeText(realTokenizer(), std::string(rest), 1 + data[0] % 80);
    else
        loadFolder(rest);
    return 0;
}
