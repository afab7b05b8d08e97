#pragma once
// A SentencePiece model (spiece.model) through libhalfscope_spm, the module around Debian's
// libsentencepiece that is loaded on first use (text/sentencepiece/spm_bridge.h says why it is
// not linked). No LibTorch, no Qt.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hs {

struct SentencePieceToken {
    int id = 0;
    std::string piece;          // "▁cat"
    size_t begin = 0, end = 0;  // the bytes of the input it covers
};

class SentencePieceModel {
public:
    // The model from the bytes of a spiece.model. Throws TokenizerError naming `source`: a file
    // SentencePiece cannot load, or the module missing (saying where it was looked for).
    SentencePieceModel(const std::string& bytes, const std::string& source);
    ~SentencePieceModel();
    SentencePieceModel(const SentencePieceModel&) = delete;
    SentencePieceModel& operator=(const SentencePieceModel&) = delete;

    int pieceSize() const;
    int unkId() const;
    int pieceToId(std::string_view piece) const;  // unkId() for a piece the model lacks
    std::string idToPiece(int id) const;
    std::vector<SentencePieceToken> encode(std::string_view text) const;

    struct Api;  // the module's functions (the .cpp)

private:
    const Api& m_api;
    void* m_model = nullptr;
};

}  // namespace hs
