#pragma once
// For the tokenizer targets, which link text/utf8.cpp (the other targets do not): the checks
// every tokenizer's encode must pass.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "text/utf8.h"

inline bool validUtf8(const std::string& s) {
    try {
        hs::decodeUtf8(s);
        return true;
    } catch (const std::invalid_argument&) {
        return false;
    }
}

namespace hs::fuzz {

// True when `text` is invalid UTF-8 and `tok.encode` refused it with std::invalid_argument, false
// when it is valid; a tokenizer that accepts invalid UTF-8 is a finding (abort).
template <class Tokenizer>
bool refusedInvalidUtf8(const Tokenizer& tok, const std::string& text) {
    if (validUtf8(text)) return false;
    try {
        tok.encode(text);
    } catch (const std::invalid_argument&) {
        return true;
    }
    std::abort();  // invalid UTF-8 accepted
}

// `some`, an encoding truncated to `limit` ids, is the first `limit` of `ids`.
inline void checkTruncated(const std::vector<int>& some, const std::vector<int>& ids,
                           size_t limit) {
    check(some.size() == std::min(limit, ids.size()));
    for (size_t i = 0; i < some.size(); ++i) check(some[i] == ids[i]);
}

// `padded`, an encoding padded or cut to a fixed length, is `ids` cut to that length with the end
// token `eos` kept last, then `pad` to the end.
inline void checkPadded(const std::vector<int>& padded, const std::vector<int>& ids, int eos,
                        int pad) {
    const size_t kept = std::min(ids.size(), padded.size());
    check(kept > 0 && padded[kept - 1] == eos);
    for (size_t i = 0; i + 1 < kept; ++i) check(padded[i] == ids[i]);
    for (size_t i = kept; i < padded.size(); ++i) check(padded[i] == pad);
}

// Tokenizer::fromFolder(dir), or nothing when it refused the folder with a std::runtime_error
// (TokenizerError, FileError). Any other exception goes to escapedException, or with
// `othersEscape` on out of the target (a crash: the finding).
template <class Tokenizer>
std::optional<Tokenizer> loadFolderOrRefusal(const std::string& dir, bool othersEscape = false) {
    try {
        return Tokenizer::fromFolder(dir);
    } catch (const std::runtime_error&) {
        return std::nullopt;
    } catch (const std::exception& e) {
        if (othersEscape) throw;
        escapedException(e);
        return std::nullopt;
    }
}

}  // namespace hs::fuzz
