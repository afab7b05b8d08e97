#pragma once
// Engine sentences as data: a catalogue id, an English template with numbered arguments (%1 ..
// %9, in the order the English template first uses them) and the argument values, already
// formatted as text (numbers with the engine's English formatting: digits, '.', 'e'), so a
// translation may reorder them freely.
//
// Core keeps writing the English text (CLI, JSON, old readers) and stores the message beside it,
// so a reader in another language renders it from its own template. A sentence built of
// optional parts is a MessageText: pieces rendered one after another (each piece a whole clause,
// with its leading "; " or " (" so that a translation can choose its own punctuation).
//
// The catalogue (message_catalogue.cpp) is the one list of templates; the studio lists the same
// templates for Qt's lupdate (widgets/controls/engine_messages.cpp) and a test keeps the two
// equal. No Qt, no LibTorch.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hs {

struct Message {
    std::string id;
    std::vector<std::string> args;
    bool operator==(const Message& o) const { return id == o.id && args == o.args; }
};

using MessageText = std::vector<Message>;

struct MessageTemplate {
    std::string_view id;
    std::string_view text;  // English, with %1 .. %9
};

// Every template, ids unique.
const std::vector<MessageTemplate>& messageCatalogue();
// nullptr for an id the catalogue does not hold (a report written by a newer version).
const MessageTemplate* findMessage(std::string_view id);

// The highest %N in `text` (0 when none).
int placeholderCount(std::string_view text);
// Replaces each %N (1..9) by args[N-1] in one pass (an argument holding "%2" stays as it is);
// a %N without an argument and a '%' not followed by a digit are kept.
std::string fillTemplate(std::string_view text, const std::vector<std::string>& args);

// Turns an English template into the reader's language (the same text when it has none).
using MessageTranslator = std::function<std::string(const MessageTemplate&)>;

// The message in English; "" for an unknown id.
std::string englishText(const Message& m);
std::string englishText(const MessageText& m);
// The text in the translator's language. Falls back to `english` when the text is empty, a piece
// is unknown or has fewer arguments than its template, or no translator is given: a report
// written before messages were stored, or by a newer version, still reads in English.
std::string renderText(const MessageText& m, const std::string& english,
                       const MessageTranslator& translate);

// Formats a number as `std::ostream << v` with the given precision (6 is the stream's default).
std::string numberText(double v, int precision = 6);

}  // namespace hs
