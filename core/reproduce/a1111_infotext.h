#pragma once
// A1111 / Forge infotexts (the PNG "parameters" chunk), read as A1111's
// infotext_utils.parse_generation_parameters reads them: prompt lines, then from the line
// "Negative prompt: ..." the negative prompt, then a last line of at least three
// `Key: value` fields, a value quoted (JSON) when it holds a comma, a colon or a line break.
#include <string>
#include <utility>
#include <vector>

#include "reproduce/reproduce_settings.h"

namespace hs {

// Far more than A1111 and its extensions write (a few dozen); a line of more is refused.
constexpr size_t kMaxInfotextFields = 4096;

struct Infotext {
    std::string prompt;
    std::string negativePrompt;
    std::vector<std::pair<std::string, std::string>> fields;  // in order, quotes removed
    // The last value of `key` (A1111 keeps the last of a repeated key), or null.
    const std::string* find(const std::string& key) const;
};

// Throws std::runtime_error when the last line holds more than kMaxInfotextFields fields.
Infotext parseInfotext(const std::string& text);

// The settings the infotext names. Throws std::runtime_error when a number does not read.
ReproduceSettings settingsFromInfotext(const Infotext& info);

}  // namespace hs
