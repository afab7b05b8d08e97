#pragma once
// Small text helpers of the HTML report. Internal.
#include <cstdint>
#include <string>

#include "records/run_types.h"

namespace hs::html {

// Escapes & < > " ' : safe in element content and in quoted attribute values.
std::string esc(const std::string& s);
// Compact number: integers up to 10^7 in full ("65504"), 4 significant digits below 1000,
// scientific outside [1e-3, 1e7); "—" for NaN, "∞" / "−∞".
std::string num(double v);
std::string count(int64_t v);  // "12,288"
// data: URI of a PNG of the preview's RGB pixels ("" when the image is empty or inconsistent).
std::string pngDataUri(const PreviewImage& p);

}  // namespace hs::html
