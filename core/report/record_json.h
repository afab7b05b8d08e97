#pragma once
// RunRecord <-> JSON (the "record" object of report schema 1, see SCHEMA.md). Usable on its
// own, e.g. to save a run as it grows. No LibTorch.
#include <nlohmann/json.hpp>

#include "records/run_types.h"

namespace hs {

struct RecordJsonOptions {
    bool images = true;        // final, saved and preview images as base64 PNG
    bool latentValues = true;  // StepRecord::latentValues as base64 float32 (little-endian)
};

nlohmann::ordered_json statsToJson(const TensorStats& s);
nlohmann::ordered_json probeToJson(const ProbeRecord& p);
nlohmann::ordered_json previewToJson(const PreviewImage& p);
nlohmann::ordered_json runRecordToJson(const RunRecord& r, const RecordJsonOptions& o = {});

// Throws ReportFormatError (report/report_types.h) naming the key path under `path`.
RunRecord runRecordFromJson(const nlohmann::json& j, const std::string& path = "record");

}  // namespace hs
