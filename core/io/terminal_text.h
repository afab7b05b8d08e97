#pragma once
// Text read from files (tensor and component names, metadata values, paths, labels of saved
// reports) made safe to print on a terminal: a crafted name must not move the cursor, clear the
// screen, retitle the window or hide text. No LibTorch, no Qt.
//
// Escaped: C0 controls and DEL as \xNN (ESC is \x1b), C1 controls (U+0080..U+009F) and the
// bidirectional overrides and isolates (U+202A..U+202E, U+2066..U+2069) as \uNNNN, and every
// byte that is not part of valid UTF-8 as \xNN. Valid printable UTF-8 is kept as it is.
#include <string>
#include <string_view>

namespace hs {

// One name or value: line breaks and tabs are escaped too (\x0a, \x09), so it stays on its line.
std::string printable(std::string_view s);

// Text the program composed (reports, tables, messages that quote names): as printable(), but
// '\n' and '\t' are kept.
std::string printableText(std::string_view s);

// How many leading bytes of `s` printableText can handle now: all but a UTF-8 sequence cut off
// at the end (for stream filters that see text in pieces).
size_t completeUtf8Prefix(std::string_view s);

}  // namespace hs
