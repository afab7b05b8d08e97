#include "library/library_format.h"

#include <cstdio>
#include <sstream>

#include "io/terminal_text.h"
#include "models/single_file_support.h"

namespace hs {

namespace {

// At most `width` characters, "…" marking a cut (the JSON has the whole text).
std::string cell(const std::string& s, size_t width) {
    if (s.size() <= width) return s + std::string(width - s.size(), ' ');
    return s.substr(0, width - 3) + "...";
}

std::string join(const std::vector<std::string>& v, const char* sep) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
    return s;
}

}  // namespace

std::string bytesText(uint64_t n) {
    const char* units[] = {"B", "kB", "MB", "GB", "TB"};
    double v = static_cast<double>(n);
    int u = 0;
    while (v >= 1000 && u < 4) v /= 1000, ++u;
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

nlohmann::json toJson(const LibraryEntry& e) {
    return {{"name", e.name},
            {"path", e.path},
            {"source", e.source},
            {"folder", e.folder},
            {"kind", entryKindName(e.kind)},
            {"family", e.family},
            {"class", e.className},
            {"variant", e.variant},
            {"description", e.description},
            {"layouts", e.layouts},
            {"slots", e.slots},
            {"dtype", e.dtype},
            {"parameters", e.parameters},
            {"tensors", e.tensors},
            {"bytes", e.bytes},
            {"fp16_risk", e.fp16Risk},
            {"files", e.files},
            {"error", e.error.empty() ? nlohmann::json() : nlohmann::json(e.error)}};
}

nlohmann::json toJson(const LibraryReport& r) {
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& e : r.entries) entries.push_back(toJson(e));
    return {{"entries", entries},
            {"notes", r.notes},
            {"header_reads", r.headerReads},
            {"cache_hits", r.cacheHits}};
}

std::string formatLibrary(const LibraryReport& r) {
    std::ostringstream out;
    out << cell("NAME", 34) << " " << cell("SOURCE", 8) << " " << cell("FAMILY", 22) << " "
        << cell("VARIANT", 30) << " " << cell("LAYOUT", 28) << " " << cell("DTYPE", 5) << " "
        << cell("PARAMS", 8) << " " << cell("SIZE", 9) << " " << cell("FP16 RISK", 16)
        << " ERROR\n";
    int errors = 0;
    for (const auto& e : r.entries) {
        // Names and texts come from the disk: no terminal control characters pass.
        const std::string layout =
            e.layouts.empty() ? entryKindName(e.kind) : join(e.layouts, "; ");
        out << cell(printable(e.name), 34) << " " << cell(e.source, 8) << " "
            << cell(e.family.empty() ? "?" : e.family, 22) << " " << cell(printable(e.variant), 30)
            << " " << cell(layout, 28) << " " << cell(e.dtype.empty() ? "-" : e.dtype, 5) << " "
            << cell(e.parameters ? parameterCountText(e.parameters) : "-", 8) << " "
            << cell(bytesText(e.bytes), 9) << " " << cell(e.fp16Risk.empty() ? "-" : e.fp16Risk, 16)
            << " " << (e.error.empty() ? "" : "yes (below)") << "\n";
        errors += !e.error.empty();
    }
    out << r.entries.size() << " entries";
    if (errors) out << ", " << errors << " with errors";
    out << "; " << r.headerReads << " headers read, " << r.cacheHits << " from the cache\n";
    if (errors) {
        out << "\nErrors:\n";
        for (const auto& e : r.entries)
            if (!e.error.empty())
                out << "  " << printable(e.name) << " (" << printable(e.path)
                    << "): " << printable(e.error) << "\n";
    }
    if (!r.notes.empty()) {
        out << "\nNotes:\n";
        for (const auto& n : r.notes) out << "  " << printable(n) << "\n";
    }
    return out.str();
}

}  // namespace hs
