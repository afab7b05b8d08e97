#pragma once
// Engine messages (records/message.h) in the report JSON: a MessageText is an array of
// {"id": "first_failure.probe", "args": ["+Inf", ...]} (SCHEMA.md, "Messages"). No LibTorch.
#include <nlohmann/json.hpp>

#include "records/message.h"
#include "report/json_in.h"

namespace hs {

nlohmann::ordered_json messageToJson(const MessageText& m);
// Throws ReportFormatError (through Node) naming the key path on a wrong shape. An id this
// version does not know is kept: renderText falls back to the stored English for it.
MessageText messageFromJson(const json_in::Node& n);
// `key` of object `n` when present and not null; empty otherwise (reports written before
// messages were stored).
MessageText optionalMessage(const json_in::Node& n, const char* key);

}  // namespace hs
