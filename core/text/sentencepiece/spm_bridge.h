/* The C interface of libhalfscope_spm, a small module around Debian's libsentencepiece.
 *
 * Why a module loaded with dlopen(RTLD_LOCAL | RTLD_DEEPBIND) rather than linking
 * libsentencepiece: it carries its own copy of protobuf-lite with default visibility, and
 * LibTorch loads the system libprotobuf. Linked together, libprotobuf's start-up code binds to
 * SentencePiece's protobuf functions and the program crashes before main(). Loaded locally and
 * deep-bound, each library keeps its own protobuf. Plain C types only across the boundary. */
#ifndef HALFSCOPE_SPM_BRIDGE_H
#define HALFSCOPE_SPM_BRIDGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HS_SPM_ABI 1

/* One piece of an encoding: its id, its text ("▁cat"), and the byte range of the input it
 * covers. `piece` is valid during the callback only. */
typedef void (*hs_spm_piece_fn)(void* user, int id, const char* piece, size_t piece_len,
                                size_t begin, size_t end);

int hs_spm_abi(void);
/* A model from the bytes of a spiece.model; NULL with `error` filled when it does not load. */
void* hs_spm_load(const char* bytes, size_t n, char* error, size_t error_cap);
void hs_spm_free(void* model);
int hs_spm_piece_size(const void* model);
int hs_spm_unk_id(const void* model);
int hs_spm_piece_to_id(const void* model, const char* piece, size_t n);
/* Writes the piece of `id` to `buf` (up to `cap` bytes) and returns its full length; 0 for an
   id outside [0, piece_size). */
size_t hs_spm_id_to_piece(const void* model, int id, char* buf, size_t cap);
/* Encodes `text`, calling `fn` for each piece in order. Returns 0, or -1 on failure. */
int hs_spm_encode(const void* model, const char* text, size_t n, hs_spm_piece_fn fn, void* user);

#ifdef __cplusplus
}
#endif

#endif
