// libhalfscope_spm: the only code that includes SentencePiece's headers (see spm_bridge.h).
#include "spm_bridge.h"

#include <sentencepiece_processor.h>

#include <cstring>
#include <string>

namespace {

using Processor = sentencepiece::SentencePieceProcessor;

const Processor& of(const void* m) {
    return *static_cast<const Processor*>(m);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int hs_spm_abi(void) {
    return HS_SPM_ABI;
}

__attribute__((visibility("default"))) void* hs_spm_load(const char* bytes, size_t n, char* error,
                                                         size_t error_cap) {
    auto* p = new Processor;
    const auto status = p->LoadFromSerializedProto(std::string_view(bytes, n));
    if (status.ok()) return p;
    delete p;
    if (error && error_cap) {
        std::strncpy(error, status.ToString().c_str(), error_cap - 1);
        error[error_cap - 1] = '\0';
    }
    return nullptr;
}

__attribute__((visibility("default"))) void hs_spm_free(void* model) {
    delete static_cast<Processor*>(model);
}

__attribute__((visibility("default"))) int hs_spm_piece_size(const void* model) {
    return of(model).GetPieceSize();
}

__attribute__((visibility("default"))) int hs_spm_unk_id(const void* model) {
    return of(model).unk_id();
}

__attribute__((visibility("default"))) int hs_spm_piece_to_id(const void* model, const char* piece,
                                                              size_t n) {
    return of(model).PieceToId(std::string_view(piece, n));
}

__attribute__((visibility("default"))) size_t hs_spm_id_to_piece(const void* model, int id,
                                                                 char* buf, size_t cap) {
    const std::string& p = of(model).IdToPiece(id);
    if (cap) std::memcpy(buf, p.data(), p.size() < cap ? p.size() : cap);
    return p.size();
}

__attribute__((visibility("default"))) int hs_spm_encode(const void* model, const char* text,
                                                         size_t n, hs_spm_piece_fn fn, void* user) {
    try {
        const auto spt = of(model).EncodeAsImmutableProto(std::string_view(text, n));
        for (const auto& p : spt.pieces())
            fn(user, int(p.id()), p.piece().data(), p.piece().size(), p.begin(), p.end());
        return 0;
    } catch (...) {
        return -1;
    }
}

}  // extern "C"
