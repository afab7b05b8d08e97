#pragma once
// The findings of report schema 1 as JSON (see SCHEMA.md). First failure and headroom are
// written only: a reader recomputes them from the records. Bisection and advice, which cannot
// be recomputed, are read back too. No LibTorch.
#include <nlohmann/json.hpp>

#include "report/report_types.h"
#include "report/json_in.h"

namespace hs {

nlohmann::ordered_json firstFailureToJson(const FirstFailure& f);
nlohmann::ordered_json headroomToJson(const HeadroomReport& h);
nlohmann::ordered_json divergenceToJson(const std::vector<StepDivergence>& d);
nlohmann::ordered_json bisectionToJson(const BisectionResult& b);
nlohmann::ordered_json adviceToJson(const Advice& a);
nlohmann::ordered_json environmentToJson(const ReportEnvironment& e);

BisectionResult bisectionFromJson(const json_in::Node& n);
Advice adviceFromJson(const json_in::Node& n);
ReportEnvironment environmentFromJson(const json_in::Node& n);

}  // namespace hs
