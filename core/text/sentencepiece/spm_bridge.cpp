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

// No C++ exception may cross this C interface (the caller's unwinder would meet a C frame):
// every entry point catches, and reports failure in its return value.

namespace {

void copyError(char* error, size_t cap, const char* what) {
    if (!error || !cap) return;
    std::strncpy(error, what, cap - 1);
    error[cap - 1] = '\0';
}

}  // namespace

__attribute__((visibility("default"))) void* hs_spm_load(const char* bytes, size_t n, char* error,
                                                         size_t error_cap) {
    try {
        auto* p = new Processor;
        const auto status = p->LoadFromSerializedProto(std::string_view(bytes, n));
        if (status.ok()) return p;
        delete p;
        copyError(error, error_cap, status.ToString().c_str());
    } catch (const std::exception& e) {
        copyError(error, error_cap, e.what());
    } catch (...) {
        copyError(error, error_cap, "unknown failure");
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
    try {
        return of(model).PieceToId(std::string_view(piece, n));
    } catch (...) {
        return of(model).unk_id();
    }
}

// SentencePiece indexes its piece table with `id` unchecked: an id from outside (a saved run, a
// config) outside [0, pieces) reads past it. Such an id is an empty piece here.
__attribute__((visibility("default"))) size_t hs_spm_id_to_piece(const void* model, int id,
                                                                 char* buf, size_t cap) {
    if (id < 0 || id >= of(model).GetPieceSize()) return 0;
    try {
        const std::string& p = of(model).IdToPiece(id);
        if (cap) std::memcpy(buf, p.data(), p.size() < cap ? p.size() : cap);
        return p.size();
    } catch (...) {
        return 0;
    }
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
