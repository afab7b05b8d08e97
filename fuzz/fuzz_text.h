#pragma once
// For the tokenizer targets, which link text/utf8.cpp (the other targets do not).
#include <stdexcept>
#include <string>

#include "text/utf8.h"

inline bool validUtf8(const std::string& s) {
    try {
        hs::decodeUtf8(s);
        return true;
    } catch (const std::invalid_argument&) {
        return false;
    }
}
