// libFuzzer target: the T5 tokenizer (FLUX.1's tokenizer_2) around SentencePiece, with a small
// Unigram model (fuzz/data/t5_tiny.model: spm_train, 200 pieces, nmt_nfkc, pad 0 / eos 1 /
// unk 2; 100 extra ids). The first byte picks the mode:
//   < 0xC0: the rest is text: pieces, encode and encodePadded agree, ids are below vocabSize();
//           only invalid UTF-8 may be refused.
//   < 0xE0: the rest is tokenizer_config.json, then special_tokens_map.json after "\n====\n",
//           beside the fixed spiece.model; an accepted folder must tokenize a fixed text.
//   else:   the rest is the bytes of a spiece.model (SentencePiece's own parser, then ours).
// Refusals are TokenizerError (or FileError); any other escape is reported by
// hs::fuzz::escapedException.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "fuzz_text.h"
#include "fuzz_util.h"
#include "text/t5_tokenizer.h"
#include "text/utf8.h"

namespace {

const std::string& modelBytes() {
    static const std::string bytes = [] {
        std::ifstream in(hs::fuzz::sourcePath("fuzz/data/t5_tiny.model"), std::ios::binary);
        std::ostringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }();
    return bytes;
}

const hs::T5Tokenizer& fixedTokenizer() {
    static const hs::T5Tokenizer tok = hs::T5Tokenizer::fromSerializedModel(modelBytes());
    return tok;
}

void encodeText(const hs::T5Tokenizer& tok, const std::string& text, int maxLength) {
    if (hs::fuzz::refusedInvalidUtf8(tok, text)) return;
    const std::vector<int> ids = tok.encode(text);
    check(!ids.empty() && ids.back() == tok.eosId());
    for (int id : ids) check(id >= 0 && size_t(id) < tok.vocabSize());
    check(tok.pieces(text).size() == ids.size() - 1);
    const std::vector<int> padded = tok.encodePadded(text, maxLength);
    check(padded.size() == size_t(maxLength));
    hs::fuzz::checkPadded(padded, ids, tok.eosId(), tok.padId());
}

void loadFolder(std::string_view data) {
    const auto parts = hs::fuzz::splitParts(data, "\n====\n", 2);
    std::vector<std::pair<std::string, std::string_view>> files = {
        {"spiece.model", modelBytes()}, {"tokenizer_config.json", parts[0]}};
    if (parts.size() > 1) files.emplace_back("special_tokens_map.json", parts[1]);
    const std::string& dir = hs::fuzz::writeFiles(files);
    const auto tok = hs::fuzz::loadFolderOrRefusal<hs::T5Tokenizer>(dir);
    if (!tok) return;
    encodeText(*tok, "A red cat </s> on a hill <extra_id_0> ﬁne 猫 🐱  ", 9);
    encodeText(*tok, std::string(data.substr(0, 64)), 4);
}

void loadModel(std::string_view data) {
    std::optional<hs::T5Tokenizer> tok;
    try {
        tok.emplace(hs::T5Tokenizer::fromSerializedModel(std::string(data)));
    } catch (const hs::TokenizerError&) {
        return;
    } catch (const std::exception& e) {
        hs::fuzz::escapedException(e);
        return;
    }
    encodeText(*tok, "A red cat </s> on a hill <extra_id_0> ﬁne 猫 🐱  ", 9);
}

}  // namespace

void hs::fuzz::runMode(uint8_t mode, std::string_view rest) {
    if (mode < 0xC0)
        encodeText(fixedTokenizer(), std::string(rest), 1 + mode % 48);
    else if (mode < 0xE0)
        loadFolder(rest);
    else
        loadModel(rest);
}

// LLVMFuzzerInitialize: the tokenizer loads once, before the first input.
void hs::fuzz::warmUp() {
    fixedTokenizer();
}
