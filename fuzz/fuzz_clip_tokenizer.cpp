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
    if (hs::fuzz::refusedInvalidUtf8(tok, text)) return;
    const std::vector<int> ids = tok.encode(text);
    check(ids.size() >= 2 && ids.front() == tok.bosId() && ids.back() == tok.eosId());
    checkIds(tok, ids);
    check(tok.pieces(text).size() == ids.size() - 2);

    // tokenIds: the ids between the start and end tokens
    hs::fuzz::checkTruncated(tok.tokenIds(text, size_t(padTo)),
                             std::vector<int>(ids.begin() + 1, ids.end() - 1), size_t(padTo));

    const std::vector<int> padded = tok.encodePadded(text, padTo + 2);
    check(padded.size() == size_t(padTo + 2));
    hs::fuzz::checkPadded(padded, ids, tok.eosId(), tok.padId());  // start token first too
}

void loadFolder(std::string_view data) {
    const auto parts = hs::fuzz::splitParts(data, "\n====\n", 3);
    std::vector<std::pair<std::string, std::string_view>> files = {{"vocab.json", parts[0]}};
    if (parts.size() > 1) files.emplace_back("merges.txt", parts[1]);
    if (parts.size() > 2) files.emplace_back("tokenizer_config.json", parts[2]);
    const std::string& dir = hs::fuzz::writeFiles(files);
    const auto tok = hs::fuzz::loadFolderOrRefusal<hs::ClipTokenizer>(dir, /*othersEscape=*/true);
    if (!tok) return;
    encodeText(*tok, "a photo of a cat, 4k <|endoftext|> Ünïcödé 日本 🐱", 8);
    encodeText(*tok, std::string(data.substr(0, 64)), 3);
}

}  // namespace

void hs::fuzz::runMode(uint8_t mode, std::string_view rest) {
    if (mode < 0xC0)
        encodeText(realTokenizer(), std::string(rest), 1 + mode % 80);
    else
        loadFolder(rest);
}

// LLVMFuzzerInitialize: the tokenizer loads once, before the first input.
void hs::fuzz::warmUp() {
    realTokenizer();
}
