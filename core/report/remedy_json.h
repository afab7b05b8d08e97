#pragma once
// The ranked remedy table (diagnosis/remedies.h) as JSON, written and read back (SCHEMA.md:
// "remedies"). No LibTorch.
#include <nlohmann/json.hpp>

#include "diagnosis/remedies.h"
#include "report/json_in.h"

namespace hs {

nlohmann::ordered_json remediesToJson(const RemedyTable& t);
RemedyTable remediesFromJson(const json_in::Node& n);

}  // namespace hs
